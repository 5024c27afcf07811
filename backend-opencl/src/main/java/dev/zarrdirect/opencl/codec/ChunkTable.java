// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec;

import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.opencl.ClKernel;
import dev.zarrdirect.opencl.ClMemory;
import dev.zarrdirect.opencl.OpenClBackend;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * The per-chunk arrays every batch decode kernel of the kernels module takes (input offsets, input
 * sizes, output offsets, output sizes: four sub-buffers of one upload) and the status words it
 * writes, on an OpenCL device, both in blocks of the backend's scratch pool (a launch creates no
 * buffer). One per launch; {@link #close()} gives them back after the launch has completed.
 */
public final class ChunkTable implements AutoCloseable {

    private final OpenClBackend b;
    private final int n;
    private final ClMemory.Scratch table;
    private final long[] subs = new long[4];
    private ClMemory.Scratch status;

    /**
     * Uploads the table of {@code in} and {@code out}, each {@code (offset, size)} pairs of bytes in
     * the launch's input and output buffers.
     *
     * @param what names the codec in allocation errors
     */
    public ChunkTable(OpenClBackend b, long[] in, long[] out, String what) {
        this.b = b;
        this.n = in.length / 2;
        long align = b.memory().baseAlignBytes();
        long section = (8L * n + align - 1) / align * align;
        // pooled: a batch would otherwise create (and the driver allocate) two buffers
        table = b.memory().scratch(4 * section, what + " chunk table");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(4 * section, 8);
            for (int f = 0; f < n; f++) {
                t.set(ValueLayout.JAVA_LONG, 8L * f, in[2 * f]);
                t.set(ValueLayout.JAVA_LONG, section + 8L * f, in[2 * f + 1]);
                t.set(ValueLayout.JAVA_LONG, 2 * section + 8L * f, out[2 * f]);
                t.set(ValueLayout.JAVA_LONG, 3 * section + 8L * f, out[2 * f + 1]);
            }
            b.memory().write(table.mem(), 0, t, 0, 4 * section);
            for (int s = 0; s < 4; s++) {
                subs[s] = b.memory().subBuffer(table.mem(), s * section, 8L * n);
            }
            status = b.memory().scratch(4L * n, what + " status words");
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * The table of batch items {@code idx}: their input and output offsets in the group's buffers
     * ({@code items}) and their input and output sizes.
     */
    public static ChunkTable of(OpenClBackend b, DeviceItems items, List<Integer> idx, CodecBatch batch, String what) {
        int n = idx.size();
        long[] in = new long[n * 2];
        long[] out = new long[n * 2];
        for (int k = 0; k < n; k++) {
            int i = idx.get(k);
            in[2 * k] = items.in(i).offset();
            in[2 * k + 1] = batch.input(i).byteSize();
            out[2 * k] = items.out(i).offset();
            out[2 * k + 1] = batch.output(i).byteSize();
        }
        return new ChunkTable(b, in, out, what);
    }

    /** Chunks in the table. */
    public int size() {
        return n;
    }

    /** The kernel arguments {@code src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes}. */
    public ClKernel.Arg[] io(long srcMem, long dstMem) {
        return new ClKernel.Arg[]{new ClKernel.Mem(srcMem), new ClKernel.Mem(subs[0]), new ClKernel.Mem(subs[1]),
                new ClKernel.Mem(dstMem), new ClKernel.Mem(subs[2]), new ClKernel.Mem(subs[3])};
    }

    /** The input-sizes and output-sizes arrays alone (for planning kernels). */
    public ClKernel.Mem srcSizes() {
        return new ClKernel.Mem(subs[1]);
    }

    /** The input offsets array. */
    public ClKernel.Mem srcOffsets() {
        return new ClKernel.Mem(subs[0]);
    }

    /** The output sizes array. */
    public ClKernel.Mem dstSizes() {
        return new ClKernel.Mem(subs[3]);
    }

    /** The status words, one {@code uint} per chunk. */
    public ClKernel.Mem status() {
        return new ClKernel.Mem(status.mem());
    }

    /** Reads the status words back (after the kernel's event completed). */
    public int[] readStatus() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(4L * n, 4);
            b.memory().read(status.mem(), 0, st, 0, 4L * n);
            int[] result = new int[n];
            for (int f = 0; f < n; f++) {
                result[f] = st.getAtIndex(ValueLayout.JAVA_INT, f);
            }
            return result;
        }
    }

    @Override
    public void close() {
        for (long s : subs) {
            b.memory().releaseMem(s);
        }
        table.close();
        if (status != null) {
            status.close();
        }
    }
}
