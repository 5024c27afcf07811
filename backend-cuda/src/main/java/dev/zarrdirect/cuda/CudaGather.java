// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda;

import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.memory.DeviceAllocator;
import dev.zarrdirect.kernels.GatherTable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * {@link PlaneGather} on a CUDA device: one launch of {@code zd_gather} (the kernels module's
 * {@code cuda/zd_gather.cu}) per gather, on a stream borrowed from the device. The plane table
 * ({@link GatherTable}, 24 bytes a plane) is copied to device memory from the stream-ordered pool
 * (no {@code cuMemAlloc} per call) in one copy before the launch and given back after it.
 *
 * <h2>Grid</h2>
 * {@value #BLOCK} threads a block; {@code gridDim.y} strides over the planes (at most 65535 rows),
 * {@code gridDim.x} over each plane's elements with a grid-stride loop, sized so that the whole grid
 * has about {@value #BLOCKS_PER_SM} blocks per multiprocessor: a batch of 400 planes of 721 x 1440
 * elements gets 11 blocks a plane, one of 16 planes 264. Planes whose source and output start
 * 16-aligned take four elements per access (one 16-byte load for float32).
 */
final class CudaGather {

    static final int BLOCK = 256;
    static final int BLOCKS_PER_SM = 32;
    static final int MAX_GRID_Y = 65535;

    private CudaGather() {
    }

    /** {@code {gridX, gridY}} for {@code planes} planes of {@code units} accesses each. */
    static int[] grid(int planes, long units, int multiprocessors) {
        int y = Math.min(planes, MAX_GRID_Y);
        long target = (long) BLOCKS_PER_SM * multiprocessors;
        long perPlane = Math.max(1, (target + y - 1) / y);
        long x = Math.clamp((units + BLOCK - 1) / BLOCK, 1, perPlane);
        return new int[]{(int) x, y};
    }

    /**
     * Runs {@code g} on {@code dev}; {@code src} and {@code dst} are the addresses of the gather's
     * element 0 ({@code buffer.address() + offset}), {@code srcBytes} and {@code dstBytes} what the
     * buffers hold from there. Returns when the output is written.
     */
    static void run(CudaBackend backend, CudaDevice dev, PlaneGather g, long src, long srcBytes, long dst, long dstBytes) {
        int es = g.srcType().byteSize();
        int ed = g.dstType().byteSize();
        long n = g.planeElements();
        int[] writers = GatherTable.writers(g.dstPlane());
        int flags = GatherTable.typeFlags(es, ed, g.dstType() == PlaneGather.Output.BFLOAT16, g.replaceNan())
                | GatherTable.accessFlags(src, es, dst, ed, n);
        long units = (flags & GatherTable.VEC4) != 0 ? n / 4 : n;
        int[] grid = grid(writers.length, units, dev.multiprocessors());
        CudaDriver driver = backend.driver();
        DeviceAllocator pool = backend.allocator(dev);
        long tableBytes = GatherTable.bytes(writers.length);
        dev.makeCurrent();
        long fn = dev.function("zd_gather");
        long stream = dev.acquireStream();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment host = a.allocate(tableBytes, 8);
            GatherTable.write(host, 0, writers, g.srcPlane(), g.dstPlane(), g.scale(), g.shift());
            long table = pool.allocate(tableBytes, stream);
            try {
                driver.memcpyHtoDAsync(table, host.address(), tableBytes, stream);
                KernelArgs args = new KernelArgs().u64(src).u64(srcBytes / (n * es)).u64(dst).u64(dstBytes / (n * ed))
                        .u64(table).u32(writers.length).u64(n).u32(flags).u32(Float.floatToRawIntBits(g.nanValue()));
                driver.launch(fn, "zd_gather", grid[0], grid[1], BLOCK, 0, stream, args.build(a));
                driver.streamSynchronize(stream, "zd_gather of " + writers.length + " planes of " + n + " elements");
            } finally {
                pool.free(table, stream);
            }
        } finally {
            dev.releaseStream(stream);
        }
    }
}
