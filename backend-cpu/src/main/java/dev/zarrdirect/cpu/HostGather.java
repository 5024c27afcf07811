// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.backend.PlaneGather;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * {@link PlaneGather} on host memory with every core: the planes are cut into pieces of
 * {@value #PIECE} elements, run in parallel on the common {@link java.util.concurrent.ForkJoinPool}
 * (the calling thread takes part). Each piece runs a loop specialised to its source and output
 * types with exactly {@link PlaneGather#runOnHost}'s arithmetic, so the bytes are the same.
 *
 * <p>Where several planes name the same output plane only the last of them runs: that is the plane
 * the sequential reference leaves there, and no two pieces then write the same bytes. The source
 * and the output must not overlap.
 */
final class HostGather {

    /** Elements per piece: 256 KiB of float32 source, large enough that a task is worth its scheduling. */
    static final long PIECE = 1 << 16;
    /** Below this many elements in all, the calling thread does everything. */
    static final long PARALLEL_MIN = 1 << 17;

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;

    private HostGather() {
    }

    /** Runs {@code g}, whose buffers' segments are {@code src} and {@code dst}; returns when it is written. */
    static void run(PlaneGather g, MemorySegment src, MemorySegment dst) {
        int[] writers = writers(g.dstPlane());
        long n = g.planeElements();
        long piecesPerPlane = (n + PIECE - 1) / PIECE;
        long pieces = writers.length * piecesPerPlane;
        if (writers.length * n < PARALLEL_MIN || pieces == 1) {
            for (int p : writers) {
                range(g, src, dst, p, 0, n);
            }
            return;
        }
        if (pieces > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a gather of " + writers.length + " planes of " + n
                    + " elements has too many pieces of " + PIECE + " elements");
        }
        IntStream.range(0, (int) pieces).parallel().forEach(k -> {
            int p = writers[(int) (k / piecesPerPlane)];
            long from = (k % piecesPerPlane) * PIECE;
            range(g, src, dst, p, from, Math.min(n, from + PIECE));
        });
    }

    /** Every plane but those whose output plane a later plane also names, in order. */
    static int[] writers(long[] dstPlane) {
        Set<Long> seen = new HashSet<>();
        boolean[] keep = new boolean[dstPlane.length];
        int kept = 0;
        for (int p = dstPlane.length - 1; p >= 0; p--) {
            if (seen.add(dstPlane[p])) {
                keep[p] = true;
                kept++;
            }
        }
        int[] out = new int[kept];
        for (int p = 0, k = 0; p < dstPlane.length; p++) {
            if (keep[p]) {
                out[k++] = p;
            }
        }
        return out;
    }

    /**
     * Elements {@code [from, to)} of plane {@code p}: one small method per pair of types, so that
     * each loop is compiled on its own (one method with all six loops runs the third type it meets
     * several times slower).
     */
    static void range(PlaneGather g, MemorySegment s, MemorySegment d, int p, long from, long to) {
        long n = g.planeElements();
        float a = g.scale()[p];
        float b = g.shift()[p];
        boolean rep = g.replaceNan();
        float nan = g.nanValue();
        long dO = g.dstOffset() + g.dstPlane()[p] * n * g.dstType().byteSize();
        if (DataType.FLOAT64.equals(g.srcType())) {
            long so = g.srcOffset() + g.srcPlane()[p] * n * 8;
            switch (g.dstType()) {
                case FLOAT32 -> f64ToF32(s, so, d, dO, from, to, a, b, rep, nan);
                case FLOAT16 -> f64ToF16(s, so, d, dO, from, to, a, b, rep, nan);
                case BFLOAT16 -> f64ToBf16(s, so, d, dO, from, to, a, b, rep, nan);
            }
        } else {
            long so = g.srcOffset() + g.srcPlane()[p] * n * 4;
            switch (g.dstType()) {
                case FLOAT32 -> f32ToF32(s, so, d, dO, from, to, a, b, rep, nan);
                case FLOAT16 -> f32ToF16(s, so, d, dO, from, to, a, b, rep, nan);
                case BFLOAT16 -> f32ToBf16(s, so, d, dO, from, to, a, b, rep, nan);
            }
        }
    }

    private static void f32ToF32(MemorySegment s, long so, MemorySegment d, long dO, long from, long to, float a,
                                 float b, boolean rep, float nan) {
        for (long i = from; i < to; i++) {
            d.set(I32, dO + i * 4, f32Bits(y32(s.get(F32, so + i * 4), a, b, rep, nan)));
        }
    }

    private static void f32ToF16(MemorySegment s, long so, MemorySegment d, long dO, long from, long to, float a,
                                 float b, boolean rep, float nan) {
        for (long i = from; i < to; i++) {
            d.set(I16, dO + i * 2, PlaneGather.toHalf(y32(s.get(F32, so + i * 4), a, b, rep, nan)));
        }
    }

    private static void f32ToBf16(MemorySegment s, long so, MemorySegment d, long dO, long from, long to, float a,
                                  float b, boolean rep, float nan) {
        for (long i = from; i < to; i++) {
            d.set(I16, dO + i * 2, PlaneGather.toBfloat16(y32(s.get(F32, so + i * 4), a, b, rep, nan)));
        }
    }

    private static void f64ToF32(MemorySegment s, long so, MemorySegment d, long dO, long from, long to, float a,
                                 float b, boolean rep, float nan) {
        for (long i = from; i < to; i++) {
            d.set(I32, dO + i * 4, f32Bits(y64(s.get(F64, so + i * 8), a, b, rep, nan)));
        }
    }

    private static void f64ToF16(MemorySegment s, long so, MemorySegment d, long dO, long from, long to, float a,
                                 float b, boolean rep, float nan) {
        for (long i = from; i < to; i++) {
            d.set(I16, dO + i * 2, PlaneGather.toHalf(y64(s.get(F64, so + i * 8), a, b, rep, nan)));
        }
    }

    private static void f64ToBf16(MemorySegment s, long so, MemorySegment d, long dO, long from, long to, float a,
                                  float b, boolean rep, float nan) {
        for (long i = from; i < to; i++) {
            d.set(I16, dO + i * 2, PlaneGather.toBfloat16(y64(s.get(F64, so + i * 8), a, b, rep, nan)));
        }
    }

    private static float y32(float x, float a, float b, boolean rep, float nan) {
        return rep && Float.isNaN(x) ? nan : Math.fma(x, a, b);
    }

    private static float y64(double x, float a, float b, boolean rep, float nan) {
        return rep && Double.isNaN(x) ? nan : (float) Math.fma(x, a, (double) b);
    }

    private static int f32Bits(float y) {
        return Float.isNaN(y) ? 0x7FC00000 : Float.floatToRawIntBits(y);
    }
}
