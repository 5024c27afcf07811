// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.DataType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HexFormat;

/**
 * Elements as text: integers in decimal (unsigned types unsigned), floats in Java's shortest form
 * ({@link Float#toString}, {@link Double#toString}) with {@code nan}, {@code inf}, {@code -inf},
 * complex numbers as {@code (re+imj)}, bools as {@code true}/{@code false}, raw bytes as hex.
 */
final class ValueFormat {

    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ValueFormat() {
    }

    /** The element of {@code type} whose little-endian bytes start at {@code offset} of {@code seg}. */
    static String format(MemorySegment seg, long offset, DataType type) {
        int size = type.byteSize();
        return switch (type.kind()) {
            case BOOL -> seg.get(ValueLayout.JAVA_BYTE, offset) != 0 ? "true" : "false";
            case INT -> Long.toString(signed(seg, offset, size));
            case UINT -> size == 8 ? Long.toUnsignedString(seg.get(I64, offset))
                    : Long.toString(signed(seg, offset, size) & ((1L << (8 * size)) - 1));
            case FLOAT -> real(seg, offset, size);
            case COMPLEX -> {
                String re = real(seg, offset, size / 2);
                String im = real(seg, offset + size / 2, size / 2);
                yield "(" + re + (im.startsWith("-") ? "" : "+") + im + "j)";
            }
            case RAW -> "0x" + HexFormat.of().formatHex(seg.asSlice(offset, size).toArray(ValueLayout.JAVA_BYTE));
        };
    }

    private static long signed(MemorySegment seg, long offset, int size) {
        return switch (size) {
            case 1 -> seg.get(ValueLayout.JAVA_BYTE, offset);
            case 2 -> seg.get(I16, offset);
            case 4 -> seg.get(I32, offset);
            default -> seg.get(I64, offset);
        };
    }

    private static String real(MemorySegment seg, long offset, int size) {
        double d;
        String s;
        switch (size) {
            case 2 -> {
                float f = Float.float16ToFloat(seg.get(I16, offset));
                d = f;
                s = Float.toString(f);
            }
            case 4 -> {
                float f = Float.intBitsToFloat(seg.get(I32, offset));
                d = f;
                s = Float.toString(f);
            }
            default -> {
                d = Double.longBitsToDouble(seg.get(I64, offset));
                s = Double.toString(d);
            }
        }
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        return s;
    }
}
