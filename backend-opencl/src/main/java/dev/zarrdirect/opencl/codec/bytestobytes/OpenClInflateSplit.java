// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.bytestobytes;

import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.kernels.InflateSplitPlan;
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
 * plan ({@link InflateSplitPlan}) as the CUDA backend's {@code InflateSplit}
 * ({@code inflate/zd_inflate_split.h}: find block starts per range, decode the segments into 16-bit
 * cells, verify the chain and lay the bytes out). A stream that does not verify, a corrupt one
 * included, is returned for the serial kernel, which gives it its status.
 *
 * <p>Groups of streams of one range size take at most {@link #cellBudget} bytes of cells, a larger
 * stream alone. Segments whose cells run out, or whose start proved false, are decoded again with
 * cells of their own while those fit the budget too.
 */
final class OpenClInflateSplit {

    private OpenClInflateSplit() {
    }

    /**
     * Decodes the batch items {@code idx} split, in ranges of at most {@code maxRangeBytes} (smaller
     * where the batch is small: {@link InflateSplitPlan#batchRangeBytes}); returns those left to the
     * serial kernel.
     */
    static List<Integer> decode(OpenClBackend b, DeviceItems items, DeviceItems.Group g, List<Integer> idx,
                                CodecBatch batch, int format, long maxRangeBytes, long[] written, String name) {
        List<Integer> serial = new ArrayList<>();
        long budget = cellBudget(b.memory());
        for (InflateSplitPlan.Group group : InflateSplitPlan.groups(idx, i -> batch.input(i).byteSize(),
                i -> batch.output(i).byteSize(), maxRangeBytes, b.computeUnits(), budget)) {
            serial.addAll(decodeGroup(b, items, g, group.streams(), batch, format, group.rangeBytes(), budget,
                    written, name));
        }
        return serial;
    }

    /** Bytes of cells one group of streams takes at most: the plan's share of the device's memory, within one buffer. */
    static long cellBudget(ClMemory mem) {
        return Math.max(1L << 20, Math.min(mem.maxAllocBytes(),
                mem.globalMemBytes() / InflateSplitPlan.CELL_SHARE_OF_MEMORY));
    }

    private static long align(long v, long a) {
        return (v + a - 1) / a * a;
    }

    private static long local(OpenClBackend b, ClKernel k, long want) {
        return Math.max(1, Long.highestOneBit(Math.min(want, k.maxWorkGroupSize(b.deviceId()))));
    }

    private static List<Integer> decodeGroup(OpenClBackend b, DeviceItems items, DeviceItems.Group g,
                                             List<Integer> group, CodecBatch batch, int format, long rangeBytes,
                                             long budget, long[] written, String name) {
        int n = group.size();
        long[] encoded = new long[n], decoded = new long[n];
        for (int j = 0; j < n; j++) {
            encoded[j] = batch.input(group.get(j)).byteSize();
            decoded[j] = batch.output(group.get(j)).byteSize();
        }
        InflateSplitPlan plan;
        try {
            plan = InflateSplitPlan.of(rangeBytes, encoded, decoded);
        } catch (IllegalArgumentException tooMany) {
            return group;
        }
        int nseg = plan.segments();
        ClKernel find = OpenClInflateCodec.PROGRAM.kernel(b, "", "zd_infs_find");
        ClKernel dec = OpenClInflateCodec.PROGRAM.kernel(b, "", "zd_infs_decode");
        ClKernel chain = OpenClInflateCodec.PROGRAM.kernel(b, "", "zd_infs_chain");
        ClKernel layout = OpenClInflateCodec.PROGRAM.kernel(b, "", "zd_infs_layout");
        ClKernel check = OpenClInflateCodec.PROGRAM.kernel(b, "", "zd_infs_check");
        long lf = local(b, find, InflateSplitPlan.FIND_ITEMS), ld = local(b, dec, InflateSplitPlan.DECODE_ITEMS);
        long lc = local(b, chain, InflateSplitPlan.CHAIN_ITEMS), ll = local(b, layout, InflateSplitPlan.LAYOUT_ITEMS);
        long lk = local(b, check, InflateSplitPlan.CHECK_ITEMS);
        ClMemory mem = b.memory();
        // three sub-buffers of one: their origins on the device's base address alignment
        long align = Math.max(64, mem.baseAlignBytes());
        long firstAt = align(plan.recordBytes(), align), countAt = align(firstAt + 4L * n, align), bytes = countAt + 4L * n;
        try (Arena a = Arena.ofConfined();
             ChunkTable t = ChunkTable.of(b, items, group, batch, name + " split");
             ClMemory.Scratch segMem = mem.scratch(bytes, name + " split segments")) {
            MemorySegment host = a.allocate(bytes, 8);
            host.fill((byte) 0);
            plan.writeRecords(host, 0);
            for (int j = 0; j < n; j++) {
                host.set(ValueLayout.JAVA_INT, firstAt + 4L * j, plan.first(j));
                host.set(ValueLayout.JAVA_INT, countAt + 4L * j, plan.count(j));
            }
            mem.write(segMem.mem(), 0, host, 0, host.byteSize());
            long segs = mem.subBuffer(segMem.mem(), 0, plan.recordBytes());
            long firsts = mem.subBuffer(segMem.mem(), firstAt, 4L * n);
            long counts = mem.subBuffer(segMem.mem(), countAt, 4L * n);
            ClMemory.Scratch cellMem = mem.scratch(2 * plan.cells(), name + " split cells");
            List<ClMemory.Scratch> again = new ArrayList<>(); // closed after the finish, as the first cells
            try {
                ClKernel.Arg[] io = t.io(g.inMem(), g.outMem());
                // the queue is in order: the decode follows the find with no wait between them
                find.enqueueUnawaited(b.queue(), new long[]{nseg * lf}, new long[]{lf}, io[0], io[1], io[2],
                        new ClKernel.Mem(segs), new ClKernel.U64(rangeBytes), new ClKernel.U32(format),
                        new ClKernel.U32(nseg));
                if (InflateSplitPlan.syncs(rangeBytes)) {
                    ClKernel sync = OpenClInflateCodec.PROGRAM.kernel(b, "", "zd_infs_sync");
                    long ls = local(b, sync, InflateSplitPlan.SYNC_ITEMS);
                    sync.enqueueUnawaited(b.queue(), new long[]{nseg * ls}, new long[]{ls}, io[0], io[1], io[2],
                            new ClKernel.Mem(segs), new ClKernel.U64(rangeBytes), new ClKernel.U32(format),
                            new ClKernel.U32(nseg));
                }
                long ev = dec.enqueue(b.queue(), new long[]{nseg * ld}, new long[]{ld}, io[0], io[1], io[2],
                        new ClKernel.Mem(cellMem.mem()), new ClKernel.Mem(segs), new ClKernel.U32(0), new ClKernel.U32(nseg));
                b.await(ev, "zd_infs_decode over " + nseg + " ranges");
                // segments whose cells ran out, or whose start proved false: again, with cells of
                // their own, until the chains hold, the rounds run out or the budget would be passed
                long cellArg = cellMem.mem(), have = plan.cells();
                for (int round = 0; round < InflateSplitPlan.MAX_ROUNDS; round++) {
                    mem.read(segMem.mem(), 0, host, 0, plan.recordBytes());
                    long need = plan.markRetries(host, 0, have);
                    if (need == have || 2 * need > budget) {
                        break;
                    }
                    ClMemory.Scratch next = mem.scratch(2 * need, name + " split cells, again");
                    again.add(next);
                    mem.copyMem(cellArg, 0, next.mem(), 0, 2 * have);
                    cellArg = next.mem();
                    have = need;
                    mem.write(segMem.mem(), 0, host, 0, plan.recordBytes());
                    ev = dec.enqueue(b.queue(), new long[]{nseg * ld}, new long[]{ld}, io[0], io[1], io[2],
                            new ClKernel.Mem(cellArg), new ClKernel.Mem(segs), new ClKernel.U32(1), new ClKernel.U32(nseg));
                    b.await(ev, "zd_infs_decode again over " + nseg + " ranges");
                }
                // the finish: tails in order (a group a stream), the rest at once (a group a segment),
                // the sums against the trailers (an item a stream); one wait for the three
                chain.enqueueUnawaited(b.queue(), new long[]{n * lc}, new long[]{lc}, io[2], io[3], io[4], io[5],
                        new ClKernel.Mem(cellArg), new ClKernel.Mem(segs), new ClKernel.Mem(firsts),
                        new ClKernel.Mem(counts), new ClKernel.U32(format), t.status(), new ClKernel.U32(n));
                layout.enqueueUnawaited(b.queue(), new long[]{nseg * ll}, new long[]{ll}, io[3], io[4],
                        new ClKernel.Mem(cellArg), new ClKernel.Mem(segs), new ClKernel.U32(format), t.status(),
                        new ClKernel.U32(nseg));
                ev = check.enqueue(b.queue(), new long[]{(n + lk - 1) / lk * lk}, new long[]{lk}, io[0], io[1], io[5],
                        new ClKernel.Mem(segs), new ClKernel.Mem(firsts), new ClKernel.Mem(counts),
                        new ClKernel.U32(format), t.status(), new ClKernel.U32(n));
                b.await(ev, "the finish (zd_infs_chain, zd_infs_layout, zd_infs_check) over " + n + " streams");
            } finally {
                mem.releaseMem(segs);
                mem.releaseMem(firsts);
                mem.releaseMem(counts);
                cellMem.close();
                again.forEach(ClMemory.Scratch::close);
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
