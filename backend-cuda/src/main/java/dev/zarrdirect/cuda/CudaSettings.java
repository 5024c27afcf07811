// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda;

import dev.zarrdirect.api.backend.CommonBackendSettings;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingType;
import dev.zarrdirect.cuda.codec.ZstdKernelPolicy;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.io.DirectReaders;
import dev.zarrdirect.cuda.io.ThreadedReader;
import dev.zarrdirect.cuda.kernels.KernelImage;

import java.util.ArrayList;
import java.util.List;

/**
 * The CUDA backend's settings, parsed once when it starts ({@link CudaBackendProvider#open}). The
 * defaults were measured on an H200 (see the javadoc of each property constant); the zstd kernel
 * knobs are {@link ZstdKernelPolicy.Overrides}, applied per device by {@link ZstdKernelPolicy}.
 *
 * @param poolRetainedBytes   bytes the device pool keeps after frees; {@link #DERIVED}: a quarter of
 *                            the device's memory, at least 4 GiB
 * @param pinnedRetainedBytes bytes of free pinned host blocks kept
 * @param batchSize           chunks per device batch the core should use
 * @param batchBytes          decoded bytes a device batch holds at most
 * @param reader              the direct reader: {@code auto}, {@code threaded} or {@code cufile}
 * @param readerThreads       threads of the threaded reader
 * @param readerTaskBytes     bytes per task and bounce buffer of the threaded reader
 * @param readerTrace         print where each threaded read's time goes
 * @param cufileThreads       threads of the cuFile reader
 * @param cufileBounceBytes   bytes of each cuFile bounce region
 * @param cufileStrict        fail reads of files cuFile cannot register instead of reading them threaded
 * @param schedule            how host threads wait for the device ({@code auto}, {@code spin},
 *                            {@code yield}, {@code blocking}); applies when a device's primary
 *                            context is first retained (the first probe)
 * @param kernelImage         a fatbin file to load instead of the kernels jar's, or null (the
 *                            probe loads the one of system properties or environment; an
 *                            explicit one is loaded when the backend opens)
 * @param trackBuffers        record each allocation's stack for leak reports
 * @param bloscScratchBytes   device scratch one blosc decode launch takes at most; {@link #DERIVED}:
 *                            by the device's memory ({@link #bloscScratchBytes(long)})
 * @param inflateSplitBytes   range of a deflate stream decoded by many blocks (0: each stream by one)
 * @param bloscOverlap        blosc lz4/blosclz blocks parse each batch of sequences beside the execution of
 *                            the batch before ({@link #BLOSC_OVERLAP})
 * @param zstd                the zstd kernel settings that were set (the device decides the rest)
 */
public record CudaSettings(long poolRetainedBytes, long pinnedRetainedBytes, int batchSize, long batchBytes,
                           String reader, int readerThreads, long readerTaskBytes, boolean readerTrace,
                           int cufileThreads, long cufileBounceBytes, boolean cufileStrict, String schedule,
                           String kernelImage, boolean trackBuffers, long bloscScratchBytes, long inflateSplitBytes,
                           boolean bloscOverlap, ZstdKernelPolicy.Overrides zstd) {

    /** {@link #poolRetainedBytes()}, {@link #bloscScratchBytes()}: derived from the device. */
    public static final long DERIVED = -1;

    public static final Setting<Long> POOL_RETAINED = Setting.derived(CudaBackend.POOL_RETAINED_PROPERTY,
            SettingType.byteSize(0, Long.MAX_VALUE), "max(4g, device memory / 4)", "cuda",
            "bytes the device memory pool keeps after frees");
    public static final Setting<Long> PINNED_RETAINED = Setting.of(CudaBackend.PINNED_RETAINED_PROPERTY,
            SettingType.byteSize(0, Long.MAX_VALUE), 1L << 30, "cuda", "bytes of free pinned host blocks kept");
    public static final Setting<Integer> BATCH_SIZE = Setting.of(CudaBackend.BATCH_PROPERTY,
            SettingType.intRange(1, Integer.MAX_VALUE), 128, "cuda", "chunks per device batch the core uses by default");
    public static final Setting<Long> BATCH_BYTES = Setting.of(CudaBackend.BATCH_BYTES_PROPERTY,
            SettingType.byteSize(1, Long.MAX_VALUE), 1L << 30, "cuda",
            "decoded bytes a device batch holds at most, by default");
    public static final Setting<String> READER = Setting.of(DirectReaders.PROPERTY,
            SettingType.oneOf("auto", "threaded", "cufile"), "auto", "cuda",
            "what reads files into device memory (auto: " + DirectReaders.AUTO + ")");
    public static final Setting<Integer> READER_THREADS = Setting.of(ThreadedReader.THREADS_PROPERTY,
            SettingType.intRange(1, 1024), 8, "cuda", "threads of the threaded reader");
    public static final Setting<Long> READER_TASK_BYTES = Setting.of(ThreadedReader.TASK_PROPERTY,
            SettingType.byteSize(4096, Long.MAX_VALUE), 4L << 20, "cuda",
            "bytes per task and bounce buffer of the threaded reader");
    public static final Setting<Boolean> READER_TRACE = Setting.of(ThreadedReader.TRACE_PROPERTY, SettingType.bool(),
            false, "cuda", "print where each threaded read's time goes");
    public static final Setting<Integer> CUFILE_THREADS = Setting.of(DirectReaders.CUFILE_THREADS_PROPERTY,
            SettingType.intRange(1, 1024), 8, "cuda", "threads of the cuFile reader");
    public static final Setting<Long> CUFILE_BOUNCE_BYTES = Setting.of(DirectReaders.CUFILE_BOUNCE_PROPERTY,
            SettingType.byteSize(4096, Long.MAX_VALUE), 16L << 20, "cuda", "bytes of each cuFile bounce region");
    public static final Setting<Boolean> CUFILE_STRICT = Setting.of(DirectReaders.CUFILE_STRICT_PROPERTY,
            SettingType.bool(), false, "cuda", "fail reads of files cuFile cannot register instead of reading them threaded");
    public static final Setting<String> SCHEDULE = Setting.of(CudaDevice.SCHEDULE_PROPERTY,
            SettingType.oneOf("auto", "spin", "yield", "blocking"), "auto", "cuda",
            "how host threads wait for the device; applies when the process first opens it (set it as a property or"
                    + " in the environment: an explicit value after that is reported, not applied)");
    /**
     * A shuffled blosc block decodes into its group's scratch, so the scratch a launch may take bounds
     * its groups: 512 MiB gives 2,048 groups of 256 KiB blocks (16 a SM on an H100) but 1,024 of the
     * 512 KiB blocks c-blosc writes for float32 lz4 (8 a SM). The kernel alone, 1 GiB of frames
     * c-blosc wrote in 512 KiB blocks: 124.6 GB/s at 16 groups a SM against 70.7 at 8 on an H200
     * (docs/performance.md). A read of the whole ERA5-like blosc store in one call, same H100, the two
     * alternating twice: 39.14 and 38.76 GB/s with 1 GiB against 35.09 and 36.53 with 512 MiB. Each
     * launch a read keeps in flight takes its own, so 1 GiB only on devices of 32 GiB or more.
     */
    public static final Setting<Long> BLOSC_SCRATCH = Setting.derived("zarrdirect.cuda.bloscScratchBytes",
            SettingType.byteSize(1L << 20, Long.MAX_VALUE), "1g on a device of 32 GiB or more, else 512m", "cuda",
            "device scratch one blosc decode launch takes at most (shuffled blocks decode into it: at most this"
                    + " / block size groups)");
    /**
     * The largest range of a gzip or zlib stream that decodes split ({@code InflateSplitPlan}: 64
     * ranges of at least 8 KiB, a power of two, up to this): block starts found in each range, the
     * segments between them decoded by thread blocks of their own, then verified as a chain
     * (kernels' {@code inflate/zd_inflate_split.h}); a stream that does not verify decodes
     * serially. 0 decodes every stream serially, one thread block each.
     */
    public static final Setting<Long> INFLATE_SPLIT = Setting.of("zarrdirect.cuda.inflateSplitBytes",
            SettingType.byteSize(0, 1L << 27), 64L << 10, "cuda",
            "largest encoded range of a gzip or zlib stream decoded by many thread blocks (0: one block a stream)");
    /**
     * blosc lz4 and blosclz blocks decode with {@code zd_blosc_decode_lz_overlap}: the first warp of a
     * thread block parses each batch of a block's streams while the other warps execute the batch
     * before, so a block takes about the longer of its parse and its copies, not their sum. The kernel
     * alone on an H200, TensorStore-written frames (lz4 + shuffle, 512 KiB blocks): 4 chunks 5.98 ms
     * with the entry before (128 threads) against 3.96 (128 threads), 24 chunks 12.38 ms (32 threads, 32
     * blocks a SM) against 10.43 (64 threads, 16 a SM); docs/performance.md, "A block's parse beside its
     * copies".
     */
    public static final Setting<Boolean> BLOSC_OVERLAP = Setting.of("zarrdirect.cuda.bloscOverlap", SettingType.bool(),
            true, "cuda", "blosc lz4 and blosclz blocks parse each batch of sequences while the thread block's other"
                    + " warps copy the batch before (false: one after the other, as before)");
    public static final Setting<String> KERNEL_IMAGE = Setting.derived(KernelImage.FILE_PROPERTY,
            SettingType.text("a path to an nvcc fatbin"), "the kernels jar's fatbin", "cuda",
            "a fatbin file to load instead of the kernels jar's (kernel work)");

    /** Every setting of the CUDA backend, the zstd kernel policy's included. */
    public static final List<Setting<?>> SETTINGS;

    static {
        List<Setting<?>> all = new ArrayList<>(List.of(POOL_RETAINED, PINNED_RETAINED, BATCH_SIZE, BATCH_BYTES, READER,
                READER_THREADS, READER_TASK_BYTES, READER_TRACE, CUFILE_THREADS, CUFILE_BOUNCE_BYTES, CUFILE_STRICT,
                SCHEDULE, KERNEL_IMAGE, CommonBackendSettings.TRACK_BUFFERS, BLOSC_SCRATCH, INFLATE_SPLIT,
                BLOSC_OVERLAP));
        all.addAll(ZstdKernelPolicy.SETTINGS);
        SETTINGS = List.copyOf(all);
    }

    /** The defaults, nothing read from the system. */
    public static CudaSettings defaults() {
        return from(new SettingResolver(dev.zarrdirect.api.settings.SettingValues.none(), n -> null, n -> null));
    }

    /** From system properties, environment and defaults. */
    public static CudaSettings fromSystem() {
        return from(SettingResolver.system());
    }

    /** Resolved by {@code r}: explicit, system property, environment, default. */
    public static CudaSettings from(SettingResolver r) {
        Long pool = r.get(POOL_RETAINED);
        Long bloscScratch = r.get(BLOSC_SCRATCH);
        return new CudaSettings(pool == null ? DERIVED : pool, r.get(PINNED_RETAINED), r.get(BATCH_SIZE),
                r.get(BATCH_BYTES), r.get(READER), r.get(READER_THREADS), r.get(READER_TASK_BYTES), r.get(READER_TRACE),
                r.get(CUFILE_THREADS), r.get(CUFILE_BOUNCE_BYTES), r.get(CUFILE_STRICT), r.get(SCHEDULE),
                r.get(KERNEL_IMAGE), r.get(CommonBackendSettings.TRACK_BUFFERS),
                bloscScratch == null ? DERIVED : bloscScratch, r.get(INFLATE_SPLIT), r.get(BLOSC_OVERLAP),
                ZstdKernelPolicy.Overrides.from(r));
    }

    /** The scratch one blosc launch takes at most on a device of {@code totalMemory} bytes. */
    public long bloscScratchBytes(long totalMemory) {
        return bloscScratchBytes != DERIVED ? bloscScratchBytes : totalMemory >= 32L << 30 ? 1L << 30 : 512L << 20;
    }

    /** The device pool's retained bytes on a device of {@code totalMemory} bytes. */
    public long poolRetainedBytes(long totalMemory) {
        return poolRetainedBytes == DERIVED ? Math.max(4L << 30, totalMemory / 4) : poolRetainedBytes;
    }
}
