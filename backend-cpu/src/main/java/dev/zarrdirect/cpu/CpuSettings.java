// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.backend.CommonBackendSettings;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingType;

import java.util.List;

/**
 * The CPU backend's settings, parsed once when it starts ({@link CpuBackendProvider#open}).
 *
 * @param poolRetainedBytes bytes of free host blocks kept for reuse (default 512 MiB)
 * @param trackBuffers      record each allocation's stack for leak reports
 * @param zstdStreamCheck   after libzstd, check that each Huffman literal stream is consumed exactly
 *                          ({@link dev.zarrdirect.cpu.codec.bytestobytes.ZstdHuffmanStreams}); default true
 * @param hugePages         advise new host blocks of 8 MiB or more to use transparent huge pages (Linux;
 *                          {@link NativeBlocks}); default true
 * @param libdeflate        inflate gzip and zlib streams with libdeflate where the system has it, zlib only
 *                          for what it does not decode whole
 *                          ({@link dev.zarrdirect.cpu.codec.bytestobytes.LibDeflate}); default true
 */
public record CpuSettings(long poolRetainedBytes, boolean trackBuffers, boolean zstdStreamCheck, boolean hugePages,
                          boolean libdeflate) {

    public static final Setting<Long> POOL_RETAINED = Setting.of(CpuBackend.POOL_RETAINED_PROPERTY,
            SettingType.byteSize(0, Long.MAX_VALUE), CpuBackend.DEFAULT_RETAINED, "cpu",
            "bytes of free host blocks the CPU backend keeps for reuse");

    // On by default: a corrupt chunk is an error on every device, and the CPU and the kernels agree on
    // which. Off is there to measure, and for users who take libzstd's word as other Zarr readers do.
    public static final Setting<Boolean> ZSTD_STREAM_CHECK = Setting.of("zarrdirect.cpu.zstdStreamCheck",
            SettingType.bool(), true, "cpu",
            "check after libzstd that each Huffman literal stream of a zstd frame (codec zstd, blosc with zstd)"
                    + " is consumed exactly (RFC 8878 4.2.2), as the GPU kernels do, at the cost of a second Huffman"
                    + " decode of the literals; false: libzstd's own checks only (as TensorStore and zarr-python),"
                    + " and a damaged stream that still yields the right number of literals decodes to wrong bytes"
                    + " on the CPU where the GPU kernels report the chunk corrupt");

    public static final Setting<Boolean> HUGE_PAGES = Setting.of("zarrdirect.cpu.hugePages", SettingType.bool(), true,
            "cpu", "advise new host blocks of 8 MiB or more (read outputs) to use transparent huge pages on Linux, so"
                    + " that they are faulted in 2 MiB at a time; false: 4 KiB pages, unless the system's THP mode is"
                    + " \"always\"");

    // On by default: it changes speed, not results. A stream libdeflate does not decode whole (corrupt,
    // too long, a preset dictionary, a window under 32 KiB) is decoded again by zlib, whose result and
    // message stand, so the CPU and the device kernels still agree on every damaged chunk.
    public static final Setting<Boolean> LIBDEFLATE = Setting.of("zarrdirect.cpu.libdeflate", SettingType.bool(), true,
            "cpu", "inflate gzip, numcodecs.zlib and blosc's zlib streams with the system's libdeflate (Debian and"
                    + " Ubuntu: libdeflate0) where it loads, 1.5-2x as fast as the JDK's zlib; a stream it does not"
                    + " decode whole is decoded again by zlib, which reports what is wrong with it; false: the JDK's"
                    + " zlib alone");

    /** Every setting of this record. */
    public static final List<Setting<?>> SETTINGS = List.of(POOL_RETAINED, ZSTD_STREAM_CHECK, HUGE_PAGES, LIBDEFLATE,
            CommonBackendSettings.TRACK_BUFFERS);

    public CpuSettings {
        if (poolRetainedBytes < 0) {
            throw new IllegalArgumentException("poolRetainedBytes must be >= 0, got " + poolRetainedBytes);
        }
    }

    /** The defaults. */
    public static CpuSettings defaults() {
        return new CpuSettings(CpuBackend.DEFAULT_RETAINED, false, true, true, true);
    }

    /** Resolved by {@code r}: explicit, system property, environment, default. */
    public static CpuSettings from(SettingResolver r) {
        // resolved in the order of SETTINGS, which is the order the backend reports them in
        long retained = r.get(POOL_RETAINED);
        boolean streamCheck = r.get(ZSTD_STREAM_CHECK);
        boolean hugePages = r.get(HUGE_PAGES);
        boolean libdeflate = r.get(LIBDEFLATE);
        return new CpuSettings(retained, r.get(CommonBackendSettings.TRACK_BUFFERS), streamCheck, hugePages,
                libdeflate);
    }
}
