// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.bytestobytes;

import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.kernels.KernelContract;
import dev.zarrdirect.opencl.ClKernel;
import dev.zarrdirect.opencl.ClMemory;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.codec.ChunkTable;
import dev.zarrdirect.opencl.codec.DeviceItems;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Large deflate streams decoded by many work-groups each, on OpenCL: the same three kernels and
 * rules as the CUDA backend's {@code InflateSplit} ({@code inflate/zd_inflate_split.h}: find block
 * starts per range, decode the segments into 16-bit cells, verify the chain and lay the bytes out).
 * A stream that does not verify, a corrupt one included, is returned for the serial kernel, which
 * gives it its status.
 *
 * <p>Memory: 64 bytes per range and 2 bytes per cell ({@link #CELL_HEADROOM} times a range's share
 * of its stream's decoded bytes, plus 32 KiB); groups of streams take at most {@link #CELL_BUDGET}
 * bytes of cells (below the allocation limit OpenCL devices commonly have), a larger stream alone.
 * Segments whose cells run out are decoded again, alone, with their stream's decoded size, when that
 * fits the budget too.
 */
final class OpenClInflateSplit {

    static final long FIND_ITEMS = 128;
    static final long DECODE_ITEMS = 64;
    static final long FINISH_ITEMS = 1024;
    static final long CELL_BUDGET = 1L << 30;
    static final int CELL_HEADROOM = 4;
    private static final long SEG = KernelContract.ZD_INFS_SEG_BYTES;
    private static final int F_RETRY = (int) KernelContract.ZD_INFS_F_RETRY;
    private static final long WINDOW = KernelContract.ZD_INFS_WINDOW;
    private static final int OVERFLOW = (int) KernelContract.ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;

    private OpenClInflateSplit() {
    }

    static long ranges(long encoded, long rangeBytes) {
        return Math.max(1, (encoded + rangeBytes - 1) / rangeBytes);
    }

    static long cellsPerRange(long encoded, long decoded, long rangeBytes) {
        double share = (double) rangeBytes * decoded / Math.max(1, encoded);
        return Math.max(1, Math.min(decoded, (long) Math.ceil(CELL_HEADROOM * share) + WINDOW));
    }

    /** Decodes the batch items {@code idx} split; returns those left to the serial kernel. */
    static List<Integer> decode(OpenClBackend b, DeviceItems items, DeviceItems.Group g, List<Integer> idx,
                                CodecBatch batch, int format, long rangeBytes, long[] written, String name) {
        List<Integer> serial = new ArrayList<>();
        List<Integer> group = new ArrayList<>();
        long cells = 0;
        for (int i : idx) {
            long need = 2 * ranges(batch.input(i).byteSize(), rangeBytes)
                    * cellsPerRange(batch.input(i).byteSize(), batch.output(i).byteSize(), rangeBytes);
            if (!group.isEmpty() && cells + need > CELL_BUDGET) {
                serial.addAll(decodeGroup(b, items, g, group, batch, format, rangeBytes, written, name));
                group.clear();
                cells = 0;
            }
            group.add(i);
            cells += need;
        }
        if (!group.isEmpty()) {
            serial.addAll(decodeGroup(b, items, g, group, batch, format, rangeBytes, written, name));
        }
        return serial;
    }

    private static long align(long v, long a) {
        return (v + a - 1) / a * a;
    }

    private static long local(OpenClBackend b, ClKernel k, long want) {
        return Math.max(1, Long.highestOneBit(Math.min(want, k.maxWorkGroupSize(b.deviceId()))));
    }

    private static List<Integer> decodeGroup(OpenClBackend b, DeviceItems items, DeviceItems.Group g,
                                             List<Integer> group, CodecBatch batch, int format, long rangeBytes,
                                             long[] written, String name) {
        int n = group.size();
        int[] first = new int[n], count = new int[n];
        long total = 0;
        for (int j = 0; j < n; j++) {
            first[j] = (int) total;
            count[j] = (int) ranges(batch.input(group.get(j)).byteSize(), rangeBytes);
            total += count[j];
        }
        if (total > Integer.MAX_VALUE / 2) {
            return group;
        }
        int nseg = (int) total;
        ClKernel find = OpenClInflateCodec.PROGRAM.kernel(b, "", "zd_infs_find");
        ClKernel dec = OpenClInflateCodec.PROGRAM.kernel(b, "", "zd_infs_decode");
        ClKernel fin = OpenClInflateCodec.PROGRAM.kernel(b, "", "zd_infs_finish");
        long lf = local(b, find, FIND_ITEMS), ld = local(b, dec, DECODE_ITEMS), ln = local(b, fin, FINISH_ITEMS);
        ClMemory mem = b.memory();
        // three sub-buffers of one: their origins on the device's base address alignment
        long align = Math.max(64, mem.baseAlignBytes());
        long firstAt = align(SEG * nseg, align), countAt = align(firstAt + 4L * n, align), bytes = countAt + 4L * n;
        try (Arena a = Arena.ofConfined();
             ChunkTable t = ChunkTable.of(b, items, group, batch, name + " split");
             ClMemory.Scratch segMem = mem.scratch(bytes, name + " split segments")) {
            MemorySegment host = a.allocate(bytes, 8);
            host.fill((byte) 0);
            long cell = 0;
            long[] streamCells = new long[n];
            for (int j = 0; j < n; j++) {
                int i = group.get(j);
                long per = cellsPerRange(batch.input(i).byteSize(), batch.output(i).byteSize(), rangeBytes);
                for (int r = 0; r < count[j]; r++) {
                    long at = SEG * (first[j] + r);
                    host.set(ValueLayout.JAVA_LONG, at + 16, cell); // cell0
                    host.set(ValueLayout.JAVA_LONG, at + 24, per);  // cap
                    host.set(ValueLayout.JAVA_INT, at + 48, j);     // stream
                    host.set(ValueLayout.JAVA_INT, at + 52, r);     // index
                    cell += per;
                }
                streamCells[j] = batch.output(i).byteSize();
                host.set(ValueLayout.JAVA_INT, firstAt + 4L * j, first[j]);
                host.set(ValueLayout.JAVA_INT, countAt + 4L * j, count[j]);
            }
            mem.write(segMem.mem(), 0, host, 0, host.byteSize());
            long segs = mem.subBuffer(segMem.mem(), 0, SEG * nseg);
            long firsts = mem.subBuffer(segMem.mem(), firstAt, 4L * n);
            long counts = mem.subBuffer(segMem.mem(), countAt, 4L * n);
            ClMemory.Scratch cellMem = mem.scratch(2 * cell, name + " split cells");
            ClMemory.Scratch bigger = null;
            try {
                ClKernel.Arg[] io = t.io(g.inMem(), g.outMem());
                long ev = find.enqueue(b.queue(), new long[]{nseg * lf}, new long[]{lf}, io[0], io[1], io[2],
                        new ClKernel.Mem(segs), new ClKernel.U64(rangeBytes), new ClKernel.U32(format),
                        new ClKernel.U32(nseg));
                b.await(ev, "zd_infs_find over " + nseg + " ranges");
                ev = dec.enqueue(b.queue(), new long[]{nseg * ld}, new long[]{ld}, io[0], io[1], io[2],
                        new ClKernel.Mem(cellMem.mem()), new ClKernel.Mem(segs), new ClKernel.U32(0), new ClKernel.U32(nseg));
                b.await(ev, "zd_infs_decode over " + nseg + " ranges");
                mem.read(segMem.mem(), 0, host, 0, SEG * nseg);
                long retryCells = 0;
                for (int s = 0; s < nseg; s++) {
                    long at = SEG * s;
                    if (host.get(ValueLayout.JAVA_INT, at + 56) == OVERFLOW) {
                        int j = host.get(ValueLayout.JAVA_INT, at + 48);
                        host.set(ValueLayout.JAVA_LONG, at + 16, cell + retryCells);
                        host.set(ValueLayout.JAVA_LONG, at + 24, streamCells[j]);
                        host.set(ValueLayout.JAVA_INT, at + 60, host.get(ValueLayout.JAVA_INT, at + 60) | F_RETRY);
                        retryCells += streamCells[j];
                    }
                }
                long cellArg = cellMem.mem();
                if (retryCells > 0 && 2 * (cell + retryCells) <= CELL_BUDGET) {
                    bigger = mem.scratch(2 * (cell + retryCells), name + " split cells, again");
                    mem.copyMem(cellMem.mem(), 0, bigger.mem(), 0, 2 * cell);
                    mem.write(segMem.mem(), 0, host, 0, SEG * nseg);
                    cellArg = bigger.mem();
                    ev = dec.enqueue(b.queue(), new long[]{nseg * ld}, new long[]{ld}, io[0], io[1], io[2],
                            new ClKernel.Mem(cellArg), new ClKernel.Mem(segs), new ClKernel.U32(1), new ClKernel.U32(nseg));
                    b.await(ev, "zd_infs_decode again over " + nseg + " ranges");
                }
                ev = fin.enqueue(b.queue(), new long[]{n * ln}, new long[]{ln}, io[0], io[1], io[2], io[3], io[4], io[5],
                        new ClKernel.Mem(cellArg), new ClKernel.Mem(segs), new ClKernel.Mem(firsts),
                        new ClKernel.Mem(counts), new ClKernel.U32(format), t.status(), new ClKernel.U32(n));
                b.await(ev, "zd_infs_finish over " + n + " streams");
            } finally {
                mem.releaseMem(segs);
                mem.releaseMem(firsts);
                mem.releaseMem(counts);
                cellMem.close();
                if (bigger != null) {
                    bigger.close();
                }
            }
            int[] status = t.readStatus();
            List<Integer> serial = new ArrayList<>();
            for (int j = 0; j < n; j++) {
                int i = group.get(j);
                if (status[j] == 0) {
                    written[i] = batch.output(i).byteSize();
                } else {
                    serial.add(i);
                }
            }
            return serial;
        }
    }
}
