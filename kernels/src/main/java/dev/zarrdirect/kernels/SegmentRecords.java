// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The split's segment records ({@code zd_infs_seg}, {@link KernelContract#ZD_INFS_SEG_BYTES} each)
 * as a Java {@code int[]}, moved to and from the memory the launches read in one bulk copy each way.
 *
 * <p>Why not read and write the fields in place: each memory-segment access goes through a var
 * handle whose checks the interpreter and the first compiled code pay in full (microseconds an
 * access), and a batch of 128 streams has some 11,600 records. On an H200 host the first passes of
 * a device read spent 80-90 ms a batch in those loops (JFR: the two threads whose batches ended 80
 * ms after the first's), which made the device's first timed passes half its rate, and the timed
 * choice between device and host timed it then (docs/performance.md, "The device's cold passes").
 * Plain array indexing costs nanoseconds from the first call.
 *
 * <p>The device's layout is little-endian: the copies say so, and a long field is its two ints, low
 * first. Every field offset is a multiple of 4 and every long one of 8, so the record array is
 * indexed in ints.
 */
final class SegmentRecords {

    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int INTS = (int) (KernelContract.ZD_INFS_SEG_BYTES / 4);

    private final int[] ints;

    private SegmentRecords(int[] ints) {
        this.ints = ints;
    }

    /** {@code segments} records, all zero. */
    static SegmentRecords zeroed(int segments) {
        return new SegmentRecords(new int[Math.multiplyExact(segments, INTS)]);
    }

    /** A copy of the {@code segments} records at {@code at} of {@code host}. */
    static SegmentRecords readFrom(MemorySegment host, long at, int segments) {
        SegmentRecords r = zeroed(segments);
        MemorySegment.copy(host, LE_INT, at, r.ints, 0, r.ints.length);
        return r;
    }

    /** Copies every record to {@code at} of {@code host}. */
    void writeTo(MemorySegment host, long at) {
        MemorySegment.copy(ints, 0, host, LE_INT, at, ints.length);
    }

    int getInt(int rec, long fieldAt) {
        return ints[index(rec, fieldAt)];
    }

    void setInt(int rec, long fieldAt, int v) {
        ints[index(rec, fieldAt)] = v;
    }

    long getLong(int rec, long fieldAt) {
        int i = index(rec, fieldAt);
        return (ints[i] & 0xFFFF_FFFFL) | (long) ints[i + 1] << 32;
    }

    void setLong(int rec, long fieldAt, long v) {
        int i = index(rec, fieldAt);
        ints[i] = (int) v;
        ints[i + 1] = (int) (v >>> 32);
    }

    private static int index(int rec, long fieldAt) {
        return rec * INTS + (int) (fieldAt >> 2);
    }
}
