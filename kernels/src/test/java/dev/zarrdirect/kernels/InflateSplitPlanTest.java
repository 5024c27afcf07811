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
    void streamsOfSixtyFourRangesSplitInRangesOfAPowerOfTwo() {
        assertEquals(64 * K, InflateSplitPlan.rangeBytes(29_000 * K, 64 * K)); // a 66 MB float32 chunk, zlib 1
        assertFalse(InflateSplitPlan.splits(1_400 * K, 64 * K), "a 2 MB int16 chunk decodes serially");
        assertFalse(InflateSplitPlan.splits(4096 * K - 1, 64 * K));
        assertTrue(InflateSplitPlan.splits(4096 * K, 64 * K));
        assertFalse(InflateSplitPlan.splits(1L << 40, 0), "0 turns splitting off");
        // a larger setting: ranges of a power of two, 64 to 128 of them, chunks of an array alike
        assertEquals(64 * K, InflateSplitPlan.rangeBytes(8191 * K, 1024 * K));
        assertEquals(128 * K, InflateSplitPlan.rangeBytes(8192 * K, 1024 * K));
        assertEquals(128 * K, InflateSplitPlan.rangeBytes(9000 * K, 1024 * K));
        assertEquals(128, InflateSplitPlan.ranges(16383 * K - 64, InflateSplitPlan.rangeBytes(16383 * K - 64, 1024 * K)));
        // a setting below the smallest range is taken as it is (the GPU tests use 16 KiB)
        assertEquals(16 * K, InflateSplitPlan.rangeBytes(1400 * K, 16 * K));
        assertTrue(InflateSplitPlan.splits(1024 * K, 16 * K));
        assertFalse(InflateSplitPlan.splits(1024 * K - 1, 16 * K));
        assertEquals(KernelContract.ZD_INFS_MAX_SEG_BYTES, InflateSplitPlan.rangeBytes(1L << 40, 1L << 40));
    }

    @Test
    void aStreamSplitsOnlyWhereTheSerialRunRuleCountedItSplit() {
        long big = 66_447_360; // a [16, 721, 1440] float32 step
        assertTrue(InflateSplitPlan.splits(big / 2, big, 64 * K));
        assertEquals(128 * K, InflateSplitPlan.serialRunBytes(big, 64 * K), "twice a range");
        // an 8.3 MB int16 chunk of ratio 1.39: enough encoded bytes, but the rule took it for serial
        long int16 = 8_305_920;
        assertFalse(InflateSplitPlan.splits(5_960_000, int16, 64 * K));
        assertEquals(int16, InflateSplitPlan.serialRunBytes(int16, 64 * K));
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
            assertEquals(p.cells(), p.markRetries(host, at), "no segment ran out");
            // segment 2 of stream 0 and segment 1 of stream 1 ran out of cells
            for (int s : new int[]{2, 8}) {
                host.set(ValueLayout.JAVA_INT, at + KernelContract.ZD_INFS_SEG_BYTES * s + KernelContract.ZD_INFS_SEG_STATUS_AT,
                        KernelContract.ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW);
            }
            long again = p.markRetries(host, at);
            assertEquals(p.cells() + dec[0] + dec[1], again);
            long r2 = at + KernelContract.ZD_INFS_SEG_BYTES * 2, r8 = at + KernelContract.ZD_INFS_SEG_BYTES * 8;
            assertEquals(p.cells(), host.get(ValueLayout.JAVA_LONG, r2 + KernelContract.ZD_INFS_SEG_CELL0_AT));
            assertEquals(dec[0], host.get(ValueLayout.JAVA_LONG, r2 + KernelContract.ZD_INFS_SEG_CAP_AT));
            assertEquals(p.cells() + dec[0], host.get(ValueLayout.JAVA_LONG, r8 + KernelContract.ZD_INFS_SEG_CELL0_AT));
            assertEquals(KernelContract.ZD_INFS_F_RETRY, host.get(ValueLayout.JAVA_INT, r8 + KernelContract.ZD_INFS_SEG_FLAGS_AT));
        }
    }

    @Test
    void badPlansAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> InflateSplitPlan.of(0, new long[]{1}, new long[]{1}));
        assertThrows(IllegalArgumentException.class,
                () -> InflateSplitPlan.of(KernelContract.ZD_INFS_MAX_SEG_BYTES + 1, new long[]{1}, new long[]{1}));
        assertThrows(IllegalArgumentException.class, () -> InflateSplitPlan.of(K, new long[]{1, 2}, new long[]{1}));
    }
}
