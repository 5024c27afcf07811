// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static dev.zarrdirect.kernels.ZstdTestSupport.SEED;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The plane gather kernel ({@code gather/zd_gather.h}) in host mode against plain Java arithmetic
 * (Math.fma, Float.floatToFloat16, bfloat16 by rounding the bits), for every flag and access mode.
 * The host build converts to float16 in software, as OpenCL does; the full tier checks that
 * conversion for all 2^32 floats.
 */
class GatherKernelTest {
    final HostKernels hk = HostKernels.get();

    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    static final byte POISON = (byte) 0xA5;

    // ------------------------------------------------------------------ the Java reference

    static float y32(float x, float a, float b, boolean replace, float nan) {
        return replace && Float.isNaN(x) ? nan : Math.fma(x, a, b);
    }

    static float y64(double x, float a, float b, boolean replace, float nan) {
        return replace && Double.isNaN(x) ? nan : (float) Math.fma(x, a, (double) b);
    }

    /** Output bits: outBytes 4 (float32) or 2 (bfloat16 when bf16, else float16). */
    static int out(float y, int outBytes, boolean bf16) {
        if (outBytes == 4) {
            return Float.isNaN(y) ? 0x7FC00000 : Float.floatToRawIntBits(y);
        }
        if (Float.isNaN(y)) {
            return bf16 ? 0x7FC0 : 0x7E00;
        }
        if (bf16) {
            int bits = Float.floatToRawIntBits(y);
            return ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16) & 0xFFFF;
        }
        return Float.floatToFloat16(y) & 0xFFFF;
    }

    // ------------------------------------------------------------------ running the kernel

    int run(MemorySegment src, long srcPlanes, MemorySegment dst, long dstPlanes, MemorySegment table, int n,
            long planeElems, int flags, float nan, int items) throws Throwable {
        return (int) hk.gather.invokeExact(src, srcPlanes, dst, dstPlanes, table, n, planeElems, flags,
                Float.floatToRawIntBits(nan), items);
    }

    /** Converts every float of {@code bits} (scale 1, shift -0: the identity, -0 included) and checks each. */
    void convertAndCheck(int[] bits, boolean bf16) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            convertAndCheck(a.allocate(4L * bits.length, 16), a.allocate(2L * bits.length, 16), bits, bits.length, bf16);
        }
    }

    private void convertAndCheck(MemorySegment src, MemorySegment dst, int[] bits, int n, boolean bf16) throws Throwable {
        MemorySegment.copy(bits, 0, src, ValueLayout.JAVA_INT, 0, n);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment table = a.allocate(GatherTable.bytes(1), 8);
            GatherTable.write(table, 0, new int[]{0}, new long[]{0}, new long[]{0}, new float[]{1f}, new float[]{-0f});
            int flags = GatherTable.typeFlags(4, 2, bf16, false) | GatherTable.VEC4;
            assertEquals(0, run(src, 1, dst, 1, table, 1, n, flags, 0f, 1));
        }
        short[] got = new short[n];
        MemorySegment.copy(dst, ValueLayout.JAVA_SHORT, 0, got, 0, n);
        for (int i = 0; i < n; i++) {
            float x = Float.intBitsToFloat(bits[i]);
            int want = out(x, 2, bf16);
            if (want != (got[i] & 0xFFFF)) {
                fail((bf16 ? "bfloat16" : "float16") + " of 0x" + Integer.toHexString(bits[i]) + " (" + x + "): want 0x"
                        + Integer.toHexString(want) + ", kernel wrote 0x" + Integer.toHexString(got[i] & 0xFFFF));
            }
        }
    }

    @Test
    void everyExponentAndEveryRoundingTieConvertsAsJavaDoes() throws Throwable {
        // every sign, exponent and top-7 mantissa pattern, with low halves at and around both
        // kinds of tie (bfloat16 at bit 15, normal float16 at bit 12) and the subnormal float16 ties
        int[] lows = {0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x2FFF, 0x3000, 0x3001, 0x7FFF, 0x8000,
                0x8001, 0xC000, 0xFFFF};
        Random r = new Random(SEED);
        int[] bits = new int[65536 * (lows.length + 4)];
        int k = 0;
        for (int hi = 0; hi < 65536; hi++) {
            int base = hi << 16;
            for (int lo : lows) {
                bits[k++] = base | lo;
            }
            bits[k++] = base | r.nextInt(65536);
            // where the result is a float16 subnormal (exponents 102..112), the bit under the kept
            // ones (s = 126 - exponent of them are dropped) set and nothing under it: a tie; and around it
            int e = (base >>> 23) & 0xFF;
            int tie = base | 0x1000;
            if (e >= 102 && e <= 112) {
                int s = 126 - e;
                tie = s == 24 ? base & 0xFF800000 : (base & ~((1 << s) - 1)) | (1 << (s - 1));
            }
            bits[k++] = tie;
            bits[k++] = tie - 1;
            bits[k++] = tie + 1;
        }
        convertAndCheck(bits, false);
        convertAndCheck(bits, true);
    }

    @Test
    @Tag(Sweep.FULL)
    void everyFloatConvertsToHalfAndBfloat16AsJavaDoes() throws Throwable {
        int chunk = 1 << 24;
        int[] bits = new int[chunk];
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(4L * chunk, 16);
            MemorySegment dst = a.allocate(2L * chunk, 16);
            for (long base = 0; base < 1L << 32; base += chunk) {
                for (int i = 0; i < chunk; i++) {
                    bits[i] = (int) (base + i);
                }
                convertAndCheck(src, dst, bits, chunk, false);
                convertAndCheck(src, dst, bits, chunk, true);
            }
        }
    }

    /** Values for every interesting case: NaNs of both signs and payloads, infinities, subnormals, huge. */
    static double special(Random r, boolean f64) {
        return switch (r.nextInt(14)) {
            case 0 -> Double.NaN;
            case 1 -> f64 ? Double.longBitsToDouble(0xFFF0000000000001L + r.nextInt(1000)) : Float.intBitsToFloat(0xFF800001 + r.nextInt(1000));
            case 2 -> r.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
            case 3 -> Float.MIN_VALUE * (1 + r.nextInt(1000)) * (r.nextBoolean() ? 1 : -1);
            case 4 -> f64 ? Double.MIN_VALUE * r.nextInt(100) : Float.MIN_NORMAL * r.nextFloat();
            case 5 -> (r.nextBoolean() ? 1 : -1) * 65520.0 * (1 + r.nextInt(3) * 1e-7);
            case 6 -> (r.nextBoolean() ? 1 : -1) * Float.MAX_VALUE * r.nextFloat();
            case 7 -> f64 ? 1e300 * r.nextGaussian() : 1e30f * (float) r.nextGaussian();
            case 8 -> Float.intBitsToFloat(r.nextInt(65536) << 16 | 0x8000);
            case 9 -> Float.intBitsToFloat(r.nextInt() & 0xFFFFE000 | 0x1000);
            case 10 -> r.nextBoolean() ? 0.0 : -0.0;
            default -> f64 ? Double.longBitsToDouble(r.nextLong()) : r.nextGaussian() * 300;
        };
    }

    @Test
    void randomPlanesMatchTheJavaReferenceInEveryAccessMode() throws Throwable {
        Random r = new Random(SEED ^ 0x9A7E);
        for (int round = 0; round < 120; round++) {
            boolean f64 = r.nextBoolean();
            int es = f64 ? 8 : 4;
            int ob = r.nextBoolean() ? 4 : 2;
            boolean bf16 = ob == 2 && r.nextBoolean();
            boolean replace = r.nextBoolean();
            float nan = r.nextInt(4) == 0 ? Float.NaN : (float) r.nextGaussian();
            int mode = r.nextInt(3); // 0: vec4, 1: one aligned access per element, 2: bytes
            long planeElems = switch (mode) {
                case 0 -> 4L * (1 + r.nextInt(300));
                default -> r.nextInt(5) == 0 ? 1 : 1 + r.nextInt(1200);
            };
            int srcPlanes = 1 + r.nextInt(6);
            int dstPlanes = 1 + r.nextInt(6);
            int n = 1 + r.nextInt(10);
            long srcOff = mode == 2 && r.nextBoolean() ? 1 + r.nextInt(es - 1) : 0;
            long dstOff = mode == 2 && (srcOff == 0 || r.nextBoolean()) ? 1 : 0;
            long[] sp = new long[n];
            long[] dp = new long[n];
            float[] sc = new float[n];
            float[] sh = new float[n];
            for (int p = 0; p < n; p++) {
                sp[p] = r.nextInt(srcPlanes);
                dp[p] = r.nextInt(dstPlanes); // repeats: the last plane naming an output wins
                sc[p] = r.nextInt(8) == 0 ? 1f : (float) (1 / (0.01 + Math.abs(r.nextGaussian() * 50)));
                sh[p] = r.nextInt(8) == 0 ? 0f : (float) r.nextGaussian() * 10;
            }
            int[] writers = GatherTable.writers(dp);
            try (Arena a = Arena.ofConfined()) {
                long srcBytes = srcOff + srcPlanes * planeElems * es;
                long dstBytes = dstOff + dstPlanes * planeElems * ob;
                MemorySegment src = a.allocate(srcBytes, 16);
                MemorySegment dst = a.allocate(dstBytes, 16);
                dst.fill(POISON);
                for (long i = 0; i < srcPlanes * planeElems; i++) {
                    double v = r.nextInt(3) == 0 ? special(r, f64) : r.nextGaussian() * 100;
                    if (f64) {
                        src.set(ValueLayout.JAVA_LONG_UNALIGNED, srcOff + 8 * i, Double.doubleToRawLongBits(v));
                    } else {
                        float fv = (float) v;
                        src.set(I32, srcOff + 4 * i, Double.isNaN(v) && r.nextBoolean()
                                ? 0x7FC00000 | r.nextInt(0x400000) | (r.nextBoolean() ? 0x80000000 : 0)
                                : Float.floatToRawIntBits(fv));
                    }
                }
                MemorySegment table = a.allocate(GatherTable.bytes(writers.length), 8);
                GatherTable.write(table, 0, writers, sp, dp, sc, sh);
                int access = mode == 1 ? 0
                        : GatherTable.accessFlags(src.address() + srcOff, es, dst.address() + dstOff, ob, planeElems);
                if (mode != 1) {
                    assertEquals(mode == 0 ? GatherTable.VEC4 : GatherTable.BYTES, access, "access mode of round " + round);
                }
                int flags = GatherTable.typeFlags(es, ob, bf16, replace) | access;
                int items = 1 + r.nextInt(40);
                assertEquals(0, run(src.asSlice(srcOff), srcPlanes, dst.asSlice(dstOff), dstPlanes, table, writers.length,
                        planeElems, flags, nan, items));
                // expected: the sequential definition, planes in order
                byte[] want = new byte[(int) dstBytes];
                java.util.Arrays.fill(want, POISON);
                MemorySegment w = MemorySegment.ofArray(want);
                for (int p = 0; p < n; p++) {
                    for (long i = 0; i < planeElems; i++) {
                        long s = srcOff + (sp[p] * planeElems + i) * es;
                        float y = f64 ? y64(Double.longBitsToDouble(src.get(ValueLayout.JAVA_LONG_UNALIGNED, s)), sc[p], sh[p], replace, nan)
                                : y32(Float.intBitsToFloat(src.get(I32, s)), sc[p], sh[p], replace, nan);
                        long d = dstOff + (dp[p] * planeElems + i) * ob;
                        int o = out(y, ob, bf16);
                        if (ob == 4) {
                            w.set(I32, d, o);
                        } else {
                            w.set(I16, d, (short) o);
                        }
                    }
                }
                byte[] got = dst.toArray(ValueLayout.JAVA_BYTE);
                for (int i = 0; i < want.length; i++) {
                    if (want[i] != got[i]) {
                        fail("round " + round + " (seed " + SEED + ", " + (f64 ? "float64" : "float32") + " to "
                                + (ob == 4 ? "float32" : bf16 ? "bfloat16" : "float16") + ", flags 0x"
                                + Integer.toHexString(flags) + ", " + planeElems + " elements a plane, " + items
                                + " items): byte " + i + " is 0x" + Integer.toHexString(got[i] & 0xFF) + ", want 0x"
                                + Integer.toHexString(want[i] & 0xFF));
                    }
                }
            }
        }
    }

    @Test
    void planesOutsideTheBuffersAreSkipped() throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(64, 16).fill((byte) 0x3F);
            MemorySegment dst = a.allocate(64, 16).fill(POISON);
            MemorySegment table = a.allocate(GatherTable.bytes(3), 8);
            // 4 elements a plane: src holds 4 planes, dst (float32) 4; planes 9 and 4 lie outside
            GatherTable.write(table, 0, new int[]{0, 1, 2}, new long[]{9, 0, 1}, new long[]{0, 4, 2},
                    new float[]{1, 1, 1}, new float[]{0, 0, 0});
            assertEquals(0, run(src, 4, dst, 4, table, 3, 4, GatherTable.VEC4, 0f, 3));
            for (int i = 0; i < 64; i++) {
                byte want = i >= 32 && i < 48 ? (byte) 0x3F : POISON;
                assertEquals(want, dst.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
            }
        }
    }

    @Test
    void writersKeepTheLastPlaneOfEachOutputPlaneInOrder() {
        assertArrayEquals(new int[]{0, 1, 2}, GatherTable.writers(new long[]{5, 3, 4}));
        assertArrayEquals(new int[]{1, 3, 4}, GatherTable.writers(new long[]{7, 3, 2, 7, 2}));
        assertArrayEquals(new int[]{}, GatherTable.writers(new long[]{}));
        assertArrayEquals(new int[]{2}, GatherTable.writers(new long[]{1, 1, 1}));
    }

    @Test
    void tableLayoutIsSourcesOutputsScalesShifts() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(GatherTable.bytes(2), 8);
            GatherTable.write(t, 0, new int[]{0, 2}, new long[]{10, 11, 12}, new long[]{20, 21, 22},
                    new float[]{1.5f, 2.5f, -3f}, new float[]{0.25f, 9f, Float.NaN});
            assertEquals(48, t.byteSize());
            assertEquals(10, t.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(12, t.get(ValueLayout.JAVA_LONG, 8));
            assertEquals(20, t.get(ValueLayout.JAVA_LONG, 16));
            assertEquals(22, t.get(ValueLayout.JAVA_LONG, 24));
            assertEquals(1.5f, t.get(ValueLayout.JAVA_FLOAT, 32));
            assertEquals(-3f, t.get(ValueLayout.JAVA_FLOAT, 36));
            assertEquals(0.25f, t.get(ValueLayout.JAVA_FLOAT, 40));
            assertEquals(Float.floatToRawIntBits(Float.NaN), t.get(ValueLayout.JAVA_INT, 44));
        }
    }

    @Test
    void flagsFollowTheTypesAndTheAlignment() {
        assertEquals(0, GatherTable.typeFlags(4, 4, false, false));
        assertEquals(GatherTable.SRC_F64 | GatherTable.OUT_BF16 | GatherTable.REPLACE_NAN,
                GatherTable.typeFlags(8, 2, true, true));
        assertEquals(GatherTable.OUT_F16, GatherTable.typeFlags(4, 2, false, false));
        assertThrows(IllegalArgumentException.class, () -> GatherTable.typeFlags(2, 4, false, false));
        assertEquals(GatherTable.VEC4, GatherTable.accessFlags(256, 4, 512, 2, 1040));
        assertEquals(0, GatherTable.accessFlags(256, 4, 516, 4, 1040)); // output not 16-aligned
        assertEquals(0, GatherTable.accessFlags(256, 8, 512, 4, 1041)); // odd plane
        assertEquals(GatherTable.BYTES, GatherTable.accessFlags(258, 4, 512, 4, 1040));
        assertEquals(GatherTable.BYTES, GatherTable.accessFlags(256, 8, 513, 2, 1040));
        assertEquals(0, GatherTable.accessFlags(260, 4, 512, 4, 1040)); // source 4- but not 16-aligned
    }
}
