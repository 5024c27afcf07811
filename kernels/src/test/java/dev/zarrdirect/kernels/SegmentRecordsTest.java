// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The records' copy on the host against the layout the launches read, field by field, through
 * memory-segment accessors of the device's byte order: values that fill all 64 bits (a long split
 * into the wrong halves, or ints read at the wrong record, would differ), at an offset into the
 * memory, with bytes around the records that must stay as they were.
 */
class SegmentRecordsTest {

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long SEG = KernelContract.ZD_INFS_SEG_BYTES;
    private static final long[] LONGS = {KernelContract.ZD_INFS_SEG_START_AT, KernelContract.ZD_INFS_SEG_END_AT,
            KernelContract.ZD_INFS_SEG_CELL0_AT, KernelContract.ZD_INFS_SEG_CAP_AT, KernelContract.ZD_INFS_SEG_OUT_LEN_AT,
            KernelContract.ZD_INFS_SEG_TABLES_AT, KernelContract.ZD_INFS_SEG_END_HDR_AT};
    private static final long[] INTS = {KernelContract.ZD_INFS_SEG_STREAM_AT, KernelContract.ZD_INFS_SEG_INDEX_AT,
            KernelContract.ZD_INFS_SEG_STATUS_AT, KernelContract.ZD_INFS_SEG_FLAGS_AT};

    @Test
    void fieldsLandWhereTheLaunchesReadThemAndComeBackTheSame() {
        int segments = 37;
        long at = 200; // a multiple of 8, not of the record size
        SplittableRandom rnd = new SplittableRandom(49);
        long[][] longs = new long[segments][LONGS.length];
        int[][] ints = new int[segments][INTS.length];
        SegmentRecords recs = SegmentRecords.zeroed(segments);
        for (int s = 0; s < segments; s++) {
            for (int f = 0; f < LONGS.length; f++) {
                longs[s][f] = s == 3 ? -1 : rnd.nextLong(); // -1: NO_STOP, every bit set
                recs.setLong(s, LONGS[f], longs[s][f]);
            }
            for (int f = 0; f < INTS.length; f++) {
                ints[s][f] = rnd.nextInt();
                recs.setInt(s, INTS[f], ints[s][f]);
            }
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment host = a.allocate(at + SEG * segments + 64, 8);
            host.fill((byte) 0x5A);
            recs.writeTo(host, at);
            assertEquals(0x5A5A5A5A5A5A5A5AL, host.get(LONG, at - 8), "nothing written before the records");
            assertEquals(0x5A5A5A5A5A5A5A5AL, host.get(LONG, at + SEG * segments), "nothing written after them");
            for (int s = 0; s < segments; s++) {
                long rec = at + SEG * s;
                for (int f = 0; f < LONGS.length; f++) {
                    assertEquals(longs[s][f], host.get(LONG, rec + LONGS[f]), "record " + s + " long at " + LONGS[f]);
                }
                for (int f = 0; f < INTS.length; f++) {
                    assertEquals(ints[s][f], host.get(INT, rec + INTS[f]), "record " + s + " int at " + INTS[f]);
                }
            }
            // what a launch wrote, read back: change one field of each kind in the memory itself
            host.set(LONG, at + SEG * 5 + KernelContract.ZD_INFS_SEG_END_AT, 0x1234_5678_9ABC_DEF0L);
            host.set(INT, at + SEG * 36 + KernelContract.ZD_INFS_SEG_FLAGS_AT, 0x8000_0001);
            SegmentRecords back = SegmentRecords.readFrom(host, at, segments);
            assertEquals(0x1234_5678_9ABC_DEF0L, back.getLong(5, KernelContract.ZD_INFS_SEG_END_AT));
            assertEquals(0x8000_0001, back.getInt(36, KernelContract.ZD_INFS_SEG_FLAGS_AT));
            for (int s = 0; s < segments; s++) {
                for (int f = 0; f < LONGS.length; f++) {
                    if (s != 5 || LONGS[f] != KernelContract.ZD_INFS_SEG_END_AT) {
                        assertEquals(longs[s][f], back.getLong(s, LONGS[f]), "record " + s + " long at " + LONGS[f]);
                    }
                }
                for (int f = 0; f < INTS.length; f++) {
                    if (s != 36 || INTS[f] != KernelContract.ZD_INFS_SEG_FLAGS_AT) {
                        assertEquals(ints[s][f], back.getInt(s, INTS[f]), "record " + s + " int at " + INTS[f]);
                    }
                }
            }
        }
    }

    @Test
    void aRetryCarriesStartsPastFourGigabits() {
        // a stream of more than 512 MiB encoded: bit offsets above 2^32 (a lost high half would
        // send the segment back to the stream's first half gigabyte)
        long k = 1L << 10;
        InflateSplitPlan p = InflateSplitPlan.of(64 * k, new long[]{64 * 64 * k + (600L << 20)}, new long[]{700L << 20});
        int found = (int) (KernelContract.ZD_INFS_F_FOUND | KernelContract.ZD_INFS_F_DONE);
        long past = (600L << 23) + 13; // bits
        try (Arena a = Arena.ofConfined()) {
            MemorySegment host = a.allocate(p.recordBytes(), 8);
            p.writeRecords(host, 0);
            for (int s = 0; s < 3; s++) {
                long rec = SEG * s;
                host.set(LONG, rec + KernelContract.ZD_INFS_SEG_START_AT, past + 1000L * s);
                host.set(LONG, rec + KernelContract.ZD_INFS_SEG_END_AT, past + 1000L * (s + 1) + (s == 1 ? 18 : 0));
                host.set(INT, rec + KernelContract.ZD_INFS_SEG_FLAGS_AT, found);
            }
            byte[] before = host.toArray(ValueLayout.JAVA_BYTE);
            long need = p.markRetries(host, 0, p.cells());
            assertEquals(p.cells() + (700L << 20), need, "segment 2 starts again with a stream's cells");
            long r2 = 2 * SEG;
            assertEquals(past + 2018, host.get(LONG, r2 + KernelContract.ZD_INFS_SEG_START_AT));
            assertEquals(p.cells(), host.get(LONG, r2 + KernelContract.ZD_INFS_SEG_CELL0_AT));
            assertEquals(found | KernelContract.ZD_INFS_F_RETRY, host.get(INT, r2 + KernelContract.ZD_INFS_SEG_FLAGS_AT));
            assertEquals(-1L, host.get(LONG, r2 + KernelContract.ZD_INFS_SEG_TABLES_AT), "met at a block boundary");
            // nothing else moved
            byte[] after = host.toArray(ValueLayout.JAVA_BYTE);
            for (int i = 0; i < after.length; i++) {
                if (i < r2 || i >= r2 + SEG) {
                    assertEquals(before[i], after[i], "byte " + i);
                }
            }
            // with nothing to mark, the memory is left alone (the launch may be reading it)
            MemorySegment quiet = a.allocate(p.recordBytes(), 8);
            p.writeRecords(quiet, 0);
            byte[] q = quiet.toArray(ValueLayout.JAVA_BYTE);
            assertEquals(p.cells(), p.markRetries(quiet, 0, p.cells()));
            assertArrayEquals(q, quiet.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void aPlanWhoseRecordsWouldNotFitOneArrayIsRefused() {
        long k = 1L << 10;
        int n = (int) (InflateSplitPlan.MAX_SEGMENTS / (1 << 20)) + 1; // streams of 2^20 ranges of 8 KiB
        long[] enc = new long[n], dec = new long[n];
        java.util.Arrays.fill(enc, (8 * k) << 20);
        java.util.Arrays.fill(dec, (16 * k) << 20);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> InflateSplitPlan.of(8 * k, enc, dec));
        assertTrue(e.getMessage().contains("ranges"), e.getMessage());
    }
}
