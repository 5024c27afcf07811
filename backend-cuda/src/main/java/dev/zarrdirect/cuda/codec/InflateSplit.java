// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.kernels.ZdStatus;
import dev.zarrdirect.kernels.InflateSplitPlan;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Large deflate streams decoded by many thread blocks each: the kernels module's
 * {@code inflate/zd_inflate_split.h} (find block starts in ranges of the stream, decode the
 * segments between them into 16-bit cells, then verify the chain, lay the bytes out and check the
 * sums: the tails of the segments in order, the rest of them at once), with the
 * ranges, records and retries of {@link InflateSplitPlan}. A stream that does not verify (or any
 * corrupt one) is left to the serial kernel, which gives it its status: this path completes only
 * streams whose bytes and checksum it verified.
 *
 * <p>Streams go through in groups of one range size whose cells take at most
 * 1/{@link InflateSplitPlan#CELL_SHARE_OF_MEMORY} of the device's memory (a larger stream alone).
 */
final class InflateSplit {

    /**
     * {@code ZD_INFS_TRACE} set: each batch says how many streams split, and each stream that did
     * not verify where its chain broke, on stderr (as the host build traces its segments).
     */
    static final boolean TRACE = System.getenv("ZD_INFS_TRACE") != null;

    private InflateSplit() {
    }

    /**
     * Decodes the streams {@code which} (indices into {@code items}) of {@code format}
     * ({@code ZD_INFS_FORMAT_*}) in ranges of at most {@code maxRangeBytes} (smaller where the batch
     * is small: {@link InflateSplitPlan#batchRangeBytes}); completes each that
     * verifies and returns the others, for the serial kernel.
     */
    static List<Integer> decode(DeviceWork w, String codec, CodecBatch batch, BatchItems items, List<Integer> which,
                                int format, long maxRangeBytes) {
        List<Integer> serial = new ArrayList<>();
        long budget = w.device.totalMemory() / InflateSplitPlan.CELL_SHARE_OF_MEMORY;
        for (InflateSplitPlan.Group g : InflateSplitPlan.groups(which, k -> items.srcSize()[k], k -> items.dstSize()[k],
                maxRangeBytes, w.device.multiprocessors(), budget)) {
            serial.addAll(decodeGroup(w, codec, batch, items, g.streams(), format, g.rangeBytes()));
        }
        return serial;
    }

    private static List<Integer> decodeGroup(DeviceWork w, String codec, CodecBatch batch, BatchItems items,
                                             List<Integer> group, int format, long rangeBytes) {
        BatchItems g = items.subset(group);
        int n = g.size();
        InflateSplitPlan plan;
        try {
            plan = InflateSplitPlan.of(rangeBytes, g.srcSize(), g.dstSize());
        } catch (IllegalArgumentException tooMany) {
            return group; // more records than a launch's grid: serially
        }
        int nseg = plan.segments();
        ItemTable t = g.table();
        long segsAt = align(t.byteSize()), firstAt = segsAt + plan.recordBytes(), countAt = firstAt + 4L * n;
        MemorySegment host = w.arena.allocate(countAt + 4L * n, 8);
        t.writeTo(host);
        plan.writeRecords(host, segsAt);
        for (int j = 0; j < n; j++) {
            host.set(ValueLayout.JAVA_INT, firstAt + 4L * j, plan.first(j));
            host.set(ValueLayout.JAVA_INT, countAt + 4L * j, plan.count(j));
        }
        long table = w.upload(host);
        long segs = table + segsAt;
        long cells = w.scratch(2 * plan.cells());
        w.launch("zd_infs_find", nseg, InflateSplitPlan.FIND_ITEMS, 0, new KernelArgs()
                .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                .u64(segs).u64(rangeBytes).u32(format).u32(nseg));
        if (InflateSplitPlan.syncs(rangeBytes)) {
            w.launch("zd_infs_sync", nseg, InflateSplitPlan.SYNC_ITEMS, 0, new KernelArgs()
                    .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                    .u64(segs).u64(rangeBytes).u32(format).u32(nseg));
        }
        w.launch("zd_infs_decode", nseg, InflateSplitPlan.DECODE_ITEMS, 0, new KernelArgs()
                .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                .u64(cells).u64(segs).u32(0).u32(nseg));
        // segments whose cells ran out, or whose start proved false: again, after the others, with
        // cells of their own, until the chains hold or the rounds run out (the finish then says)
        long have = plan.cells();
        int rounds = 0;
        for (; rounds < InflateSplitPlan.MAX_ROUNDS; rounds++) {
            w.download(segs, host, segsAt, plan.recordBytes());
            w.sync("zd_infs_decode over " + nseg + " ranges of " + n + " " + codec + " streams");
            long need = plan.markRetries(host, segsAt, have);
            if (need == have) {
                break;
            }
            long bigger = w.scratch(2 * need);
            w.driver.memcpyDtoDAsync(bigger, cells, 2 * have, w.stream);
            cells = bigger;
            have = need;
            w.driver.memcpyHtoDAsync(segs, host.address() + segsAt, plan.recordBytes(), w.stream);
            w.launch("zd_infs_decode", nseg, InflateSplitPlan.DECODE_ITEMS, 0, new KernelArgs()
                    .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                    .u64(cells).u64(segs).u32(1).u32(nseg));
        }
        long status = table + t.statusAt();
        w.launch("zd_infs_chain", n, InflateSplitPlan.CHAIN_ITEMS, 0, new KernelArgs()
                .u64(table + t.srcSizesAt()).u64(t.dstBase()).u64(table + t.dstOffsetsAt()).u64(table + t.dstSizesAt())
                .u64(cells).u64(segs).u64(table + firstAt).u64(table + countAt).u32(format).u64(status).u32(n));
        w.launch("zd_infs_layout", nseg, InflateSplitPlan.LAYOUT_ITEMS, 0, new KernelArgs()
                .u64(t.dstBase()).u64(table + t.dstOffsetsAt()).u64(cells).u64(segs).u32(format).u64(status)
                .u32(nseg));
        w.launch("zd_infs_check", (n + InflateSplitPlan.CHECK_ITEMS - 1) / InflateSplitPlan.CHECK_ITEMS, InflateSplitPlan.CHECK_ITEMS, 0, new KernelArgs()
                .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.dstSizesAt()).u64(segs)
                .u64(table + firstAt).u64(table + countAt).u32(format).u64(status).u32(n));
        w.download(status, host, t.statusAt(), 4L * n);
        w.sync("the finish (zd_infs_chain, zd_infs_layout, zd_infs_check) over " + n + " " + codec + " streams ("
                + nseg + " ranges of " + rangeBytes + " bytes, " + rounds + " rounds of segments decoded again)");
        List<Integer> serial = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            int st = host.get(ValueLayout.JAVA_INT, t.statusAt() + 4L * j);
            if (st == ZdStatus.OK) {
                batch.complete(g.item()[j], g.dstSize()[j]);
            } else {
                serial.add(group.get(j));
            }
        }
        if (TRACE && !serial.isEmpty()) {
            w.download(segs, host, segsAt, plan.recordBytes());
            w.sync("zd_infs records");
            for (int j = 0; j < n; j++) {
                if (host.get(ValueLayout.JAVA_INT, t.statusAt() + 4L * j) != ZdStatus.OK) {
                    System.err.println(plan.describe(host, segsAt, j));
                }
            }
        }
        return serial;
    }

    private static long align(long v) {
        return (v + 63) & ~63L;
    }
}
