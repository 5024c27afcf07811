// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.backend;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.buffer.Buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * One batch-assembly step of a training loader: copies whole planes (for ERA5-like data, one
 * {@code [lat, lon]} field of one channel at one time step) from a staging buffer of decoded
 * chunks into an output buffer, normalizing and converting each element on the way.
 *
 * <p>For every plane {@code p} and every {@code i < planeElements}:
 * <pre>
 *   x   = src[srcPlane[p] * planeElements + i]          (float32 or float64, little-endian)
 *   y   = isNaN(x) &amp;&amp; replaceNan ? nanValue : fma(x, scale[p], shift[p])
 *   dst[dstPlane[p] * planeElements + i] = convert(y)   (float32, float16 or bfloat16)
 * </pre>
 * Offsets are in elements of the respective type, from {@code srcOffset} / {@code dstOffset}
 * bytes into the buffers. The arithmetic is fixed so that every backend writes the same bytes:
 * a float32 source uses a single-rounding float32 fused multiply-add; a float64 source uses a
 * float64 fused multiply-add (with the float32 scale and shift widened) rounded once to float32.
 * float16 and bfloat16 are rounded to nearest, ties to even, from that float32; overflow gives
 * infinity. Every NaN result is written as the canonical quiet NaN of the output type
 * ({@code 0x7FC00000}, {@code 0x7E00}, {@code 0x7FC0}), so NaN payloads never differ between
 * backends. A {@code nanValue} replaces NaNs of the source, in output units (it is not normalized).
 * When two planes name the same output plane, the later one in the tables is what remains, on
 * every backend.
 *
 * <p>The constructor checks the geometry once: every plane index lies inside its buffer. The four
 * tables are kept as given, not copied, and the accessors return them as they are: do not change
 * them after construction, or the checked bounds no longer hold. A gather does not own its buffers;
 * both must stay open until {@link Backend#gather} returns.
 *
 * {@snippet :
 * // channel 0 of time steps 3 and 5 of a staging buffer of float32 [t, lat, lon] planes,
 * // normalized with mean 280 and std 15, into bfloat16 output planes 0 and 1
 * long plane = 721L * 1440;
 * PlaneGather g = new PlaneGather(staging, 0, DataType.FLOAT32, out, 0, PlaneGather.Output.BFLOAT16,
 *         plane, new long[] {3, 5}, new long[] {0, 1},
 *         new float[] {1 / 15f, 1 / 15f}, new float[] {-280 / 15f, -280 / 15f}, true, 0f);
 * backend.gather(g);
 * }
 *
 * @param src           staging memory, reachable by the backend that runs the gather
 * @param srcOffset     byte offset of element 0 of the source
 * @param srcType       {@link DataType#FLOAT32} or {@link DataType#FLOAT64}
 * @param dst           output memory, reachable by the same backend
 * @param dstOffset     byte offset of element 0 of the output
 * @param dstType       the output element type
 * @param planeElements elements in one plane (contiguous in source and output)
 * @param srcPlane      for each plane, its index in the source
 * @param dstPlane      for each plane, its index in the output
 * @param scale         for each plane, the factor (1/std; 1 for no normalization)
 * @param shift         for each plane, the offset (−mean/std; 0 for no normalization)
 * @param replaceNan    whether NaNs of the source become {@code nanValue}
 * @param nanValue      the replacement for NaN, when {@code replaceNan}
 */
public record PlaneGather(Buffer src, long srcOffset, DataType srcType, Buffer dst, long dstOffset, Output dstType,
                          long planeElements, long[] srcPlane, long[] dstPlane, float[] scale, float[] shift,
                          boolean replaceNan, float nanValue) {

    /** The element types a gather can write. */
    public enum Output {
        /** IEEE 754 single precision, 4 bytes; NaN written as {@code 0x7FC00000}. */
        FLOAT32(4),
        /** IEEE 754 half precision, 2 bytes; NaN written as {@code 0x7E00}. */
        FLOAT16(2),
        /** bfloat16 (the top half of a float32), 2 bytes; NaN written as {@code 0x7FC0}. */
        BFLOAT16(2);

        private final int byteSize;

        Output(int byteSize) {
            this.byteSize = byteSize;
        }

        /**
         * The size of one output element.
         *
         * @return the size in bytes: 4 or 2
         */
        public int byteSize() {
            return byteSize;
        }

        /**
         * The output type named {@code name} ({@code float32}, {@code float16}, {@code bfloat16}),
         * ignoring case.
         *
         * @param name the type's name
         * @return the output type
         * @throws IllegalArgumentException when no output type has that name
         */
        public static Output parse(String name) {
            for (Output o : values()) {
                if (o.name().equalsIgnoreCase(name)) {
                    return o;
                }
            }
            throw new IllegalArgumentException("unknown output type '" + name + "': float32, float16 or bfloat16");
        }
    }

    /**
     * Checks the geometry.
     *
     * @throws NullPointerException      when {@code src}, {@code dst}, {@code dstType} or a table is null
     * @throws IllegalArgumentException  when {@code srcType} is not float32 or float64, the tables
     *                                   differ in length, {@code planeElements} is not positive or an
     *                                   offset is negative
     * @throws IndexOutOfBoundsException when a source or output plane index lies outside its buffer
     */
    public PlaneGather {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(dst, "dst");
        Objects.requireNonNull(dstType, "dstType");
        if (!DataType.FLOAT32.equals(srcType) && !DataType.FLOAT64.equals(srcType)) {
            throw new IllegalArgumentException("a plane gather reads float32 or float64, not " + srcType);
        }
        int n = srcPlane.length;
        if (dstPlane.length != n || scale.length != n || shift.length != n) {
            throw new IllegalArgumentException("plane tables differ in length: " + n + " source, " + dstPlane.length
                    + " output, " + scale.length + " scales, " + shift.length + " shifts");
        }
        if (planeElements <= 0 || srcOffset < 0 || dstOffset < 0) {
            throw new IllegalArgumentException("bad plane gather geometry: " + planeElements + " elements a plane, offsets "
                    + srcOffset + " and " + dstOffset);
        }
        long srcPlanes = (src.byteSize() - srcOffset) / (planeElements * srcType.byteSize());
        long dstPlanes = (dst.byteSize() - dstOffset) / (planeElements * dstType.byteSize());
        for (int p = 0; p < n; p++) {
            if (srcPlane[p] < 0 || srcPlane[p] >= srcPlanes) {
                throw new IndexOutOfBoundsException("source plane " + srcPlane[p] + " of a buffer holding " + srcPlanes);
            }
            if (dstPlane[p] < 0 || dstPlane[p] >= dstPlanes) {
                throw new IndexOutOfBoundsException("output plane " + dstPlane[p] + " of a buffer holding " + dstPlanes);
            }
        }
    }

    /**
     * The number of planes the gather copies: the length of the tables.
     *
     * @return the plane count
     */
    public int planes() {
        return srcPlane.length;
    }

    /**
     * Bytes the gather reads plus bytes it writes, for throughput figures.
     *
     * @return {@code planes() * planeElements * (source element size + output element size)}
     */
    public long bytesMoved() {
        return planes() * planeElements * (srcType.byteSize() + (long) dstType.byteSize());
    }

    /**
     * Runs planes {@code [from, to)} (indexes into the tables) on the host, on the calling thread;
     * both buffers must be host-accessible.
     *
     * @param from the first plane, from 0
     * @param to   the plane after the last, at most {@link #planes()}
     * @throws UnsupportedOperationException when a buffer is not host-accessible
     * @throws IllegalStateException         when a buffer is closed
     * @throws IndexOutOfBoundsException     when the range is outside {@code [0, planes())}
     */
    public void runOnHost(int from, int to) {
        for (int p = from; p < to; p++) {
            runOnHost(p, 0, planeElements);
        }
    }

    /**
     * Runs elements {@code [from, to)} of plane {@code p} on the host (both buffers host-accessible):
     * the unit a parallel host backend splits the work into. One small method per pair of types,
     * so that each loop is compiled on its own (one method with all six loops runs the third type
     * it meets several times slower).
     *
     * <p>Nothing checks {@code from} and {@code to} against the plane: values outside
     * {@code [0, planeElements]} read and write neighbouring planes (within the buffers' bounds).
     *
     * @param p    the plane, an index into the tables
     * @param from the first element of the plane
     * @param to   the element after the last, at most {@link #planeElements()}
     * @throws UnsupportedOperationException when a buffer is not host-accessible
     * @throws IllegalStateException         when a buffer is closed
     */
    public void runOnHost(int p, long from, long to) {
        MemorySegment s = src.segment();
        MemorySegment d = dst.segment();
        long n = planeElements;
        float a = scale[p];
        float b = shift[p];
        long dO = dstOffset + dstPlane[p] * n * dstType.byteSize();
        if (DataType.FLOAT64.equals(srcType)) {
            long so = srcOffset + srcPlane[p] * n * 8;
            switch (dstType) {
                case FLOAT32 -> f64ToF32(s, so, d, dO, from, to, a, b, replaceNan, nanValue);
                case FLOAT16 -> f64ToF16(s, so, d, dO, from, to, a, b, replaceNan, nanValue);
                case BFLOAT16 -> f64ToBf16(s, so, d, dO, from, to, a, b, replaceNan, nanValue);
            }
        } else {
            long so = srcOffset + srcPlane[p] * n * 4;
            switch (dstType) {
                case FLOAT32 -> f32ToF32(s, so, d, dO, from, to, a, b, replaceNan, nanValue);
                case FLOAT16 -> f32ToF16(s, so, d, dO, from, to, a, b, replaceNan, nanValue);
                case BFLOAT16 -> f32ToBf16(s, so, d, dO, from, to, a, b, replaceNan, nanValue);
            }
        }
    }

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;

    private static void f32ToF32(MemorySegment s, long so, MemorySegment d, long dO, long from, long to, float a,
                                 float b, boolean rep, float nan) {
        for (long i = from; i < to; i++) {
            d.set(I32, dO + i * 4, f32Bits(y32(s.get(F32, so + i * 4), a, b, rep, nan)));
        }
    }

    private static void f32ToF16(MemorySegment s, long so, MemorySegment d, long dO, long from, long to, float a,
                                 float b, boolean rep, float nan) {
        for (long i = from; i < to; i++) {
            d.set(I16, dO + i * 2, toHalf(y32(s.get(F32, so + i * 4), a, b, rep, nan)));
        }
    }

    private static void f32ToBf16(MemorySegment s, long so, MemorySegment d, long dO, long from, long to, float a,
                                  float b, boolean rep, float nan) {
        for (long i = from; i < to; i++) {
            d.set(I16, dO + i * 2, toBfloat16(y32(s.get(F32, so + i * 4), a, b, rep, nan)));
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
            d.set(I16, dO + i * 2, toHalf(y64(s.get(F64, so + i * 8), a, b, rep, nan)));
        }
    }

    private static void f64ToBf16(MemorySegment s, long so, MemorySegment d, long dO, long from, long to, float a,
                                  float b, boolean rep, float nan) {
        for (long i = from; i < to; i++) {
            d.set(I16, dO + i * 2, toBfloat16(y64(s.get(F64, so + i * 8), a, b, rep, nan)));
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

    /**
     * float32 to IEEE half, round to nearest even; overflow gives infinity; NaN is {@code 0x7E00}.
     *
     * @param y the value
     * @return the half's bits
     */
    public static short toHalf(float y) {
        return Float.isNaN(y) ? (short) 0x7E00 : Float.floatToFloat16(y);
    }

    /**
     * float32 to bfloat16, round to nearest even; overflow gives infinity; NaN is {@code 0x7FC0}.
     *
     * @param y the value
     * @return the bfloat16's bits (the top 16 bits of the rounded float32)
     */
    public static short toBfloat16(float y) {
        if (Float.isNaN(y)) {
            return (short) 0x7FC0;
        }
        int bits = Float.floatToRawIntBits(y);
        int rounded = bits + 0x7FFF + ((bits >>> 16) & 1);
        return (short) (rounded >>> 16);
    }
}
