// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns strided boxes into the descriptor rows of {@code zd_copy_regions} and
 * {@code zd_fill_regions} (see {@code zd_backend.cl}): the element becomes an innermost byte
 * dimension, extent-1 dimensions are dropped, neighbours contiguous in both layouts are merged,
 * then the widest unit (8, 4, 2 or 1 bytes) that divides every offset, stride and the innermost
 * run is chosen. Boxes that still have more than {@link #MAX_RANK} dimensions are split along
 * their outermost ones into several rows.
 */
public final class RegionDescriptors {

    /** The most dimensions a row describes; {@code ZD_MAX_RANK} in the kernel. */
    public static final int MAX_RANK = 8;
    /** ulong words per row; {@code ZD_DESC_WORDS} in the kernel. */
    public static final int WORDS = 5 + 3 * MAX_RANK;

    private final List<long[]> rows = new ArrayList<>();
    private long maxUnits;

    /**
     * Adds the copy of a box of {@code extent} elements of {@code elemSize} bytes from byte
     * {@code srcOff} (strides {@code srcStrides}) to byte {@code dstOff} (strides {@code dstStrides});
     * the offsets are absolute within the kernel's buffers. For a fill pass the destination twice.
     */
    public void add(long srcOff, long[] srcStrides, long dstOff, long[] dstStrides, long[] extent, int elemSize,
                    boolean fill) {
        for (long e : extent) {
            if (e == 0) {
                return;
            }
        }
        int r = extent.length;
        long[] e = new long[r + 1];
        long[] ss = new long[r + 1];
        long[] ds = new long[r + 1];
        int n = 0;
        for (int i = 0; i < r; i++) {
            if (extent[i] == 1) {
                continue;
            }
            e[n] = extent[i];
            ss[n] = srcStrides[i];
            ds[n] = dstStrides[i];
            n++;
        }
        e[n] = elemSize;
        ss[n] = 1;
        ds[n] = 1;
        n++;
        // Merge from the inside out: dimension i folds into i+1 when contiguous in both layouts.
        long[] me = new long[n];
        long[] ms = new long[n];
        long[] md = new long[n];
        int m = 0;
        for (int i = n - 1; i >= 0; i--) {
            if (m > 0 && ds[i] == md[m - 1] * me[m - 1] && (fill || ss[i] == ms[m - 1] * me[m - 1])) {
                me[m - 1] *= e[i];
            } else {
                me[m] = e[i];
                ms[m] = ss[i];
                md[m] = ds[i];
                m++;
            }
        }
        // Reverse into outermost-first order.
        long[] fe = new long[m];
        long[] fs = new long[m];
        long[] fd = new long[m];
        for (int i = 0; i < m; i++) {
            fe[i] = me[m - 1 - i];
            fs[i] = ms[m - 1 - i];
            fd[i] = md[m - 1 - i];
        }
        // fe[m-1] is a byte run with stride 1 in both; choose the unit width.
        int w = 8;
        while (w > 1 && !fits(w, srcOff, dstOff, fe, fs, fd, fill, elemSize)) {
            w >>= 1;
        }
        fe[m - 1] /= w;
        fs[m - 1] = w;
        fd[m - 1] = w;
        split(srcOff, dstOff, fe, fs, fd, w, fill);
    }

    private static boolean fits(int w, long so, long dof, long[] e, long[] s, long[] d, boolean fill, int elemSize) {
        if (fill && w % elemSize != 0 && elemSize % w != 0) {
            return false;
        }
        if (e[e.length - 1] % w != 0 || dof % w != 0 || !fill && so % w != 0) {
            return false;
        }
        for (int i = 0; i < e.length - 1; i++) {
            if (d[i] % w != 0 || !fill && s[i] % w != 0) {
                return false;
            }
        }
        return true;
    }

    private void split(long so, long dof, long[] e, long[] s, long[] d, int w, boolean fill) {
        int r = e.length;
        if (r > MAX_RANK) {
            long[] ie = java.util.Arrays.copyOfRange(e, 1, r);
            long[] is = java.util.Arrays.copyOfRange(s, 1, r);
            long[] id = java.util.Arrays.copyOfRange(d, 1, r);
            for (long i = 0; i < e[0]; i++) {
                split(so + i * s[0], dof + i * d[0], ie, is, id, w, fill);
            }
            return;
        }
        long[] row = new long[WORDS];
        long count = 1;
        for (long x : e) {
            count = Math.multiplyExact(count, x);
        }
        row[0] = fill ? 0 : so;
        row[1] = dof;
        row[2] = count;
        row[3] = r;
        row[4] = w;
        for (int i = 0; i < r; i++) {
            row[5 + i] = e[i];
            row[5 + MAX_RANK + i] = fill ? 0 : s[i];
            row[5 + 2 * MAX_RANK + i] = d[i];
        }
        rows.add(row);
        maxUnits = Math.max(maxUnits, count);
    }

    public int size() {
        return rows.size();
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    /** The largest unit count of any row, to size the launch. */
    public long maxUnits() {
        return maxUnits;
    }

    /** Writes the rows from byte {@code offset} of {@code table}. */
    public void writeTo(MemorySegment table, long offset) {
        for (int i = 0; i < rows.size(); i++) {
            MemorySegment.copy(rows.get(i), 0, table, ValueLayout.JAVA_LONG_UNALIGNED, offset + (long) i * WORDS * 8,
                    WORDS);
        }
    }

    /** Bytes of the rows in a table. */
    public long tableBytes() {
        return (long) rows.size() * WORDS * 8;
    }
}
