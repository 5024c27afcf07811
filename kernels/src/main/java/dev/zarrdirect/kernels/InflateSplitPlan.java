// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntToLongFunction;

/**
 * Which deflate streams decode split ({@code inflate/zd_inflate_split.h}), in ranges of what size,
 * and the segment records and cells of one launch group: the rules both device backends follow,
 * so that CUDA and OpenCL split the same streams the same way.
 *
 * <p>A stream splits when it spans {@link #MIN_SPLIT_RANGES} ranges of at least
 * {@link #MIN_RANGE_BYTES}; its ranges are as large as that allows (a power of two), up to the
 * backend's setting.
 * Measured on an H200 (docs/performance.md): 66 MB zlib streams of float32 read 2.6x faster split
 * in 64 KiB ranges (calls of 4 chunks) than the host path; ranges of 32 KiB there cost more in find
 * than they gained.
 *
 * <p>Device memory: {@link KernelContract#ZD_INFS_SEG_BYTES} per range and 2 bytes per cell. A
 * range gets cells for {@link #CELL_HEADROOM} times its share of the stream's decoded bytes plus a
 * window; a segment that runs out is decoded again with as many cells as its stream has decoded
 * bytes ({@link #markRetries}).
 */
public final class InflateSplitPlan {

    /** Ranges a stream must span to split: fewer leave too few segments to beat the serial kernel. */
    public static final long MIN_SPLIT_RANGES = 64;
    /**
     * The smallest range (unless the setting is smaller), so streams below 64 of it (512 KiB
     * encoded, 1 MiB decoded) decode serially. Measured on an H100 (docs/performance.md, "Small
     * streams split"), every batch on the device: a TensorStore zlib store of 2 MB float32 chunks
     * (1.07 MB encoded) read its whole array at 1.46 GB/s serially, 2.46 in 8 KiB ranges and 3.14
     * in 16 KiB ranges (66 a stream), against cpu+copy 1.75; calls of 64 chunks 0.38, 1.86, 2.07
     * (cpu+copy 1.71). The 2 MB int16 chunks (1.4 MB encoded) read 2.68 GB/s in calls of 4 split
     * in 8 KiB ranges against 0.66 serially. It was 32 KiB after runs from before the false starts
     * were mended, when 2 MB int16 chunks split read slower than the serial kernel (perhaps because
     * some of their streams went serial then).
     */
    public static final long MIN_RANGE_BYTES = 8L << 10;
    /**
     * Cells a range gets, as a multiple of its share of the stream's decoded bytes: on the 66 MB
     * zlib store with twice the share, every group of streams needed a second decode launch (80 ms
     * of one serial segment) for segments that had run out.
     */
    public static final int CELL_HEADROOM = 4;

    private static final long SEG = KernelContract.ZD_INFS_SEG_BYTES;
    /** The most records a launch group has: their copy on the host is one {@code int[]} ({@link SegmentRecords}). */
    static final long MAX_SEGMENTS = Integer.MAX_VALUE / (SEG / 4);

    private final long rangeBytes;
    private final long[] decoded;
    private final int[] first;
    private final int[] count;
    private final long[] perRange;
    private final int segments;
    private final long cells;

    private InflateSplitPlan(long rangeBytes, long[] encoded, long[] decoded, long cellsPerRange) {
        int n = encoded.length;
        this.rangeBytes = rangeBytes;
        this.decoded = decoded.clone();
        this.first = new int[n];
        this.count = new int[n];
        this.perRange = new long[n];
        long total = 0, c = 0;
        for (int j = 0; j < n; j++) {
            first[j] = (int) total;
            count[j] = (int) ranges(encoded[j], rangeBytes);
            perRange[j] = cellsPerRange > 0 ? cellsPerRange : cellsPerRange(encoded[j], decoded[j], rangeBytes);
            total += count[j];
            c += count[j] * perRange[j];
            if (total > MAX_SEGMENTS) {
                throw new IllegalArgumentException(total + " ranges: more than a launch's grid or the host's copy of"
                        + " the records holds");
            }
        }
        this.segments = (int) total;
        this.cells = c;
    }

    /**
     * The plan of a launch group: streams of {@code encoded} and {@code decoded} bytes, in ranges
     * of {@code rangeBytes} (the group's: {@link #rangeBytes(long, long)} of its largest stream).
     */
    public static InflateSplitPlan of(long rangeBytes, long[] encoded, long[] decoded) {
        checkShape(rangeBytes, encoded, decoded);
        return new InflateSplitPlan(rangeBytes, encoded, decoded, 0);
    }

    private static void checkShape(long rangeBytes, long[] encoded, long[] decoded) {
        if (rangeBytes <= 0 || rangeBytes > KernelContract.ZD_INFS_MAX_SEG_BYTES || encoded.length != decoded.length) {
            throw new IllegalArgumentException("ranges of " + rangeBytes + " bytes over " + encoded.length + " streams");
        }
    }

    /** {@link #of} with {@code cellsPerRange} cells a range rather than the backends' share: for tests whose segments run out. */
    static InflateSplitPlan withCells(long rangeBytes, long[] encoded, long[] decoded, long cellsPerRange) {
        if (cellsPerRange <= 0) {
            throw new IllegalArgumentException(cellsPerRange + " cells a range");
        }
        checkShape(rangeBytes, encoded, decoded);
        return new InflateSplitPlan(rangeBytes, encoded, decoded, cellsPerRange);
    }

    /** Whether a stream of {@code encoded} bytes spans enough ranges to split, given the backend's range setting (0: never). */
    public static boolean splits(long encoded, long maxRangeBytes) {
        return maxRangeBytes > 0 && encoded >= MIN_SPLIT_RANGES * Math.min(MIN_RANGE_BYTES, maxRangeBytes);
    }

    /**
     * Whether a codec decodes a stream of {@code encoded} and {@code decoded} bytes split: it spans
     * enough ranges, and so would a stream of its decoded size at a ratio of 2, which is what the
     * serial-run rule saw ({@link #serialRunBytes}) when it sent the batch to the device. A stream
     * the rule took for serial is never split behind its back (an 8.3 MB int16 chunk of 5.9 MB
     * encoded was, while the smallest range was 64 KiB).
     */
    public static boolean splits(long encoded, long decoded, long maxRangeBytes) {
        return splits(encoded, maxRangeBytes) && splits(decoded / 2, maxRangeBytes);
    }

    /**
     * The longest serial run of a stream of {@code decoded} bytes, as the serial-run rule counts it:
     * the whole stream, unless it splits (taken at a ratio of 2: the rule knows no encoded size);
     * then about a range's share, taken as twice the range.
     */
    public static long serialRunBytes(long decoded, long maxRangeBytes) {
        long encoded = decoded / 2;
        return splits(encoded, maxRangeBytes) ? Math.min(decoded, 2 * rangeBytes(encoded, maxRangeBytes)) : decoded;
    }

    /**
     * The range of a stream of {@code encoded} bytes: the largest power of two that gives it
     * {@link #MIN_SPLIT_RANGES} ranges (up to twice as many), within the bounds. A power of two,
     * because streams of one range size share a launch group: chunks of one array differ in
     * encoded size, and ranges of exactly a 64th made each of them a group of its own (measured
     * on the int16 store, H100: 474 groups of one stream in a read of 384 chunks).
     */
    public static long rangeBytes(long encoded, long maxRangeBytes) {
        long max = Math.min(maxRangeBytes, KernelContract.ZD_INFS_MAX_SEG_BYTES);
        long want = Long.highestOneBit(Math.max(1, encoded / MIN_SPLIT_RANGES));
        return Math.max(Math.min(MIN_RANGE_BYTES, max), Math.min(want, max));
    }

    /**
     * Ranges a batch's split streams should make together, per compute unit (SM) of the device,
     * before their ranges may grow past {@link #BATCH_MIN_RANGE_BYTES}: see {@link #batchRangeBytes}.
     */
    public static final long BATCH_RANGES_PER_UNIT = 24;
    /** The smallest range {@link #batchRangeBytes} picks (16 KiB measured faster than 8 on 2 MB chunks). */
    public static final long BATCH_MIN_RANGE_BYTES = 16L << 10;

    /**
     * The largest range for a batch whose split streams hold {@code encodedTotal} bytes, on a
     * device of {@code units} compute units, within {@code maxRangeBytes} (the setting): the largest
     * power of two that still gives the batch {@link #BATCH_RANGES_PER_UNIT} ranges a unit, from
     * {@link #BATCH_MIN_RANGE_BYTES}. A range decodes from the first block start found in it to the
     * next range's, serially, so a range holding several Huffman blocks is a chain of them. The
     * int16 shuffle + zlib chunks of 8.3 MB (whose high bytes zlib level 1 likely writes in dynamic
     * blocks of about 27 KB encoded, as traced on their 2 MB siblings) read in calls of 4 chunks (95
     * MB encoded) at 1.94 GB/s in 64 KiB ranges and 3.01 in 16 KiB ones on an H200, every batch on
     * the device, and their 2-step windows 2.32 and 3.79; yet a batch that already fills the device
     * loses by smaller ranges (the same store's whole array 4.76 and 4.41, the zlib store's 66 MB
     * chunks 3.11 and 2.82 read whole), as it pays the finds and the windows of more ranges for no
     * more parallelism. docs/performance.md, "Ranges sized by the batch".
     */
    public static long batchRangeBytes(long encodedTotal, int units, long maxRangeBytes) {
        if (encodedTotal < LATENCY_RANGES_PER_UNIT * Math.max(1, units) * BATCH_MIN_RANGE_BYTES) {
            return Math.min(maxRangeBytes, SYNC_RANGE_BYTES);
        }
        long want = Long.highestOneBit(Math.max(1, encodedTotal / (BATCH_RANGES_PER_UNIT * Math.max(1, units))));
        return Math.min(maxRangeBytes, Math.max(BATCH_MIN_RANGE_BYTES, want));
    }

    /**
     * A batch that would make fewer ranges of {@link #BATCH_MIN_RANGE_BYTES} than this per compute
     * unit leaves the device's decoders idle while a few serial segments decode: its ranges are
     * {@link #SYNC_RANGE_BYTES} instead, each started inside its Huffman block where it finds no block
     * start ({@link #syncs}).
     */
    public static final long LATENCY_RANGES_PER_UNIT = 4;
    /**
     * The range of a batch too small to fill the device. Measured on an H200, every batch on the
     * device, calls of one chunk (docs/performance.md, "Inside a Huffman block"): a 2 MB int16 zlib
     * chunk read 0.23-0.24 GB/s in 4 KiB ranges started inside blocks, 0.10-0.11 in 16 KiB ranges
     * (inside blocks or not) and in 4 KiB ranges at block starts only; an 8.3 MB one 0.57 against
     * 0.33-0.35, a 2 MB float32 one 0.20 against 0.10, four 2 MB int16 chunks a call 0.71 against
     * 0.37. A batch that fills the device lost by it (the same stores' calls of 4 steps 2.80 in 4 KiB
     * ranges, 3.24 as they were).
     */
    public static final long SYNC_RANGE_BYTES = 4L << 10;

    /**
     * Whether streams split in ranges of {@code rangeBytes} get starts inside Huffman blocks (the
     * sync launch, {@code zd_infs_sync_thread}): ranges smaller than a dynamic block (zlib level 1
     * writes them of some 14-30 KB encoded), those of a batch too small to fill the device or of
     * a setting below {@link #BATCH_MIN_RANGE_BYTES}. In larger ranges it bought nothing: the same
     * H200 call, 16 KiB ranges with and without it, 2 MB int16 store, calls of 4 steps 3.00 / 3.24
     * GB/s, 2-step windows 4.35 / 4.60, whole array 5.26 / 5.39; 8.3 MB store 2.78 / 2.97, 3.77 /
     * 3.66, 4.44 / 4.44 (the device is busy decoding there, not waiting on a long segment).
     */
    public static boolean syncs(long rangeBytes) {
        return rangeBytes < BATCH_MIN_RANGE_BYTES;
    }

    /** Streams (the caller's indices) that one plan decodes: one range size, their cells within a budget. */
    public record Group(long rangeBytes, List<Integer> streams) {
    }

    /**
     * The launch groups of a batch's streams {@code which}, whose sizes {@code encoded} and
     * {@code decoded} give, on a device of {@code units} compute units: in ranges of at most
     * {@link #batchRangeBytes} of the batch and {@code maxRangeBytes}, ordered by range size, a new
     * group wherever it changes or the cells would pass {@code cellBudget} bytes (a stream larger
     * than the budget goes alone).
     */
    public static List<Group> groups(List<Integer> which, IntToLongFunction encoded, IntToLongFunction decoded,
                                     long maxRangeBytes, int units, long cellBudget) {
        long total = 0;
        for (int k : which) {
            total += encoded.applyAsLong(k);
        }
        return groupsOf(which, encoded, decoded, batchRangeBytes(total, units, maxRangeBytes), cellBudget);
    }

    private static List<Group> groupsOf(List<Integer> which, IntToLongFunction encoded, IntToLongFunction decoded,
                                        long maxRangeBytes, long cellBudget) {
        List<Integer> order = new ArrayList<>(which);
        order.sort(Comparator.comparingLong(k -> rangeBytes(encoded.applyAsLong(k), maxRangeBytes)));
        List<Group> groups = new ArrayList<>();
        List<Integer> group = new ArrayList<>();
        long cells = 0, range = 0;
        for (int k : order) {
            long r = rangeBytes(encoded.applyAsLong(k), maxRangeBytes);
            long need = cellBytes(encoded.applyAsLong(k), decoded.applyAsLong(k), maxRangeBytes);
            if (!group.isEmpty() && (cells + need > cellBudget || r != range)) {
                groups.add(new Group(range, group));
                group = new ArrayList<>();
                cells = 0;
            }
            group.add(k);
            cells += need;
            range = r;
        }
        if (!group.isEmpty()) {
            groups.add(new Group(range, group));
        }
        return groups;
    }

    /** The ranges of a stream of {@code encoded} bytes. */
    public static long ranges(long encoded, long rangeBytes) {
        return Math.max(1, (encoded + rangeBytes - 1) / rangeBytes);
    }

    /** Cells a range of a stream gets: {@link #CELL_HEADROOM} times its share of the decoded bytes plus a window, at most all of them. */
    public static long cellsPerRange(long encoded, long decoded, long rangeBytes) {
        double share = (double) rangeBytes * decoded / Math.max(1, encoded);
        return Math.max(1, Math.min(decoded, (long) Math.ceil(CELL_HEADROOM * share) + KernelContract.ZD_INFS_WINDOW));
    }

    /** Bytes of cells a stream of this shape takes when split: what budgets of launch groups count. */
    public static long cellBytes(long encoded, long decoded, long maxRangeBytes) {
        long r = rangeBytes(encoded, maxRangeBytes);
        return 2 * ranges(encoded, r) * cellsPerRange(encoded, decoded, r);
    }

    public long rangeBytes() {
        return rangeBytes;
    }

    public int streams() {
        return first.length;
    }

    /** Segment records (one a range) of the whole group. */
    public int segments() {
        return segments;
    }

    /** Cells of the first decode. */
    public long cells() {
        return cells;
    }

    /** Bytes of the segment records. */
    public long recordBytes() {
        return SEG * segments;
    }

    /** The first record of stream {@code j}, and how many it has: the finish launch's tables. */
    public int first(int j) {
        return first[j];
    }

    public int count(int j) {
        return count[j];
    }

    /** Writes the records, as the find launch wants them, at {@code at} of {@code host}. */
    public void writeRecords(MemorySegment host, long at) {
        SegmentRecords recs = SegmentRecords.zeroed(segments);
        long cell = 0;
        for (int j = 0; j < first.length; j++) {
            for (int r = 0; r < count[j]; r++) {
                int rec = first[j] + r;
                recs.setLong(rec, KernelContract.ZD_INFS_SEG_CELL0_AT, cell);
                recs.setLong(rec, KernelContract.ZD_INFS_SEG_CAP_AT, perRange[j]);
                recs.setInt(rec, KernelContract.ZD_INFS_SEG_STREAM_AT, j);
                recs.setInt(rec, KernelContract.ZD_INFS_SEG_INDEX_AT, r);
                recs.setLong(rec, KernelContract.ZD_INFS_SEG_TABLES_AT, NO_STOP);
                recs.setLong(rec, KernelContract.ZD_INFS_SEG_END_HDR_AT, NO_STOP);
                cell += perRange[j];
            }
        }
        recs.writeTo(host, at);
    }

    /**
     * Where stream {@code j}'s chain broke, from its records read back at {@code at} of
     * {@code host} after the finish: for a trace of streams that did not verify.
     */
    public String describe(MemorySegment host, long at, int j) {
        SegmentRecords recs = SegmentRecords.readFrom(host, at, segments);
        StringBuilder b = new StringBuilder("split stream ").append(j).append(" did not verify:");
        long prevEnd = -1, prevHdr = NO_STOP;
        int shown = 0;
        for (int r = 0; r < count[j] && shown < 6; r++) {
            int rec = first[j] + r;
            int flags = recs.getInt(rec, KernelContract.ZD_INFS_SEG_FLAGS_AT);
            if ((flags & KernelContract.ZD_INFS_F_FOUND) == 0) {
                continue;
            }
            long start = recs.getLong(rec, KernelContract.ZD_INFS_SEG_START_AT);
            long end = recs.getLong(rec, KernelContract.ZD_INFS_SEG_END_AT);
            int status = recs.getInt(rec, KernelContract.ZD_INFS_SEG_STATUS_AT);
            long tables = recs.getLong(rec, KernelContract.ZD_INFS_SEG_TABLES_AT);
            boolean broken = status != 0 || (prevEnd >= 0 && !meets(prevEnd, prevHdr, start, flags, tables));
            if (broken) {
                b.append(String.format(" [range %d: start %d (tables %d; previous ended %d in block %d) end %d status %d flags %d]",
                        r, start, tables, prevEnd, prevHdr, end, status, flags));
                shown++;
            }
            prevEnd = end;
            prevHdr = recs.getLong(rec, KernelContract.ZD_INFS_SEG_END_HDR_AT);
        }
        return b.toString();
    }

    /**
     * After a decode, with its records read back at {@code at} of {@code host}: marks for another
     * decode (ZD_INFS_F_RETRY) every segment whose cells ran out, and in each stream the first
     * segment whose found start proved false: the segment before it, reached from the stream's
     * start through verified links, stopped past that start, or at it in another block (a chance
     * pass of the header checks, seen on one 8 MB int16 chunk in 16; or a sync start on which both
     * decoders agreed wrongly). That segment starts again where the one before it stopped, in the
     * block it stopped in ({@code ZD_INFS_F_MID}) or at the boundary. Marked segments get cells of their own after the others (as many as
     * their stream has decoded bytes). Returns the cells the next decode needs in all, or
     * {@code cells} (the cells given so far) if nothing was marked (the records at {@code at} are
     * then left as they were).
     */
    public long markRetries(MemorySegment host, long at, long cells) {
        SegmentRecords recs = SegmentRecords.readFrom(host, at, segments);
        long next = cells;
        boolean marked = false;
        for (int j = 0; j < first.length; j++) {
            int prev = -1;
            for (int r = 0; r < count[j]; r++) {
                int rec = first[j] + r;
                int flags = recs.getInt(rec, KernelContract.ZD_INFS_SEG_FLAGS_AT);
                int status = recs.getInt(rec, KernelContract.ZD_INFS_SEG_STATUS_AT);
                if ((flags & KernelContract.ZD_INFS_F_FOUND) == 0) {
                    continue;
                }
                if (status == KernelContract.ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW) {
                    next = retry(recs, rec, j, next, -1, NO_STOP);
                    marked = true;
                    prev = -2; // its end is not known yet: nothing after it is verified
                    continue;
                }
                if (prev == -2) {
                    continue;
                }
                if (prev >= 0) {
                    long end = recs.getLong(prev, KernelContract.ZD_INFS_SEG_END_AT);
                    long endHdr = recs.getLong(prev, KernelContract.ZD_INFS_SEG_END_HDR_AT);
                    int pflags = recs.getInt(prev, KernelContract.ZD_INFS_SEG_FLAGS_AT);
                    if ((pflags & KernelContract.ZD_INFS_F_FINAL) != 0) {
                        prev = -2; // a start after the final block: the finish decides
                        continue;
                    }
                    if (!meets(end, endHdr, recs.getLong(rec, KernelContract.ZD_INFS_SEG_START_AT),
                            flags, recs.getLong(rec, KernelContract.ZD_INFS_SEG_TABLES_AT))) {
                        next = retry(recs, rec, j, next, end, endHdr);
                        marked = true;
                        prev = -2;
                        continue;
                    }
                }
                prev = status == 0 ? rec : -2;
            }
        }
        if (marked) {
            recs.writeTo(host, at);
        }
        return next;
    }

    /** {@code ZD_INF_NO_STOP}: a segment's end at a block boundary rather than inside a block. */
    static final long NO_STOP = -1L;

    /**
     * {@code zd_infs_meets_thread}: a segment that stopped at {@code end} (inside the block whose
     * header is at {@code endHdr}, or at a boundary: {@link #NO_STOP}) meets a start at {@code start}
     * of those {@code flags} (inside the block at {@code tables} if {@code ZD_INFS_F_MID}).
     */
    static boolean meets(long end, long endHdr, long start, int flags, long tables) {
        if ((flags & KernelContract.ZD_INFS_F_MID) != 0) {
            return end == start && endHdr == tables;
        }
        return endHdr == NO_STOP && (end == start || ((flags & KernelContract.ZD_INFS_F_LOOSE) != 0 && end > start
                && end <= ((start + 10) >>> 3) * 8 - 3));
    }

    private long retry(SegmentRecords recs, int rec, int j, long next, long startAt, long startHdr) {
        int flags = recs.getInt(rec, KernelContract.ZD_INFS_SEG_FLAGS_AT) | (int) KernelContract.ZD_INFS_F_RETRY;
        if (startAt >= 0) {
            // where the segment before stopped: a block boundary, or a symbol inside its block
            recs.setLong(rec, KernelContract.ZD_INFS_SEG_START_AT, startAt);
            recs.setLong(rec, KernelContract.ZD_INFS_SEG_TABLES_AT, startHdr);
            flags &= ~(int) (KernelContract.ZD_INFS_F_LOOSE | KernelContract.ZD_INFS_F_MID); // an exact start now
            if (startHdr != NO_STOP) {
                flags |= (int) KernelContract.ZD_INFS_F_MID;
            }
        }
        recs.setInt(rec, KernelContract.ZD_INFS_SEG_FLAGS_AT, flags);
        recs.setLong(rec, KernelContract.ZD_INFS_SEG_CELL0_AT, next);
        recs.setLong(rec, KernelContract.ZD_INFS_SEG_CAP_AT, decoded[j]);
        return next + decoded[j];
    }

    /** Rounds of {@link #markRetries} a group gets before its unverified streams go to the serial kernel. */
    public static final int MAX_ROUNDS = 4;

    /** Items a group of the find launch (one group a range), on every backend. */
    public static final int FIND_ITEMS = 128;
    /**
     * Items a group of the sync launch (one group a range; item 0 walks into a range that found no
     * block start: {@code zd_infs_sync_thread}), on every backend: its local memory is a decoder's
     * tables, so one warp.
     */
    public static final int SYNC_ITEMS = 32;
    /** Items a group of the decode launch (one group a segment): CUDA's entry is compiled for groups of this many. */
    public static final int DECODE_ITEMS = KernelContract.ZD_INFS_DECODE_ITEMS;
    /** Items a group of the chain launch: one group a stream lays every segment's last 32 KiB out in order, so as many as the kernels allow. */
    public static final int CHAIN_ITEMS = 1024;
    /** Items a group of the layout launch (one group a segment: the rest of it, and its sum). */
    public static final int LAYOUT_ITEMS = 256;
    /** Items a group of the check launch (one item a stream). */
    public static final int CHECK_ITEMS = 64;

    /**
     * Cells one group of streams takes at most, as a share of the device's memory (a stream that
     * needs more goes alone), on every backend: each group is decoded, synchronised with and
     * finished before the next, so fewer groups keep more segments in flight. (OpenCL held a group
     * to 1 GiB at first: on an H100 that put each 66 MB stream of a call of 4 in a group of its own.)
     */
    public static final long CELL_SHARE_OF_MEMORY = 8;
}
