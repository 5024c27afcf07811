// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import java.lang.foreign.MemorySegment;

/**
 * Copies and fills n-dimensional boxes between host segments laid out with arbitrary byte strides.
 * Dimensions that are contiguous in both layouts are merged first, so that the common cases
 * (whole rows, whole planes) become a few large {@link MemorySegment#copy} calls.
 *
 * <p>All offsets and strides are in bytes, extents in elements. Nothing is checked up front: a box
 * that reaches outside a segment fails in {@link MemorySegment#copy} with
 * {@link IndexOutOfBoundsException}, possibly after part of the box was written. Stateless and
 * thread-safe; callers must not copy between overlapping boxes.
 */
public final class StridedCopy {
    private StridedCopy() {
    }

    /**
     * Byte strides of a C-order array of {@code shape} with {@code elemSize}-byte elements: the last
     * dimension has stride {@code elemSize}. Not checked for overflow.
     *
     * @param shape    the extents, in elements
     * @param elemSize the element size, in bytes
     * @return a new array of the same length as {@code shape}
     */
    public static long[] cByteStrides(long[] shape, int elemSize) {
        long[] st = new long[shape.length];
        long s = elemSize;
        for (int i = shape.length - 1; i >= 0; i--) {
            st[i] = s;
            s *= shape[i];
        }
        return st;
    }

    /**
     * Copies the box of {@code extent} elements from {@code src} (starting at byte {@code srcOff},
     * laid out with {@code srcStrides} bytes per step in each dimension) to {@code dst}. An extent
     * with a zero copies nothing; rank 0 copies one element.
     *
     * @param src        the segment read
     * @param srcOff     byte offset of the box's first element in {@code src}
     * @param srcStrides byte stride of each dimension in {@code src}
     * @param dst        the segment written
     * @param dstOff     byte offset of the box's first element in {@code dst}
     * @param dstStrides byte stride of each dimension in {@code dst}
     * @param extent     elements along each dimension; same length as both stride arrays
     * @param elemSize   the element size, in bytes
     * @throws IndexOutOfBoundsException when the box reaches outside either segment
     * @throws IllegalStateException     when a segment's scope is closed
     */
    public static void copy(MemorySegment src, long srcOff, long[] srcStrides,
                            MemorySegment dst, long dstOff, long[] dstStrides, long[] extent, int elemSize) {
        for (long e : extent) {
            if (e == 0) {
                return;
            }
        }
        long[][] m = merge(extent, srcStrides, dstStrides, elemSize);
        long[] ext = m[0];
        long[] ss = m[1];
        long[] ds = m[2];
        int r = ext.length;
        if (r == 0) {
            MemorySegment.copy(src, srcOff, dst, dstOff, elemSize);
            return;
        }
        boolean innerContiguous = ss[r - 1] == elemSize && ds[r - 1] == elemSize;
        long run = innerContiguous ? ext[r - 1] * elemSize : elemSize;
        int outer = innerContiguous ? r - 1 : r;
        long[] idx = new long[outer];
        long so = srcOff;
        long dof = dstOff;
        while (true) {
            MemorySegment.copy(src, so, dst, dof, run);
            // Odometer increment over the outer dimensions.
            int d = outer - 1;
            while (d >= 0) {
                idx[d]++;
                so += ss[d];
                dof += ds[d];
                if (idx[d] < ext[d]) {
                    break;
                }
                so -= ss[d] * ext[d];
                dof -= ds[d] * ext[d];
                idx[d] = 0;
                d--;
            }
            if (d < 0) {
                return;
            }
        }
    }

    /**
     * Fills the box of {@code extent} elements in {@code dst} with {@code pattern}, one element's
     * bytes (a fill value as stored, little-endian). An all-zero pattern becomes a plain zero fill.
     *
     * @param dst        the segment written
     * @param dstOff     byte offset of the box's first element
     * @param dstStrides byte stride of each dimension
     * @param extent     elements along each dimension; same length as {@code dstStrides}
     * @param pattern    one element's bytes; its size is the element size
     * @throws IndexOutOfBoundsException when the box reaches outside {@code dst}
     */
    public static void fill(MemorySegment dst, long dstOff, long[] dstStrides, long[] extent, MemorySegment pattern) {
        int elemSize = (int) pattern.byteSize();
        for (long e : extent) {
            if (e == 0) {
                return;
            }
        }
        long[][] m = merge(extent, dstStrides, dstStrides, elemSize);
        long[] ext = m[0];
        long[] ds = m[1];
        int r = ext.length;
        boolean innerContiguous = r > 0 && ds[r - 1] == elemSize;
        long runElems = innerContiguous ? ext[r - 1] : 1;
        int outer = innerContiguous ? r - 1 : r;
        boolean zero = isZero(pattern);
        long[] idx = new long[outer];
        long dof = dstOff;
        while (true) {
            fillRun(dst, dof, runElems, pattern, zero);
            int d = outer - 1;
            while (d >= 0) {
                idx[d]++;
                dof += ds[d];
                if (idx[d] < ext[d]) {
                    break;
                }
                dof -= ds[d] * ext[d];
                idx[d] = 0;
                d--;
            }
            if (d < 0) {
                return;
            }
        }
    }

    /**
     * Writes {@code count} contiguous copies of {@code pattern} at {@code off}, doubling the filled
     * block with each copy so that a run of n elements takes about log2(n) copies.
     *
     * @param dst     the segment written
     * @param off     byte offset of the first copy
     * @param count   the number of copies (elements), not bytes
     * @param pattern one element's bytes
     * @param zero    true when the caller knows {@code pattern} is all zeros ({@link #isZero}), which
     *                turns the run into one {@link MemorySegment#fill}; a wrong {@code true} writes zeros
     * @throws IndexOutOfBoundsException when the run reaches outside {@code dst}
     */
    public static void fillRun(MemorySegment dst, long off, long count, MemorySegment pattern, boolean zero) {
        long elem = pattern.byteSize();
        long total = count * elem;
        if (total == 0) {
            return;
        }
        if (zero) {
            dst.asSlice(off, total).fill((byte) 0);
            return;
        }
        MemorySegment.copy(pattern, 0, dst, off, elem);
        long done = elem;
        while (done < total) {
            long n = Math.min(done, total - done);
            MemorySegment.copy(dst, off, dst, off + done, n);
            done += n;
        }
    }

    /**
     * Whether every byte of {@code s} is zero (true for an empty segment).
     *
     * @param s the bytes to test
     * @return true when all bytes are zero
     */
    public static boolean isZero(MemorySegment s) {
        for (long i = 0; i < s.byteSize(); i++) {
            if (s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Drops extent-1 dimensions and merges neighbours that are contiguous in both layouts. */
    private static long[][] merge(long[] extent, long[] a, long[] b, int elemSize) {
        int n = 0;
        long[] e = new long[extent.length];
        long[] sa = new long[extent.length];
        long[] sb = new long[extent.length];
        for (int i = 0; i < extent.length; i++) {
            if (extent[i] == 1) {
                continue;
            }
            if (n > 0 && sa[n - 1] == a[i] * extent[i] && sb[n - 1] == b[i] * extent[i]) {
                e[n - 1] *= extent[i];
                sa[n - 1] = a[i];
                sb[n - 1] = b[i];
            } else {
                e[n] = extent[i];
                sa[n] = a[i];
                sb[n] = b[i];
                n++;
            }
        }
        return new long[][]{java.util.Arrays.copyOf(e, n), java.util.Arrays.copyOf(sa, n), java.util.Arrays.copyOf(sb, n)};
    }
}
