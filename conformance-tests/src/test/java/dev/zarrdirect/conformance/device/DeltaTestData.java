// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.device;

import dev.zarrdirect.api.DataType;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Chunks for the device tests of {@code numcodecs.delta}: every element type the codec takes, and
 * data that reaches what makes float sums differ between evaluation orders and devices (subnormals,
 * signed zeros, overflow to infinity, infinity minus infinity, a NaN input).
 *
 * <p>At most one NaN enters each chunk's sums: the CPU codec's result for two NaN operands with
 * different payloads depends on which operand the JIT puts first, so no device can be held to it.
 */
public final class DeltaTestData {

    /** The configurations tested: every size, signed and unsigned, a same-size {@code astype}, every float. */
    public static final List<Map<String, Object>> CONFIGS = List.of(
            Map.of("dtype", "|i1"), Map.of("dtype", "|u1", "astype", "|i1"), Map.of("dtype", "<i2"),
            Map.of("dtype", "<u2"), Map.of("dtype", "<i4", "astype", "<u4"), Map.of("dtype", "<u8"),
            Map.of("dtype", "<i8"), Map.of("dtype", "<f2"), Map.of("dtype", "<f4"), Map.of("dtype", "<f8"));

    /** Kinds of chunk {@link #chunk} makes. */
    public static final int KINDS = 3;

    private DeltaTestData() {
    }

    /**
     * {@code count} little-endian elements of {@code type}. Integers: random bits (kind 0), a ramp with
     * noise (1), the extremes alternating (2). Floats: a spread of magnitudes with subnormals, signed
     * zeros and values near the largest (0), the same with +infinity at a third and -infinity at two
     * thirds (1), the same with one NaN in the middle (2).
     */
    public static byte[] chunk(SplittableRandom r, DataType type, int count, int kind) {
        int size = type.byteSize();
        ByteBuffer b = ByteBuffer.allocate(count * size).order(ByteOrder.LITTLE_ENDIAN);
        if (type.kind() != DataType.Kind.FLOAT) {
            for (int k = 0; k < count; k++) {
                long v = switch (kind) {
                    case 0 -> r.nextLong();
                    case 1 -> k / 3 + r.nextInt(5);
                    default -> k % 2 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
                };
                switch (size) {
                    case 1 -> b.put((byte) v);
                    case 2 -> b.putShort((short) v);
                    case 4 -> b.putInt((int) v);
                    default -> b.putLong(v);
                }
            }
            return b.array();
        }
        for (int k = 0; k < count; k++) {
            double v = value(r, size);
            if (kind == 1 && k == count / 3) {
                v = Double.POSITIVE_INFINITY;
            } else if (kind == 1 && k == 2 * count / 3) {
                v = Double.NEGATIVE_INFINITY;
            }
            boolean nan = kind == 2 && k == count / 2;
            switch (size) {
                case 2 -> b.putShort(nan ? (short) 0x7C01 : Float.floatToFloat16((float) v));
                case 4 -> b.putInt(nan ? 0x7F800001 : Float.floatToRawIntBits((float) v));
                default -> b.putLong(nan ? 0x7FF0000000000001L : Double.doubleToRawLongBits(v));
            }
        }
        return b.array();
    }

    /** A value of a float type of {@code size} bytes: mostly ordinary, some subnormal, zero or huge. */
    private static double value(SplittableRandom r, int size) {
        double tiny = size == 2 ? 0x1p-24 : size == 4 ? Float.MIN_VALUE : Double.MIN_VALUE;
        double huge = size == 2 ? 60000 : size == 4 ? 3e38 : 1.7e308;
        return switch (r.nextInt(40)) {
            case 0 -> tiny * r.nextInt(1, 1 << 10);
            case 1 -> -tiny * r.nextInt(1, 1 << 10);
            case 2 -> 0.0;
            case 3 -> -0.0;
            case 4 -> huge * (r.nextBoolean() ? 1 : -1);
            default -> r.nextDouble(-1, 1) * Math.pow(10, r.nextInt(-3, 4));
        };
    }
}
