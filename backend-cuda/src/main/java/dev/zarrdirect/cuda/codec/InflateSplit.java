// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.kernels.ZdStatus;
import dev.zarrdirect.kernels.KernelContract;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Large deflate streams decoded by many thread blocks each: the kernels module's
 * {@code inflate/zd_inflate_split.h} (find block starts in ranges of the stream, decode the
 * segments between them into 16-bit cells, then verify the chain and lay the bytes out). A stream
 * that does not verify (or any corrupt one) is left to the serial kernel, which gives it its
 * status: this path completes only streams whose bytes and checksum it verified.
 *
 * <p>Device memory: 64 bytes per range and 2 bytes per cell. A range gets room for
 * {@link #CELL_HEADROOM} times its share of the stream's decoded bytes plus 32 KiB; a segment that
 * runs out is decoded again, alone, with as many cells as its stream has decoded bytes (the cells
 * so far are copied into a larger region first). Streams go through in groups whose cells take at
 * most 1/{@link #CELL_SHARE_OF_MEMORY} of the device's memory (a larger stream alone).
 */
final class InflateSplit {

    static final int FIND_THREADS = 128;
    static final int DECODE_THREADS = 64;
    /**
     * One block lays out a whole stream and sums its checksum: a 66 MB stream took 164 ms with 256
     * threads on an H100 (Nsight Compute), as long as decoding it, so the block is as large as the
     * kernels allow.
     */
    static final int FINISH_THREADS = 1024;
    /**
     * Cells one group of streams takes at most, as a share of the device's memory (a stream that
     * needs more goes alone): each group is decoded, synchronised with and finished before the
     * next, so fewer groups keep more segments in flight.
     */
    static final long CELL_SHARE_OF_MEMORY = 8;
    /**
     * Cells a range gets, as a multiple of its share of the stream's decoded bytes: a segment that
     * runs out is decoded again alone, after the others (on the 66 MB zlib store with twice the
     * share, every group of streams had such a second launch, 80 ms of one serial segment).
     */
    static final int CELL_HEADROOM = 4;
    private static final long SEG = KernelContract.ZD_INFS_SEG_BYTES;
    private static final int F_RETRY = (int) KernelContract.ZD_INFS_F_RETRY;
    private static final long WINDOW = KernelContract.ZD_INFS_WINDOW;

    private InflateSplit() {
    }

    /** The ranges of a stream of {@code encoded} bytes. */
    static long ranges(long encoded, long rangeBytes) {
        return Math.max(1, (encoded + rangeBytes - 1) / rangeBytes);
    }

    /** Cells a range of a stream gets: twice its share of the decoded bytes plus a window, at most all of them. */
    static long cellsPerRange(long encoded, long decoded, long rangeBytes) {
        double share = (double) rangeBytes * decoded / Math.max(1, encoded);
        return Math.max(1, Math.min(decoded, (long) Math.ceil(CELL_HEADROOM * share) + WINDOW));
    }

    /**
     * Decodes the streams {@code which} (indices into {@code items}) of {@code format}
     * ({@code ZD_INFS_FORMAT_*}) in ranges of {@code rangeBytes}; completes each that verifies and
     * returns the others, for the serial kernel.
     */
    static List<Integer> decode(DeviceWork w, String codec, CodecBatch batch, BatchItems items, List<Integer> which,
                                int format, long rangeBytes) {
        List<Integer> serial = new ArrayList<>();
        List<Integer> group = new ArrayList<>();
        long budget = w.device.totalMemory() / CELL_SHARE_OF_MEMORY;
        long cells = 0;
        for (int k : which) {
            long need = 2 * ranges(items.srcSize()[k], rangeBytes)
                    * cellsPerRange(items.srcSize()[k], items.dstSize()[k], rangeBytes);
            if (!group.isEmpty() && cells + need > budget) {
                serial.addAll(decodeGroup(w, codec, batch, items, group, format, rangeBytes));
                group.clear();
                cells = 0;
            }
            group.add(k);
            cells += need;
        }
        if (!group.isEmpty()) {
            serial.addAll(decodeGroup(w, codec, batch, items, group, format, rangeBytes));
        }
        return serial;
    }

    private static List<Integer> decodeGroup(DeviceWork w, String codec, CodecBatch batch, BatchItems items,
                                             List<Integer> group, int format, long rangeBytes) {
        int n = group.size();
        long[] sa = new long[n], ss = new long[n], da = new long[n], ds = new long[n];
        int[] first = new int[n], count = new int[n];
        long totalRanges = 0;
        for (int j = 0; j < n; j++) {
            int k = group.get(j);
            sa[j] = items.srcAddr()[k];
            ss[j] = items.srcSize()[k];
            da[j] = items.dstAddr()[k];
            ds[j] = items.dstSize()[k];
            first[j] = (int) totalRanges;
            count[j] = (int) ranges(ss[j], rangeBytes);
            totalRanges += count[j];
        }
        if (totalRanges > Integer.MAX_VALUE / 2) {
            return group; // more records than a launch's grid: serially
        }
        int nseg = (int) totalRanges;
        ItemTable t = ItemTable.of(sa, ss, da, ds);
        long segsAt = align(t.byteSize()), firstAt = segsAt + SEG * nseg, countAt = firstAt + 4L * n;
        MemorySegment host = w.arena.allocate(countAt + 4L * n, 8);
        t.writeTo(host);
        long cell = 0;
        long[] streamCells = new long[n];
        for (int j = 0; j < n; j++) {
            long per = cellsPerRange(ss[j], ds[j], rangeBytes);
            for (int r = 0; r < count[j]; r++) {
                long at = segsAt + SEG * (first[j] + r);
                host.asSlice(at, SEG).fill((byte) 0);
                host.set(ValueLayout.JAVA_LONG, at + 16, cell); // cell0
                host.set(ValueLayout.JAVA_LONG, at + 24, per);  // cap
                host.set(ValueLayout.JAVA_INT, at + 48, j);     // stream
                host.set(ValueLayout.JAVA_INT, at + 52, r);     // index
                cell += per;
            }
            streamCells[j] = ds[j];
            host.set(ValueLayout.JAVA_INT, firstAt + 4L * j, first[j]);
            host.set(ValueLayout.JAVA_INT, countAt + 4L * j, count[j]);
        }
        long table = w.upload(host);
        long segs = table + segsAt;
        long cells = w.scratch(2 * cell);
        w.launch("zd_infs_find", nseg, FIND_THREADS, 0, new KernelArgs()
                .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                .u64(segs).u64(rangeBytes).u32(format).u32(nseg));
        w.launch("zd_infs_decode", nseg, DECODE_THREADS, 0, new KernelArgs()
                .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                .u64(cells).u64(segs).u32(0).u32(nseg));
        w.download(segs, host, segsAt, SEG * nseg);
        w.sync("zd_infs_decode over " + nseg + " ranges of " + n + " " + codec + " streams");
        // segments whose cells ran out: again, each with its stream's decoded size in cells, after the others
        long retryCells = 0;
        int retries = 0;
        for (int s = 0; s < nseg; s++) {
            long at = segsAt + SEG * s;
            if (host.get(ValueLayout.JAVA_INT, at + 56) == ZdStatus.CORRUPT_OUTPUT_OVERFLOW) {
                int j = host.get(ValueLayout.JAVA_INT, at + 48);
                host.set(ValueLayout.JAVA_LONG, at + 16, cell + retryCells);
                host.set(ValueLayout.JAVA_LONG, at + 24, streamCells[j]);
                host.set(ValueLayout.JAVA_INT, at + 60, host.get(ValueLayout.JAVA_INT, at + 60) | F_RETRY);
                retryCells += streamCells[j];
                retries++;
            }
        }
        if (retries > 0) {
            long bigger = w.scratch(2 * (cell + retryCells));
            w.driver.memcpyDtoDAsync(bigger, cells, 2 * cell, w.stream);
            cells = bigger;
            w.driver.memcpyHtoDAsync(segs, host.address() + segsAt, SEG * nseg, w.stream);
            w.launch("zd_infs_decode", nseg, DECODE_THREADS, 0, new KernelArgs()
                    .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                    .u64(cells).u64(segs).u32(1).u32(nseg));
        }
        w.launch("zd_infs_finish", n, FINISH_THREADS, 0, new KernelArgs()
                .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                .u64(t.dstBase()).u64(table + t.dstOffsetsAt()).u64(table + t.dstSizesAt())
                .u64(cells).u64(segs).u64(table + firstAt).u64(table + countAt).u32(format)
                .u64(table + t.statusAt()).u32(n));
        w.download(table + t.statusAt(), host, t.statusAt(), 4L * n);
        w.sync("zd_infs_finish over " + n + " " + codec + " streams (" + nseg + " ranges, " + retries + " decoded again)");
        List<Integer> serial = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            int st = host.get(ValueLayout.JAVA_INT, t.statusAt() + 4L * j);
            int k = group.get(j);
            if (st == ZdStatus.OK) {
                batch.complete(items.item()[k], ds[j]);
            } else {
                serial.add(k);
            }
        }
        return serial;
    }

    private static long align(long v) {
        return (v + 63) & ~63L;
    }
}
