// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.*;

/** The split rules both device backends follow, and the records they hand the kernels. */
class InflateSplitPlanTest {

    private static final long K = 1024;

    @Test
    void smallBatchesSplitInSmallerRanges() {
        int sms = 132; // an H100 or H200: 3,168 ranges wanted a batch
        long int16 = 5_960 * K, zlib66 = 28_500 * K; // encoded chunks (means): 8.3 MB int16 shuffle + zlib 1, 66 MB float32 zlib 1
        assertEquals(16 * K, InflateSplitPlan.batchRangeBytes(16 * int16, sms, 64 * K), "8.3 MB int16, calls of 4 steps");
        assertEquals(16 * K, InflateSplitPlan.batchRangeBytes(8 * int16, sms, 64 * K), "its 2-step windows");
        assertEquals(64 * K, InflateSplitPlan.batchRangeBytes(64 * int16, sms, 64 * K), "a whole-array batch of 64");
        assertEquals(32 * K, InflateSplitPlan.batchRangeBytes(4 * zlib66, sms, 64 * K), "66 MB zlib, calls of 4");
        assertEquals(64 * K, InflateSplitPlan.batchRangeBytes(8 * zlib66, sms, 64 * K), "its whole array of 8 steps");
        // the edges: 64 KiB from 64 KiB a wanted range on, never below 16 KiB, never above the setting
        long edge = 64 * K * InflateSplitPlan.BATCH_RANGES_PER_UNIT * sms;
        assertEquals(64 * K, InflateSplitPlan.batchRangeBytes(edge, sms, 64 * K));
        assertEquals(32 * K, InflateSplitPlan.batchRangeBytes(edge - 1, sms, 64 * K));
        assertEquals(64 * K, InflateSplitPlan.batchRangeBytes(1L << 50, sms, 64 * K));
        // batches too small to fill the device: ranges started inside blocks
        assertEquals(4 * K, InflateSplitPlan.batchRangeBytes(0, sms, 64 * K));
        assertEquals(4 * K, InflateSplitPlan.batchRangeBytes(1, 0, 64 * K), "no units known: one");
        assertEquals(4 * K, InflateSplitPlan.batchRangeBytes(1_400 * K, sms, 64 * K), "one 2 MB int16 chunk");
        assertEquals(4 * K, InflateSplitPlan.batchRangeBytes(6_000 * K, sms, 64 * K), "one 8.3 MB int16 chunk");
        long fills = InflateSplitPlan.LATENCY_RANGES_PER_UNIT * sms * InflateSplitPlan.BATCH_MIN_RANGE_BYTES;
        assertEquals(4 * K, InflateSplitPlan.batchRangeBytes(fills - 1, sms, 64 * K));
        assertEquals(16 * K, InflateSplitPlan.batchRangeBytes(fills, sms, 64 * K));
        assertEquals(2 * K, InflateSplitPlan.batchRangeBytes(1, sms, 2 * K), "a smaller setting stands there too");
        assertTrue(InflateSplitPlan.syncs(4 * K));
        assertTrue(InflateSplitPlan.syncs(8 * K), "a setting below the batch's smallest range");
        assertFalse(InflateSplitPlan.syncs(16 * K));
        assertEquals(8 * K, InflateSplitPlan.batchRangeBytes(16 * int16, sms, 8 * K), "a smaller setting stands");
        assertEquals(256 * K, InflateSplitPlan.batchRangeBytes(1L << 40, 2, 256 * K), "a larger one is reached");
        // a stream's own rule still bounds its range within the batch's: a 1.4 MB stream keeps 16 KiB
        assertEquals(16 * K, InflateSplitPlan.rangeBytes(1_400 * K, InflateSplitPlan.batchRangeBytes(1L << 40, sms, 64 * K)));
    }

    @Test
    void streamsOfSixtyFourRangesSplitInRangesOfAPowerOfTwo() {
        assertEquals(64 * K, InflateSplitPlan.rangeBytes(29_000 * K, 64 * K)); // a 66 MB float32 chunk, zlib 1
        assertEquals(64 * K, InflateSplitPlan.rangeBytes(5_400 * K, 64 * K)); // an 8.3 MB int16 chunk
        assertTrue(InflateSplitPlan.splits(1_400 * K, 64 * K), "a 2 MB int16 chunk splits");
        assertEquals(16 * K, InflateSplitPlan.rangeBytes(1_400 * K, 64 * K), "in 16 KiB ranges, 88 of them");
        assertEquals(16 * K, InflateSplitPlan.rangeBytes(1_070 * K, 64 * K), "a 2 MB float32 chunk of zlib 1: 67");
        assertFalse(InflateSplitPlan.splits(512 * K - 1, 64 * K), "below 64 ranges of 8 KiB: serial");
        assertTrue(InflateSplitPlan.splits(512 * K, 64 * K));
        assertEquals(8 * K, InflateSplitPlan.rangeBytes(512 * K, 64 * K));
        assertEquals(8 * K, InflateSplitPlan.rangeBytes(1024 * K - 1, 64 * K));
        assertEquals(32 * K, InflateSplitPlan.rangeBytes(2048 * K, 64 * K));
        assertFalse(InflateSplitPlan.splits(1L << 40, 0), "0 turns splitting off");
        // a larger setting: ranges of a power of two, 64 to 128 of them, chunks of an array alike
        assertEquals(64 * K, InflateSplitPlan.rangeBytes(8191 * K, 1024 * K));
        assertEquals(128 * K, InflateSplitPlan.rangeBytes(8192 * K, 1024 * K));
        assertEquals(128 * K, InflateSplitPlan.rangeBytes(9000 * K, 1024 * K));
        assertEquals(128, InflateSplitPlan.ranges(16383 * K - 64, InflateSplitPlan.rangeBytes(16383 * K - 64, 1024 * K)));
        // the GPU tests' setting of 16 KiB: the same smallest range, ranges up to 16 KiB
        assertEquals(16 * K, InflateSplitPlan.rangeBytes(1400 * K, 16 * K));
        assertEquals(16 * K, InflateSplitPlan.rangeBytes(4096 * K, 16 * K));
        // a setting below the smallest range is taken as it is
        assertEquals(4 * K, InflateSplitPlan.rangeBytes(1400 * K, 4 * K));
        assertTrue(InflateSplitPlan.splits(256 * K, 4 * K));
        assertFalse(InflateSplitPlan.splits(256 * K - 1, 4 * K));
        assertEquals(KernelContract.ZD_INFS_MAX_SEG_BYTES, InflateSplitPlan.rangeBytes(1L << 40, 1L << 40));
    }

    @Test
    void aStreamSplitsOnlyWhereTheSerialRunRuleCountedItSplit() {
        long big = 66_447_360; // a [16, 721, 1440] float32 step
        assertTrue(InflateSplitPlan.splits(big / 2, big, 64 * K));
        assertEquals(128 * K, InflateSplitPlan.serialRunBytes(big, 64 * K), "twice a range");
        // an 8.3 MB int16 chunk of ratio 1.39 splits, as the rule counts it
        long int16 = 8_305_920;
        assertTrue(InflateSplitPlan.splits(5_530_000, int16, 64 * K));
        assertEquals(64 * K, InflateSplitPlan.serialRunBytes(int16, 64 * K), "twice its ranges, 32 KiB at a ratio of 2");
        // a 1 MB chunk of 600 KB encoded: enough encoded bytes, but the rule (500 KB at a ratio of 2) took it for serial
        assertFalse(InflateSplitPlan.splits(600_000, 1_000_000, 64 * K));
        assertEquals(1_000_000, InflateSplitPlan.serialRunBytes(1_000_000, 64 * K));
        // a 2 MB int16 chunk of 1.4 MB encoded splits in 16 KiB ranges; the rule, at a ratio of 2,
        // takes it for 8 KiB ranges and counts runs of 16 KiB
        assertTrue(InflateSplitPlan.splits(1_400_000, 2_076_480, 64 * K));
        assertEquals(16 * K, InflateSplitPlan.serialRunBytes(2_076_480, 64 * K));
        // zeros: a large stream of few encoded bytes stays serial too
        assertFalse(InflateSplitPlan.splits(100 * K, big, 64 * K));
        assertEquals(big, InflateSplitPlan.serialRunBytes(big, 0));
    }

    @Test
    void recordsTileTheCellsAndRetriesGetCellsAfterThem() {
        long[] enc = {100 * K, 30 * K}, dec = {250 * K, 40 * K};
        InflateSplitPlan p = InflateSplitPlan.of(16 * K, enc, dec);
        assertEquals(7 + 2, p.segments());
        assertEquals(0, p.first(0));
        assertEquals(7, p.count(0));
        assertEquals(7, p.first(1));
        try (Arena a = Arena.ofConfined()) {
            long at = 128;
            MemorySegment host = a.allocate(at + p.recordBytes(), 8);
            host.fill((byte) 0x5A);
            p.writeRecords(host, at);
            long cell = 0;
            for (int s = 0; s < p.segments(); s++) {
                long rec = at + KernelContract.ZD_INFS_SEG_BYTES * s;
                int stream = s < 7 ? 0 : 1;
                assertEquals(cell, host.get(ValueLayout.JAVA_LONG, rec + KernelContract.ZD_INFS_SEG_CELL0_AT));
                long cap = host.get(ValueLayout.JAVA_LONG, rec + KernelContract.ZD_INFS_SEG_CAP_AT);
                assertEquals(InflateSplitPlan.cellsPerRange(enc[stream], dec[stream], 16 * K), cap);
                assertEquals(stream, host.get(ValueLayout.JAVA_INT, rec + KernelContract.ZD_INFS_SEG_STREAM_AT));
                assertEquals(s - p.first(stream), host.get(ValueLayout.JAVA_INT, rec + KernelContract.ZD_INFS_SEG_INDEX_AT));
                assertEquals(0, host.get(ValueLayout.JAVA_INT, rec + KernelContract.ZD_INFS_SEG_FLAGS_AT));
                cell += cap;
            }
            assertEquals(cell, p.cells());
            assertEquals(0x5A5A5A5A, host.get(ValueLayout.JAVA_INT, at - 4), "nothing written before the records");
            // nothing found or decoded yet: no segment to decode again
            assertEquals(p.cells(), p.markRetries(host, at, p.cells()), "no segment ran out");
            // segment 2 of stream 0 and segment 1 of stream 1 ran out of cells
            for (int s : new int[]{2, 8}) {
                host.set(ValueLayout.JAVA_INT, at + KernelContract.ZD_INFS_SEG_BYTES * s + KernelContract.ZD_INFS_SEG_STATUS_AT,
                        KernelContract.ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW);
            }
            for (int s = 0; s < p.segments(); s++) { // every range found a start
                host.set(ValueLayout.JAVA_INT, at + KernelContract.ZD_INFS_SEG_BYTES * s + KernelContract.ZD_INFS_SEG_FLAGS_AT,
                        (int) KernelContract.ZD_INFS_F_FOUND);
            }
            long again = p.markRetries(host, at, p.cells());
            assertEquals(p.cells() + dec[0] + dec[1], again);
            long r2 = at + KernelContract.ZD_INFS_SEG_BYTES * 2, r8 = at + KernelContract.ZD_INFS_SEG_BYTES * 8;
            assertEquals(p.cells(), host.get(ValueLayout.JAVA_LONG, r2 + KernelContract.ZD_INFS_SEG_CELL0_AT));
            assertEquals(dec[0], host.get(ValueLayout.JAVA_LONG, r2 + KernelContract.ZD_INFS_SEG_CAP_AT));
            assertEquals(p.cells() + dec[0], host.get(ValueLayout.JAVA_LONG, r8 + KernelContract.ZD_INFS_SEG_CELL0_AT));
            assertEquals(KernelContract.ZD_INFS_F_RETRY | KernelContract.ZD_INFS_F_FOUND,
                    host.get(ValueLayout.JAVA_INT, r8 + KernelContract.ZD_INFS_SEG_FLAGS_AT));
        }
    }

    /** Records of one stream: found starts, where each decode stopped, its status. */
    private static MemorySegment records(Arena a, InflateSplitPlan p, long[] start, long[] end, int[] status, int[] flags) {
        MemorySegment host = a.allocate(p.recordBytes(), 8);
        p.writeRecords(host, 0);
        for (int s = 0; s < start.length; s++) {
            long rec = KernelContract.ZD_INFS_SEG_BYTES * s;
            host.set(ValueLayout.JAVA_LONG, rec + KernelContract.ZD_INFS_SEG_START_AT, start[s]);
            host.set(ValueLayout.JAVA_LONG, rec + KernelContract.ZD_INFS_SEG_END_AT, end[s]);
            host.set(ValueLayout.JAVA_INT, rec + KernelContract.ZD_INFS_SEG_STATUS_AT, status[s]);
            host.set(ValueLayout.JAVA_INT, rec + KernelContract.ZD_INFS_SEG_FLAGS_AT, flags[s]);
        }
        return host;
    }

    @Test
    void aStartInsideABlockIsMetOnlyAtItsBitInItsBlock() {
        int found = (int) KernelContract.ZD_INFS_F_FOUND, mid = found | (int) KernelContract.ZD_INFS_F_MID;
        long none = InflateSplitPlan.NO_STOP;
        assertTrue(InflateSplitPlan.meets(5000, 1000, 5000, mid, 1000));
        assertFalse(InflateSplitPlan.meets(5000, 1200, 5000, mid, 1000), "another block's tables");
        assertFalse(InflateSplitPlan.meets(5001, 1000, 5000, mid, 1000), "a bit past it");
        assertFalse(InflateSplitPlan.meets(5000, none, 5000, mid, 1000), "a block boundary is not a symbol inside one");
        assertFalse(InflateSplitPlan.meets(5000, 1000, 5000, found, none), "a block start is not a symbol inside a block");
        assertTrue(InflateSplitPlan.meets(5000, none, 5000, found, none));
        int loose = found | (int) KernelContract.ZD_INFS_F_LOOSE;
        assertFalse(InflateSplitPlan.meets(5003, 1000, 5000, loose, none), "a loose start is a boundary too");
        // a false block start that the segment before stepped over inside its block: decoded again
        // from the symbol where that one stopped, with its block's tables
        int done = found | (int) KernelContract.ZD_INFS_F_DONE;
        InflateSplitPlan p = InflateSplitPlan.of(16 * K, new long[]{64 * K}, new long[]{100 * K});
        try (Arena a = Arena.ofConfined()) {
            MemorySegment host = records(a, p, new long[]{16, 131_000, 262_800, 393_000},
                    new long[]{131_000, 262_800, 393_018, 524_000}, new int[]{0, 0, 0, 0}, new int[]{done, done, done, done});
            host.set(ValueLayout.JAVA_LONG, 2 * KernelContract.ZD_INFS_SEG_BYTES + KernelContract.ZD_INFS_SEG_END_HDR_AT, 300_000);
            assertEquals(p.cells() + 100 * K, p.markRetries(host, 0, p.cells()));
            long r3 = 3 * KernelContract.ZD_INFS_SEG_BYTES;
            assertEquals(393_018, host.get(ValueLayout.JAVA_LONG, r3 + KernelContract.ZD_INFS_SEG_START_AT));
            assertEquals(300_000, host.get(ValueLayout.JAVA_LONG, r3 + KernelContract.ZD_INFS_SEG_TABLES_AT));
            assertEquals(done | KernelContract.ZD_INFS_F_RETRY | KernelContract.ZD_INFS_F_MID,
                    host.get(ValueLayout.JAVA_INT, r3 + KernelContract.ZD_INFS_SEG_FLAGS_AT));
            // decoded again and met at a block boundary this time: a block start again
            host.set(ValueLayout.JAVA_LONG, 2 * KernelContract.ZD_INFS_SEG_BYTES + KernelContract.ZD_INFS_SEG_END_HDR_AT, none);
            host.set(ValueLayout.JAVA_LONG, 2 * KernelContract.ZD_INFS_SEG_BYTES + KernelContract.ZD_INFS_SEG_END_AT, 393_020);
            p.markRetries(host, 0, p.cells());
            assertEquals(393_020, host.get(ValueLayout.JAVA_LONG, r3 + KernelContract.ZD_INFS_SEG_START_AT));
            assertEquals(0, host.get(ValueLayout.JAVA_INT, r3 + KernelContract.ZD_INFS_SEG_FLAGS_AT) & KernelContract.ZD_INFS_F_MID);
        }
    }

    @Test
    void aFalseStartIsDecodedAgainFromWhereTheSegmentBeforeItStopped() {
        int found = (int) KernelContract.ZD_INFS_F_FOUND | (int) KernelContract.ZD_INFS_F_DONE;
        int loose = found | (int) KernelContract.ZD_INFS_F_LOOSE;
        InflateSplitPlan p = InflateSplitPlan.of(16 * K, new long[]{64 * K}, new long[]{100 * K});
        try (Arena a = Arena.ofConfined()) {
            // range 1 met exactly, range 2 met loosely (within its zero run), range 3 a false start
            // (range 2 stopped 18 bits past it; its own decode failed)
            MemorySegment host = records(a, p, new long[]{16, 131_000, 262_799, 393_000},
                    new long[]{131_000, 262_800, 393_018, 0}, new int[]{0, 0, 0, 28}, new int[]{found, found, loose, found});
            long need = p.markRetries(host, 0, p.cells());
            assertEquals(p.cells() + 100 * K, need);
            long r3 = 3 * KernelContract.ZD_INFS_SEG_BYTES;
            assertEquals(393_018, host.get(ValueLayout.JAVA_LONG, r3 + KernelContract.ZD_INFS_SEG_START_AT));
            assertEquals(found | KernelContract.ZD_INFS_F_RETRY, host.get(ValueLayout.JAVA_INT, r3 + KernelContract.ZD_INFS_SEG_FLAGS_AT));
            for (int s = 0; s < 3; s++) {
                assertEquals(0, host.get(ValueLayout.JAVA_INT, KernelContract.ZD_INFS_SEG_BYTES * s
                        + KernelContract.ZD_INFS_SEG_FLAGS_AT) & KernelContract.ZD_INFS_F_RETRY, "range " + s);
            }
            // a loose start that the segment before missed by more than its zero run is false too
            MemorySegment far = records(a, p, new long[]{16, 262_799, 393_000, 500_000},
                    new long[]{262_806, 393_000, 500_000, 524_000}, new int[]{0, 0, 0, 0}, new int[]{found, loose, found, found});
            assertEquals(p.cells() + 100 * K, p.markRetries(far, 0, p.cells()));
            assertEquals(262_806, far.get(ValueLayout.JAVA_LONG, KernelContract.ZD_INFS_SEG_BYTES + KernelContract.ZD_INFS_SEG_START_AT));
            assertEquals(found | KernelContract.ZD_INFS_F_RETRY,
                    far.get(ValueLayout.JAVA_INT, KernelContract.ZD_INFS_SEG_BYTES + KernelContract.ZD_INFS_SEG_FLAGS_AT),
                    "the loose flag goes: the start is exact now");
            // an error after an exact meeting is the stream's own: nothing to mend, the serial decoder reports it
            MemorySegment bad = records(a, p, new long[]{16, 131_000, 262_000, 393_000},
                    new long[]{131_000, 0, 0, 0}, new int[]{0, 28, 0, 0}, new int[]{found, found, found, found});
            assertEquals(p.cells(), p.markRetries(bad, 0, p.cells()));
        }
    }

    @Test
    void groupsShareOneRangeSizeAndStayWithinTheBudget() {
        // streams 0 and 2 take 64 KiB ranges, 1 and 3 take 32 KiB: two groups, the smaller ranges first
        long[] enc = {6000 * K, 2500 * K, 7000 * K, 3000 * K}, dec = {8000 * K, 4000 * K, 9000 * K, 4500 * K};
        var all = InflateSplitPlan.groups(java.util.List.of(0, 1, 2, 3), k -> enc[k], k -> dec[k], 64 * K, 1, Long.MAX_VALUE);
        assertEquals(2, all.size());
        assertEquals(32 * K, all.get(0).rangeBytes());
        assertEquals(java.util.List.of(1, 3), all.get(0).streams());
        assertEquals(java.util.List.of(0, 2), all.get(1).streams());
        // a budget of one stream's cells: one stream a group
        long one = InflateSplitPlan.cellBytes(enc[2], dec[2], 64 * K);
        var tight = InflateSplitPlan.groups(java.util.List.of(0, 2), k -> enc[k], k -> dec[k], 64 * K, 1, one);
        assertEquals(2, tight.size());
        // the same batch on 132 SMs: 18.5 MB make too few ranges of 32 or 64 KiB, all go to 16 KiB, one group
        var wide = InflateSplitPlan.groups(java.util.List.of(0, 1, 2, 3), k -> enc[k], k -> dec[k], 64 * K, 132,
                Long.MAX_VALUE);
        assertEquals(1, wide.size());
        assertEquals(16 * K, wide.getFirst().rangeBytes());
        assertEquals(java.util.List.of(0, 1, 2, 3), wide.getFirst().streams().stream().sorted().toList());
    }

    @Test
    void badPlansAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> InflateSplitPlan.of(0, new long[]{1}, new long[]{1}));
        assertThrows(IllegalArgumentException.class,
                () -> InflateSplitPlan.of(KernelContract.ZD_INFS_MAX_SEG_BYTES + 1, new long[]{1}, new long[]{1}));
        assertThrows(IllegalArgumentException.class, () -> InflateSplitPlan.of(K, new long[]{1, 2}, new long[]{1}));
    }
}
