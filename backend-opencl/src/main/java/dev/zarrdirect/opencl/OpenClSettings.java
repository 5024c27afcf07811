// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.backend.CommonBackendSettings;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingType;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClInflateCodec;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClZstdCodec;

import java.util.List;

/**
 * The OpenCL backend's settings, parsed once when it starts ({@link OpenClBackendProvider#open}).
 *
 * @param device          the device: an index or a case-insensitive substring of "platform device";
 *                        null: the first GPU, else the first device
 * @param zstdLocalSize   work-items a frame of the zstd kernel (lowered to what the kernel allows)
 * @param zstdBuildOptions build options of the zstd program; null: none, {@code -cl-opt-disable} on PoCL
 * @param kernelsDir      a directory replacing the kernels jar's sources, or null
 * @param trackBuffers    record each allocation's stack for leak reports
 * @param inflateSplit    largest range of a gzip or zlib stream decoded by many work-groups (0: one a
 *                        stream); null: {@link #inflateSplitBytes(boolean) by the device}
 * @param queues          in-order command queues; each thread that uses the backend keeps to one of
 *                        them, so the work of threads on different queues may run at once
 */
public record OpenClSettings(String device, long zstdLocalSize, String zstdBuildOptions, String kernelsDir,
                             boolean trackBuffers, Long inflateSplit, int queues) {

    /** The split range on a GPU when none is set: CUDA's default. */
    public static final long GPU_INFLATE_SPLIT_BYTES = 64L << 10;

    public static final Setting<String> DEVICE = Setting.derived(ClDevices.DEVICE_PROPERTY,
            SettingType.text("a device index or a substring of \"platform device\""), "the first GPU, else the first device",
            "opencl", "the OpenCL device: its index in `clinfo -l` order, or part of its platform and device name");
    public static final Setting<Long> ZSTD_LOCAL_SIZE = Setting.of(OpenClZstdCodec.LOCAL_SIZE_PROPERTY,
            SettingType.longRange(1, 1024), 64L, "opencl",
            "work-items a frame of the zstd kernel (a power of two at most; lowered to what the device allows)");
    public static final Setting<String> ZSTD_BUILD_OPTIONS = Setting.derived(OpenClZstdCodec.BUILD_OPTIONS_PROPERTY,
            SettingType.anyText("OpenCL C compiler options"), "none; -cl-opt-disable on PoCL", "opencl",
            "build options of the zstd program");
    public static final Setting<String> KERNELS_DIR = Setting.derived(KernelSource.KERNELS_DIR_PROPERTY,
            SettingType.text("a directory (the kernels module's src/main/c)"), "the kernels jar's sources", "opencl",
            "read kernel sources from this directory instead of the jar (kernel development, tests)");

    /**
     * The largest range of a gzip or zlib stream that decodes split, as on CUDA
     * ({@code zarrdirect.cuda.inflateSplitBytes}, {@code InflateSplitPlan}); 0 decodes every stream
     * serially, one work-group each.
     */
    public static final Setting<Long> INFLATE_SPLIT = Setting.derived(OpenClInflateCodec.SPLIT_BYTES_PROPERTY,
            SettingType.byteSize(0, 1L << 27), "64k on a GPU, 0 on other devices", "opencl",
            "largest encoded range of a gzip or zlib stream decoded by many work-groups (0: one work-group a stream)");

    /**
     * Command queues of the backend. With one, the batches of queued reads (a loader's windows) ran
     * one after another on an H100 and read 2.4x slower than CUDA's, whose streams overlap them.
     */
    public static final Setting<Integer> QUEUES = Setting.of("zarrdirect.opencl.queues", SettingType.intRange(1, 64), 4,
            "opencl", "in-order command queues; each thread keeps to one, so threads on different queues run at once (and as many more hold copies)");

    /** Every setting of the OpenCL backend. */
    public static final List<Setting<?>> SETTINGS = List.of(DEVICE, ZSTD_LOCAL_SIZE, ZSTD_BUILD_OPTIONS, KERNELS_DIR,
            CommonBackendSettings.TRACK_BUFFERS, INFLATE_SPLIT, QUEUES);

    /** From system properties, environment and defaults. */
    public static OpenClSettings fromSystem() {
        return from(SettingResolver.system());
    }

    /** Resolved by {@code r}: explicit, system property, environment, default. */
    public static OpenClSettings from(SettingResolver r) {
        return new OpenClSettings(r.get(DEVICE), r.get(ZSTD_LOCAL_SIZE), r.get(ZSTD_BUILD_OPTIONS), r.get(KERNELS_DIR),
                r.get(CommonBackendSettings.TRACK_BUFFERS), r.get(INFLATE_SPLIT), r.get(QUEUES));
    }

    /**
     * The split range on a device: the setting, else {@link #GPU_INFLATE_SPLIT_BYTES} on a GPU and 0
     * elsewhere. On an H100 through NVIDIA's OpenCL the 66 MB streams of a zlib store read 1.77 GB/s
     * split in calls of 4 steps, against 0.58 for the host path the serial-run rule picks when they
     * are not (docs/performance.md); on a CPU device (PoCL) the host path runs on the same cores.
     */
    public long inflateSplitBytes(boolean gpu) {
        return inflateSplit != null ? inflateSplit : gpu ? GPU_INFLATE_SPLIT_BYTES : 0;
    }

    /**
     * How the zstd kernel is built and launched on a device of platform {@code platformName}: made
     * once when the backend starts.
     */
    public ZstdPolicy zstdPolicy(String platformName) {
        String options = zstdBuildOptions != null ? zstdBuildOptions
                : platformName.contains("Portable Computing Language") ? "-cl-opt-disable" : "";
        return new ZstdPolicy(zstdLocalSize, options);
    }

    /**
     * The zstd kernel on one device.
     *
     * @param localSize    work-items a frame wanted (the kernel's limit lowers it, to a power of two)
     * @param buildOptions build options of the program
     */
    public record ZstdPolicy(long localSize, String buildOptions) {
    }
}
