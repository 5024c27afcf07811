// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.backend;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link PlaneGather#runOnHost}, the reference every backend matches, against arithmetic worked out by
 * hand or done another way: exact products and sums in BigDecimal, rounded once; rounding ties of
 * float16 and bfloat16 written out bit by bit.
 */
class PlaneGatherTest {

    static final long SEED = Long.getLong("zd.seed", System.nanoTime());

    static {
        System.out.println("PlaneGatherTest: seed " + SEED + " (replay with -Dzd.seed=" + SEED + ")");
    }

    // ------------------------------------------------------------------ conversions, by hand

    @Test
    void float16RoundsTiesToEvenAndOverflowsToInfinity() {
        // 1 + 2^-11 lies halfway between 1 (mantissa 0, even) and 1 + 2^-10 (mantissa 1): down
        assertEquals(0x3C00, PlaneGather.toHalf(1f + 0x1p-11f) & 0xFFFF);
        // 1 + 3 * 2^-11 lies halfway between mantissa 1 (odd) and mantissa 2: up
        assertEquals(0x3C02, PlaneGather.toHalf(1f + 3 * 0x1p-11f) & 0xFFFF);
        assertEquals(0x3C01, PlaneGather.toHalf(Math.nextUp(1f + 0x1p-11f)) & 0xFFFF);
        // the largest half is 65504 (0x7BFF); 65520 is the tie between it and 65536 (infinity): even, up
        assertEquals(0x7BFF, PlaneGather.toHalf(Math.nextDown(65520f)) & 0xFFFF);
        assertEquals(0x7C00, PlaneGather.toHalf(65520f) & 0xFFFF);
        assertEquals(0xFC00, PlaneGather.toHalf(-65520f) & 0xFFFF);
        assertEquals(0x7C00, PlaneGather.toHalf(Float.MAX_VALUE) & 0xFFFF);
        assertEquals(0xFC00, PlaneGather.toHalf(Float.NEGATIVE_INFINITY) & 0xFFFF);
        // subnormal halves are multiples of 2^-24: 2^-25 is the tie between 0 and 2^-24 (even: 0)
        assertEquals(0x0001, PlaneGather.toHalf(0x1p-24f) & 0xFFFF);
        assertEquals(0x0000, PlaneGather.toHalf(0x1p-25f) & 0xFFFF);
        assertEquals(0x8000, PlaneGather.toHalf(-0x1p-25f) & 0xFFFF);
        assertEquals(0x0001, PlaneGather.toHalf(Math.nextUp(0x1p-25f)) & 0xFFFF);
        assertEquals(0x0002, PlaneGather.toHalf(3 * 0x1p-25f) & 0xFFFF); // tie between 1 and 2: 2
        assertEquals(0x0002, PlaneGather.toHalf(5 * 0x1p-25f) & 0xFFFF); // tie between 2 and 3: 2
        assertEquals(0x0400, PlaneGather.toHalf(0x1p-14f) & 0xFFFF);     // the smallest normal
        assertEquals(0x0000, PlaneGather.toHalf(Float.MIN_VALUE) & 0xFFFF);
        assertEquals(0x8000, PlaneGather.toHalf(-0f) & 0xFFFF);
        // every NaN, whatever its sign and payload, is 0x7E00
        assertEquals(0x7E00, PlaneGather.toHalf(Float.intBitsToFloat(0xFFC12345)) & 0xFFFF);
        assertEquals(0x7E00, PlaneGather.toHalf(Float.intBitsToFloat(0x7F800001)) & 0xFFFF);
    }

    @Test
    void bfloat16RoundsTiesToEvenAndOverflowsToInfinity() {
        // bfloat16 keeps the top 16 bits: a tie is 0x8000 in the bits dropped
        assertEquals(0x3F80, PlaneGather.toBfloat16(Float.intBitsToFloat(0x3F808000)) & 0xFFFF); // even: down
        assertEquals(0x3F82, PlaneGather.toBfloat16(Float.intBitsToFloat(0x3F818000)) & 0xFFFF); // odd: up
        assertEquals(0x3F81, PlaneGather.toBfloat16(Float.intBitsToFloat(0x3F817FFF)) & 0xFFFF);
        assertEquals(0x3F81, PlaneGather.toBfloat16(Float.intBitsToFloat(0x3F808001)) & 0xFFFF);
        assertEquals(0xBF82, PlaneGather.toBfloat16(Float.intBitsToFloat(0xBF818000)) & 0xFFFF);
        // 1 + 2^-8 is the tie between 1 and 1 + 2^-7
        assertEquals(0x3F80, PlaneGather.toBfloat16(1f + 0x1p-8f) & 0xFFFF);
        // the largest float rounds up to infinity; infinity stays
        assertEquals(0x7F80, PlaneGather.toBfloat16(Float.MAX_VALUE) & 0xFFFF);
        assertEquals(0xFF80, PlaneGather.toBfloat16(-Float.MAX_VALUE) & 0xFFFF);
        assertEquals(0x7F7F, PlaneGather.toBfloat16(Float.intBitsToFloat(0x7F7F7FFF)) & 0xFFFF);
        assertEquals(0x7F80, PlaneGather.toBfloat16(Float.POSITIVE_INFINITY) & 0xFFFF);
        // float subnormals round like any other bits
        assertEquals(0x0002, PlaneGather.toBfloat16(Float.intBitsToFloat(0x00018000)) & 0xFFFF); // odd: up
        assertEquals(0x0000, PlaneGather.toBfloat16(Float.intBitsToFloat(0x00008000)) & 0xFFFF); // even: down
        assertEquals(0x8000, PlaneGather.toBfloat16(-0f) & 0xFFFF);
        assertEquals(0x7FC0, PlaneGather.toBfloat16(Float.intBitsToFloat(0xFFC12345)) & 0xFFFF);
        assertEquals(0x7FC0, PlaneGather.toBfloat16(Float.intBitsToFloat(0x7F800001)) & 0xFFFF);
    }

    // ------------------------------------------------------------------ runOnHost

    /** One plane of {@code xs} through runOnHost; the output bits of each element. */
    static int[] gather(Object xs, float scale, float shift, PlaneGather.Output out, boolean replace, float nan) {
        boolean f64 = xs instanceof double[];
        int n = f64 ? ((double[]) xs).length : ((float[]) xs).length;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate((f64 ? 8L : 4L) * n + 3);
            MemorySegment d = a.allocate((long) out.byteSize() * n + 5);
            for (int i = 0; i < n; i++) {
                if (f64) {
                    s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 3 + 8L * i, ((double[]) xs)[i]);
                } else {
                    s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 3 + 4L * i, ((float[]) xs)[i]);
                }
            }
            var src = HostBuffer.of(s, MemoryKind.HOST, Device.CPU, () -> { });
            var dst = HostBuffer.of(d, MemoryKind.HOST, Device.CPU, () -> { });
            PlaneGather g = new PlaneGather(src, 3, f64 ? DataType.FLOAT64 : DataType.FLOAT32, dst, 5, out, n,
                    new long[]{0}, new long[]{0}, new float[]{scale}, new float[]{shift}, replace, nan);
            g.runOnHost(0, 1);
            int[] bits = new int[n];
            for (int i = 0; i < n; i++) {
                bits[i] = out == PlaneGather.Output.FLOAT32 ? d.get(ValueLayout.JAVA_INT_UNALIGNED, 5 + 4L * i)
                        : d.get(ValueLayout.JAVA_SHORT_UNALIGNED, 5 + 2L * i) & 0xFFFF;
            }
            return bits;
        }
    }

    @Test
    void float32SourcesUseOneFusedMultiplyAddRoundedOnce() {
        // x * x = 1 + 2^-11 + 2^-24 exactly; rounded alone it is 1 + 2^-11 (a tie, to even), which the
        // shift cancels: unfused 0, fused 2^-24 (0x33800000)
        float x = 1f + 0x1p-12f;
        float shift = -(1f + 0x1p-11f);
        assertEquals(0f, x * x + shift);
        assertArrayEquals(new int[]{0x33800000}, gather(new float[]{x}, x, shift, PlaneGather.Output.FLOAT32, false, 0));
    }

    @Test
    void float64SourcesUseOneDoubleFusedMultiplyAddThenRoundToFloat() {
        // x * scale = 1 + 2^-20 + 2^-40 + 2^-60 exactly; in double alone 2^-60 is lost (under half an
        // ulp), so the shift leaves 2^-40 unfused and 2^-40 + 2^-60 fused, which a float still holds
        double x = 1 + 0x1p-40;
        float scale = 1f + 0x1p-20f;
        float shift = -(1f + 0x1p-20f);
        assertEquals(0x1p-40, x * scale + shift);
        int fused = Float.floatToRawIntBits((float) (0x1p-40 + 0x1p-60));
        assertEquals(0x2B800008, fused);
        assertArrayEquals(new int[]{fused}, gather(new double[]{x}, scale, shift, PlaneGather.Output.FLOAT32, false, 0));
        // then one rounding to float: 1 + 2^-24 is the tie between 1 and 1 + 2^-23 (even: 1)
        assertArrayEquals(new int[]{0x3F800000, 0x3F800002},
                gather(new double[]{1 + 0x1p-24, 1 + 3 * 0x1p-24}, 1f, -0f, PlaneGather.Output.FLOAT32, false, 0));
        // beyond the float range: infinity; below it: zero
        assertArrayEquals(new int[]{0x7F800000, 0xFF800000, 0x00000000},
                gather(new double[]{1e300, -1e300, 1e-300}, 1f, 0f, PlaneGather.Output.FLOAT32, false, 0));
    }

    @Test
    void randomElementsMatchExactArithmeticRoundedOnce() {
        Random r = new Random(SEED);
        int n = 4000;
        float[] xf = new float[n];
        double[] xd = new double[n];
        for (int i = 0; i < n; i++) {
            xf[i] = Float.intBitsToFloat(r.nextInt());
            xd[i] = r.nextBoolean() ? Double.longBitsToDouble(r.nextLong()) : r.nextGaussian() * 1e3;
            if (!Float.isFinite(xf[i])) {
                xf[i] = (float) r.nextGaussian();
            }
            if (!Double.isFinite(xd[i])) {
                xd[i] = r.nextGaussian();
            }
        }
        for (int round = 0; round < 20; round++) {
            float a = round == 0 ? 1f : (float) (r.nextGaussian() * Math.pow(10, r.nextInt(9) - 4));
            float b = round == 0 ? 0f : (float) (r.nextGaussian() * Math.pow(10, r.nextInt(9) - 4));
            int[] f = gather(xf, a, b, PlaneGather.Output.FLOAT32, false, 0);
            int[] d = gather(xd, a, b, PlaneGather.Output.FLOAT32, false, 0);
            for (int i = 0; i < n; i++) {
                float want = exact(xf[i], a, b).floatValue();
                assertEquals(Float.floatToRawIntBits(want), f[i], "float32 " + xf[i] + " * " + a + " + " + b
                        + " (seed " + SEED + ")");
                float wantD = (float) exact(xd[i], a, b).doubleValue();
                int wantBits = Float.isNaN(wantD) ? 0x7FC00000 : Float.floatToRawIntBits(wantD);
                assertEquals(wantBits, d[i], "float64 " + xd[i] + " * " + a + " + " + b + " (seed " + SEED + ")");
            }
        }
    }

    /** x * a + b exactly; signed zeros and overflow are left to the callers that need them. */
    private static BigDecimal exact(double x, float a, float b) {
        return new BigDecimal(x).multiply(new BigDecimal(a)).add(new BigDecimal(b));
    }

    @Test
    void nansBecomeCanonicalOrTheReplacementInOutputUnits() {
        float[] nans = {Float.intBitsToFloat(0xFFC12345), Float.intBitsToFloat(0x7F800001), Float.NaN, 1f};
        assertArrayEquals(new int[]{0x7FC00000, 0x7FC00000, 0x7FC00000, 0x40400000},
                gather(nans, 2f, 1f, PlaneGather.Output.FLOAT32, false, 0));
        assertArrayEquals(new int[]{0x7E00, 0x7E00, 0x7E00, 0x4200},
                gather(nans, 2f, 1f, PlaneGather.Output.FLOAT16, false, 0));
        assertArrayEquals(new int[]{0x7FC0, 0x7FC0, 0x7FC0, 0x4040},
                gather(nans, 2f, 1f, PlaneGather.Output.BFLOAT16, false, 0));
        // replaced NaNs are not normalised: 7 stays 7 (float16 0x4700) whatever the scale and shift
        assertArrayEquals(new int[]{0x4700, 0x4700, 0x4700, 0x4200},
                gather(nans, 2f, 1f, PlaneGather.Output.FLOAT16, true, 7f));
        double[] nan64 = {Double.longBitsToDouble(0xFFF0000000000001L), Double.NaN, 0.5};
        assertArrayEquals(new int[]{0x40E00000, 0x40E00000, 0x40000000},
                gather(nan64, 2f, 1f, PlaneGather.Output.FLOAT32, true, 7f));
        // a NaN replacement still comes out canonical; NaNs made by the arithmetic too (inf * 0)
        assertArrayEquals(new int[]{0x7FC0},
                gather(new float[]{Float.NaN}, 1f, 0f, PlaneGather.Output.BFLOAT16, true, Float.intBitsToFloat(0xFFC00001)));
        assertArrayEquals(new int[]{0x7FC00000},
                gather(new float[]{Float.POSITIVE_INFINITY}, 0f, 0f, PlaneGather.Output.FLOAT32, false, 0));
    }

    @Test
    void planesMoveFromTheirSourceIndexToTheirOutputIndexAfterTheOffsets() {
        try (Arena a = Arena.ofConfined()) {
            int pe = 3;
            MemorySegment s = a.allocate(8 + 4L * pe * 4);
            MemorySegment d = a.allocate(2 + 2L * pe * 3).fill((byte) 0xA5);
            for (int i = 0; i < 4 * pe; i++) {
                s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 8 + 4L * i, i);
            }
            PlaneGather g = new PlaneGather(HostBuffer.of(s, MemoryKind.HOST, Device.CPU, () -> { }), 8, DataType.FLOAT32,
                    HostBuffer.of(d, MemoryKind.HOST, Device.CPU, () -> { }), 2, PlaneGather.Output.BFLOAT16, pe,
                    new long[]{3, 3, 1}, new long[]{2, 0, 2}, new float[]{1, 2, 1}, new float[]{0, 0, 100}, false, 0);
            assertEquals(3, g.planes());
            assertEquals(3L * pe * (4 + 2), g.bytesMoved());
            g.runOnHost(0, 3);
            assertEquals((byte) 0xA5, d.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals((byte) 0xA5, d.get(ValueLayout.JAVA_BYTE, 1));
            // output plane 0: source plane 3 doubled (18, 20, 22); plane 1 untouched; plane 2: the
            // last plane naming it, source plane 1 + 100 (103, 104, 105)
            float[] want = {18, 20, 22, Float.NaN, Float.NaN, Float.NaN, 103, 104, 105};
            for (int i = 0; i < want.length; i++) {
                short got = d.get(ValueLayout.JAVA_SHORT_UNALIGNED, 2 + 2L * i);
                if (Float.isNaN(want[i])) {
                    assertEquals((short) 0xA5A5, got, "untouched element " + i);
                } else {
                    assertEquals(PlaneGather.toBfloat16(want[i]), got, "element " + i);
                }
            }
        }
    }

    @Test
    void theRecordRejectsPlanesOutsideItsBuffersAndTablesOfDifferentLengths() {
        try (Arena a = Arena.ofConfined()) {
            var src = HostBuffer.of(a.allocate(40), MemoryKind.HOST, Device.CPU, () -> { });
            var dst = HostBuffer.of(a.allocate(20), MemoryKind.HOST, Device.CPU, () -> { });
            // 5 float32 elements a plane: src holds 2 planes, dst (float16) 2
            assertThrows(IndexOutOfBoundsException.class, () -> new PlaneGather(src, 0, DataType.FLOAT32, dst, 0,
                    PlaneGather.Output.FLOAT16, 5, new long[]{2}, new long[]{0}, new float[]{1}, new float[]{0}, false, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> new PlaneGather(src, 0, DataType.FLOAT32, dst, 1,
                    PlaneGather.Output.FLOAT16, 5, new long[]{0}, new long[]{1}, new float[]{1}, new float[]{0}, false, 0));
            assertThrows(IllegalArgumentException.class, () -> new PlaneGather(src, 0, DataType.FLOAT32, dst, 0,
                    PlaneGather.Output.FLOAT16, 5, new long[]{0}, new long[]{0, 1}, new float[]{1}, new float[]{0}, false, 0));
            assertThrows(IllegalArgumentException.class, () -> new PlaneGather(src, 0, DataType.INT32, dst, 0,
                    PlaneGather.Output.FLOAT16, 5, new long[]{0}, new long[]{0}, new float[]{1}, new float[]{0}, false, 0));
            assertThrows(IllegalArgumentException.class, () -> new PlaneGather(src, 0, DataType.FLOAT32, dst, 0,
                    PlaneGather.Output.FLOAT16, 0, new long[]{}, new long[]{}, new float[]{}, new float[]{}, false, 0));
            assertEquals(PlaneGather.Output.BFLOAT16, PlaneGather.Output.parse("bfloat16"));
            assertThrows(IllegalArgumentException.class, () -> PlaneGather.Output.parse("float8"));
        }
    }
}
