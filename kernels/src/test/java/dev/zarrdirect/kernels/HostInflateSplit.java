// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One deflate stream decoded split on the host build of inflate/zd_inflate_split.h, driven as the
 * device backends drive it (backend-cuda's InflateSplit, backend-opencl's OpenClInflateSplit): an
 * {@link InflateSplitPlan} writes the records, the find and decode launches run, the plan marks the
 * segments to decode again ({@link InflateSplitPlan#markRetries}, the only copy of that rule) for up
 * to {@link InflateSplitPlan#MAX_ROUNDS} rounds, and the finish says whether the stream verified.
 * With {@code ZD_INFS_TRACE} set, every record after the finish goes to stderr.
 */
final class HostInflateSplit {

    private static final boolean TRACE = System.getenv("ZD_INFS_TRACE") != null;
    private static final long SEG = KernelContract.ZD_INFS_SEG_BYTES;

    /**
     * The finish's status, the bytes it laid out, the verified chain's segments (of them, those
     * that started inside a block), and the segments decoded again.
     */
    record Result(int status, byte[] out, int chain, int mid, int retried, long[] lengths) {}

    private HostInflateSplit() {
    }

    /**
     * Decodes {@code stream} ({@code KernelContract.ZD_INFS_FORMAT_*}) of {@code dstLen} decoded
     * bytes in ranges of {@code rangeBytes}, each with {@code cellsPerRange} cells (0: the
     * backends' share), groups of {@code localSize} items; dst starts poisoned.
     */
    static Result decode(byte[] stream, int dstLen, int format, long rangeBytes, long cellsPerRange, int localSize) {
        return decode(stream, dstLen, format, rangeBytes, cellsPerRange, localSize, InflateSplitPlan.syncs(rangeBytes),
                segs -> { });
    }

    /**
     * {@link #decode}, with the sync launch run or not ({@code sync}; the backends run it where
     * {@link InflateSplitPlan#syncs}), and {@code afterSync} given the records between the sync and
     * decode launches (a test's damage).
     */
    static Result decode(byte[] stream, int dstLen, int format, long rangeBytes, long cellsPerRange, int localSize,
                         boolean sync, java.util.function.Consumer<MemorySegment> afterSync) {
        long[] enc = {stream.length}, dec = {dstLen};
        InflateSplitPlan plan = cellsPerRange > 0 ? InflateSplitPlan.withCells(rangeBytes, enc, dec, cellsPerRange)
                : InflateSplitPlan.of(rangeBytes, enc, dec);
        HostKernels k = HostKernels.get();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = HostKernels.copyOf(a, stream);
            MemorySegment dst = a.allocate(Math.max(1, dstLen), 16).asSlice(0, dstLen);
            dst.fill((byte) 0xA5);
            int n = plan.segments();
            MemorySegment segs = a.allocate(plan.recordBytes(), 8);
            plan.writeRecords(segs, 0);
            long have = plan.cells();
            MemorySegment cells = a.allocate(2 * have + 2, 8);
            k.infsFind(src, format, rangeBytes, segs, n);
            if (sync) {
                k.infsSync(src, format, rangeBytes, segs, n);
            }
            afterSync.accept(segs);
            k.infsDecode(src, cells, segs, n, false, localSize);
            int retried = 0;
            for (int round = 0; round < InflateSplitPlan.MAX_ROUNDS; round++) {
                long need = plan.markRetries(segs, 0, have);
                if (need == have) {
                    break;
                }
                retried += marked(segs, n);
                MemorySegment bigger = a.allocate(2 * need + 2, 8);
                bigger.copyFrom(cells.asSlice(0, 2 * have));
                cells = bigger;
                have = need;
                k.infsDecode(src, cells, segs, n, true, localSize);
            }
            int status = k.infsFinish(src, dst, cells, segs, n, format, localSize);
            int chain = 0, mid = 0;
            long[] lengths = new long[n];
            for (int r = 0; r < n; r++) {
                int flags = segs.get(ValueLayout.JAVA_INT, SEG * r + KernelContract.ZD_INFS_SEG_FLAGS_AT);
                boolean in = (flags & KernelContract.ZD_INFS_F_CHAIN) != 0;
                if (in) {
                    lengths[chain] = segs.get(ValueLayout.JAVA_LONG, SEG * r + KernelContract.ZD_INFS_SEG_OUT_LEN_AT);
                }
                chain += in ? 1 : 0;
                mid += in && (flags & KernelContract.ZD_INFS_F_MID) != 0 ? 1 : 0;
                if (TRACE) {
                    System.err.printf("range %d: start %d (tables %d) end %d (in block %d) status %d flags %d%n", r,
                            segs.get(ValueLayout.JAVA_LONG, SEG * r + KernelContract.ZD_INFS_SEG_START_AT),
                            segs.get(ValueLayout.JAVA_LONG, SEG * r + KernelContract.ZD_INFS_SEG_TABLES_AT),
                            segs.get(ValueLayout.JAVA_LONG, SEG * r + KernelContract.ZD_INFS_SEG_END_AT),
                            segs.get(ValueLayout.JAVA_LONG, SEG * r + KernelContract.ZD_INFS_SEG_END_HDR_AT),
                            segs.get(ValueLayout.JAVA_INT, SEG * r + KernelContract.ZD_INFS_SEG_STATUS_AT), flags);
                }
            }
            return new Result(status, dst.toArray(ValueLayout.JAVA_BYTE), chain, mid, retried,
                    java.util.Arrays.copyOf(lengths, chain));
        }
    }

    /** Records the plan marked for another decode. */
    private static int marked(MemorySegment segs, int n) {
        int m = 0;
        for (int r = 0; r < n; r++) {
            m += (segs.get(ValueLayout.JAVA_INT, SEG * r + KernelContract.ZD_INFS_SEG_FLAGS_AT)
                    & KernelContract.ZD_INFS_F_RETRY) != 0 ? 1 : 0;
        }
        return m;
    }
}
