package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.cuda.driver.KernelArgs;

/**
 * The five launches of the multi-pass zstd decoder (kernels: zstd/zd_zstd_mp.h, cuda/zd_zstd_mp.cu)
 * for one batch of frames, queued in order on one stream: {@code zd_zstd_mp_scan} (block tables),
 * {@code zd_zstd_mp_entropy} (literals and sequences of every block), {@code zd_zstd_mp_link}
 * (block positions and repeat offsets), {@code zd_zstd_mp_exec} (persistent groups executing
 * blocks in ticket order) and {@code zd_zstd_mp_finish} (checksums, single-pass fallback, status).
 * The codec and the kernel bench both queue through here, so the bench times what reads run.
 *
 * @param multiprocessors the device's SM count: the persistent launches are sized from it
 * @param execThreads     threads per group of the execute pass: a multiple of 32, at most 1024
 */
public record MultiPassLaunch(int multiprocessors, int execThreads) {

    /** Queues one kernel launch: {@code grid} groups of {@code threads}. */
    @FunctionalInterface
    public interface Launcher {
        void launch(String kernel, int grid, int threads, KernelArgs args);
    }

    public MultiPassLaunch {
        if (execThreads < 32 || execThreads > 1024 || execThreads % 32 != 0) {
            throw new IllegalArgumentException("threads of the multi-pass execute launch must be a multiple of 32 in"
                    + " [32, 1024], got " + execThreads + " (" + CudaZstdCodec.MP_THREADS_PROPERTY + ")");
        }
    }

    /**
     * Queues the five launches. Addresses are device addresses: {@code srcOffsets}, {@code srcSizes},
     * {@code dstOffsets}, {@code dstSizes} and {@code scratchOffsets} point at {@code n} u64 each,
     * {@code slotBase} at {@code n + 1} (running sums of {@link CudaZstdCodec#mpSlots}), {@code status}
     * at {@code n} u32 that receive the frames' statuses; {@code maxSlots} is the largest
     * {@link CudaZstdCodec#mpSlots} of the frames.
     */
    public void enqueue(Launcher l, long src, long srcOffsets, long srcSizes, long dst, long dstOffsets, long dstSizes,
                        long scratch, long scratchOffsets, long slotBase, long status, int n, long totalSlots,
                        long maxSlots) {
        l.launch("zd_zstd_mp_scan", n, 32, new KernelArgs().u64(src).u64(srcOffsets).u64(srcSizes).u64(dstSizes)
                .u64(scratch).u64(scratchOffsets).u32(n));
        // pass 2 strides over n x maxSlots block slots, block index major (most of a large frame's
        // slots are empty bounds); its groups are small, so 32 fit on a multiprocessor
        int entropyGrid = (int) Math.max(1, Math.min(totalSlots, 32L * multiprocessors));
        l.launch("zd_zstd_mp_entropy", entropyGrid, 32, new KernelArgs().u64(src).u64(srcOffsets).u64(srcSizes)
                .u64(dstSizes).u64(scratch).u64(scratchOffsets).u64(slotBase).u32(n).u64(maxSlots));
        l.launch("zd_zstd_mp_link", n, 32, new KernelArgs().u64(dstSizes).u64(scratch).u64(scratchOffsets).u32(n));
        // persistent: as many groups as can be resident; more would only find the tickets gone
        int execGrid = (int) Math.max(1, Math.min(totalSlots, (long) multiprocessors * Math.max(1, 2048 / execThreads)));
        l.launch("zd_zstd_mp_exec", execGrid, execThreads, new KernelArgs().u64(src).u64(srcOffsets).u64(srcSizes)
                .u64(dst).u64(dstOffsets).u64(dstSizes).u64(scratch).u64(scratchOffsets).u32(n));
        l.launch("zd_zstd_mp_finish", n, 32, new KernelArgs().u64(src).u64(srcOffsets).u64(srcSizes).u64(dst)
                .u64(dstOffsets).u64(dstSizes).u64(scratch).u64(scratchOffsets).u64(status).u32(n));
    }
}
