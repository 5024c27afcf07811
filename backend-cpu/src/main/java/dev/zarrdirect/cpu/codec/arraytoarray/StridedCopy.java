// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.arraytoarray;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Copies a strided view of one packed array into another packed (C-order) array: the kernel of
 * {@link TransposeCodec}. The layout is simplified first (axes of extent 1 dropped, axes adjacent
 * in both arrays merged), then one of three loops runs:
 * <ul>
 *   <li>the last axis is contiguous in the input: whole rows move with {@link MemorySegment#copy};</li>
 *   <li>another axis is contiguous in the input: 2-D tiles of that axis and the last one, so reads
 *       and writes both stay within a few cache lines (the classic blocked transpose);</li>
 *   <li>otherwise: a strided loop over the last axis.</li>
 * </ul>
 * Inner loops are specialised by element size (1, 2, 4, 8, 16 bytes), never a call per element.
 */
final class StridedCopy {

    private static final int TILE = 32;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private StridedCopy() {
    }

    /**
     * Writes {@code out} in C order over {@code shape}; the element at output index {@code idx} comes
     * from input byte offset {@code sum(idx[i] * inStrides[i])}.
     *
     * @param inStrides input strides in elements, one per output axis
     */
    static void copy(MemorySegment in, MemorySegment out, long[] shape, long[] inStrides, int elem) {
        int rank = shape.length;
        long[] s = new long[rank];
        long[] is = new long[rank];
        int m = 0;
        for (int i = 0; i < rank; i++) {
            if (shape[i] == 0) {
                return;
            }
            if (shape[i] == 1) {
                continue;
            }
            long stride = inStrides[i] * elem;
            if (m > 0 && is[m - 1] == stride * shape[i]) {
                s[m - 1] *= shape[i];
                is[m - 1] = stride;
            } else {
                s[m] = shape[i];
                is[m] = stride;
                m++;
            }
        }
        if (m == 0) {
            MemorySegment.copy(in, 0, out, 0, elem);
            return;
        }
        long[] os = new long[m];
        long acc = elem;
        for (int i = m - 1; i >= 0; i--) {
            os[i] = acc;
            acc *= s[i];
        }
        int last = m - 1;
        if (is[last] == elem) {
            long run = s[last] * elem;
            outer(s, is, os, last, -1, (io, oo) -> MemorySegment.copy(in, io, out, oo, run));
            return;
        }
        int k = -1;
        for (int i = last - 1; i >= 0; i--) {
            if (is[i] == elem) {
                k = i;
                break;
            }
        }
        long n = s[last];
        long isB = is[last];
        if (k < 0) {
            outer(s, is, os, last, -1, (io, oo) -> strided(in, io, isB, out, oo, elem, n, elem));
            return;
        }
        long nA = s[k];
        long osA = os[k];
        outer(s, is, os, last, k, (io, oo) -> {
            for (long a0 = 0; a0 < nA; a0 += TILE) {
                long aEnd = Math.min(nA, a0 + TILE);
                for (long b0 = 0; b0 < n; b0 += TILE) {
                    long bLen = Math.min(n - b0, TILE);
                    for (long a = a0; a < aEnd; a++) {
                        strided(in, io + a * elem + b0 * isB, isB, out, oo + a * osA + b0 * elem, elem, bLen, elem);
                    }
                }
            }
        });
    }

    @FunctionalInterface
    private interface Body {
        void run(long inOffset, long outOffset);
    }

    /** Calls {@code body} for every index of the axes before {@code last}, skipping axis {@code skip}. */
    private static void outer(long[] s, long[] is, long[] os, int last, int skip, Body body) {
        long[] idx = new long[last];
        long io = 0;
        long oo = 0;
        while (true) {
            body.run(io, oo);
            int ax = last - 1;
            while (ax >= 0) {
                if (ax == skip) {
                    ax--;
                    continue;
                }
                if (++idx[ax] < s[ax]) {
                    io += is[ax];
                    oo += os[ax];
                    break;
                }
                io -= is[ax] * (s[ax] - 1);
                oo -= os[ax] * (s[ax] - 1);
                idx[ax] = 0;
                ax--;
            }
            if (ax < 0) {
                return;
            }
        }
    }

    /** {@code n} elements of {@code elem} bytes from {@code in} every {@code is} bytes to {@code out} every {@code os} bytes. */
    static void strided(MemorySegment in, long io, long is, MemorySegment out, long oo, long os, long n, int elem) {
        switch (elem) {
            case 1 -> {
                for (long j = 0; j < n; j++) {
                    out.set(ValueLayout.JAVA_BYTE, oo + j * os, in.get(ValueLayout.JAVA_BYTE, io + j * is));
                }
            }
            case 2 -> {
                for (long j = 0; j < n; j++) {
                    out.set(I16, oo + j * os, in.get(I16, io + j * is));
                }
            }
            case 4 -> {
                for (long j = 0; j < n; j++) {
                    out.set(I32, oo + j * os, in.get(I32, io + j * is));
                }
            }
            case 8 -> {
                for (long j = 0; j < n; j++) {
                    out.set(I64, oo + j * os, in.get(I64, io + j * is));
                }
            }
            case 16 -> {
                for (long j = 0; j < n; j++) {
                    long src = io + j * is;
                    long dst = oo + j * os;
                    out.set(I64, dst, in.get(I64, src));
                    out.set(I64, dst + 8, in.get(I64, src + 8));
                }
            }
            default -> {
                for (long j = 0; j < n; j++) {
                    MemorySegment.copy(in, io + j * is, out, oo + j * os, elem);
                }
            }
        }
    }
}
