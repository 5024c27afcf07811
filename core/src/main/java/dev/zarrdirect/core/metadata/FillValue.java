// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;

import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * The fill value of an array: one element, held as its little-endian in-memory bytes, so that
 * filling a chunk is a byte pattern copy on any device. Two fill values are equal when type and bytes
 * are, which tells {@code -0.0} from {@code 0.0} and one NaN payload from another.
 *
 * <p>JSON forms, as in the Zarr v3 spec: {@code true}/{@code false} for bool; integers for integer
 * types (range-checked; {@code uint64} up to 2<sup>64</sup>-1); for floats a number,
 * {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"} or {@code "0x7fc00000"}, the exact bits in
 * hex with two digits per byte of the type; for complex types {@code [re, im]}, each part a float
 * form; for {@code r<N>} an array of N/8 integers 0..255.
 *
 * <p>Immutable and thread-safe.
 */
public final class FillValue {

    private static final long NAN64 = 0x7ff8000000000000L;
    private static final long NAN32 = 0x7fc00000L;
    private static final long NAN16 = 0x7e00L;

    private final DataType dataType;
    private final byte[] bytes;

    private FillValue(DataType dataType, byte[] bytes) {
        this.dataType = dataType;
        this.bytes = bytes;
    }

    /**
     * All bytes zero: {@code false}, {@code 0}, {@code 0.0}, {@code [0.0, 0.0]}.
     *
     * @param dataType the array's element type
     * @return the fill value
     * @throws NullPointerException when {@code dataType} is null
     */
    public static FillValue zero(DataType dataType) {
        Objects.requireNonNull(dataType, "dataType");
        return new FillValue(dataType, new byte[dataType.byteSize()]);
    }

    /**
     * A fill value from its little-endian bytes, as a v2 reader or a test has them.
     *
     * @param dataType     the array's element type
     * @param littleEndian one element's bytes, little-endian; copied
     * @return the fill value
     * @throws NullPointerException when {@code dataType} is null
     * @throws IllegalArgumentException when the length is not the type's size in bytes
     */
    public static FillValue ofBytes(DataType dataType, byte[] littleEndian) {
        Objects.requireNonNull(dataType, "dataType");
        if (littleEndian.length != dataType.byteSize()) {
            throw new IllegalArgumentException("a fill value of " + dataType + " has " + dataType.byteSize()
                    + " bytes, got " + littleEndian.length);
        }
        return new FillValue(dataType, littleEndian.clone());
    }

    /**
     * Reads the JSON form of a fill value of {@code type}.
     *
     * @param json  the value, of the plain JSON model
     * @param type  the array's element type
     * @param where names the field in errors, such as {@code "fill_value" in "t2m/zarr.json"}
     * @return the fill value; a NaN given as {@code "NaN"} or a JSON number is the canonical quiet NaN
     * @throws InvalidMetadataException for a form the type does not take or a value it cannot hold
     */
    public static FillValue parse(Object json, DataType type, String where) {
        Objects.requireNonNull(type, "type");
        byte[] out = new byte[type.byteSize()];
        switch (type.kind()) {
            case BOOL -> {
                if (!(json instanceof Boolean b)) {
                    throw new InvalidMetadataException(where + " must be true or false for data type bool, got "
                            + Json.describe(json));
                }
                out[0] = (byte) (b ? 1 : 0);
            }
            case INT, UINT -> putLE(out, 0, out.length, integer(json, type, where).longValue());
            case FLOAT -> putLE(out, 0, out.length, floatBits(json, out.length, type.name(), where));
            case COMPLEX -> {
                if (!(json instanceof List<?> parts) || parts.size() != 2) {
                    throw new InvalidMetadataException(where + " must be [real, imaginary] for data type " + type
                            + ", got " + Json.describe(json));
                }
                int half = out.length / 2;
                String partType = half == 4 ? "float32" : "float64";
                putLE(out, 0, half, floatBits(parts.get(0), half, partType, Json.element(where, 0)));
                putLE(out, half, half, floatBits(parts.get(1), half, partType, Json.element(where, 1)));
            }
            case RAW -> {
                if (!(json instanceof List<?> list) || list.size() != out.length) {
                    throw new InvalidMetadataException(where + " must be an array of " + out.length
                            + " integers 0..255 for data type " + type + ", got " + Json.describe(json));
                }
                for (int i = 0; i < out.length; i++) {
                    Object x = list.get(i);
                    if (!(x instanceof Long l) || l < 0 || l > 255) {
                        throw new InvalidMetadataException(Json.element(where, i) + " must be an integer 0..255 (a byte of "
                                + type + "), got " + Json.describe(x));
                    }
                    out[i] = (byte) l.longValue();
                }
            }
        }
        return new FillValue(type, out);
    }

    private static BigInteger integer(Object json, DataType type, String where) {
        BigInteger v = switch (json) {
            case Long l -> BigInteger.valueOf(l);
            case Integer i -> BigInteger.valueOf(i);
            case BigInteger b -> b;
            case null, default -> throw new InvalidMetadataException(where + " must be an integer for data type "
                    + type + ", got " + Json.describe(json));
        };
        int bits = type.byteSize() * 8;
        BigInteger min;
        BigInteger max;
        if (type.kind() == DataType.Kind.INT) {
            min = BigInteger.ONE.shiftLeft(bits - 1).negate();
            max = BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE);
        } else {
            min = BigInteger.ZERO;
            max = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
        }
        if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
            throw new InvalidMetadataException(where + " is " + v + ", outside the range of " + type
                    + " [" + min + ", " + max + "]");
        }
        return v;
    }

    /** The bits of one IEEE float of {@code size} bytes (2, 4 or 8) from a JSON float form. */
    private static long floatBits(Object json, int size, String typeName, String where) {
        if (json instanceof String s) {
            switch (s) {
                case "NaN" -> {
                    return canonicalNaN(size);
                }
                case "Infinity", "-Infinity" -> {
                    boolean neg = s.charAt(0) == '-';
                    return switch (size) {
                        case 2 -> Float.floatToFloat16(neg ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY) & 0xffffL;
                        case 4 -> Float.floatToRawIntBits(neg ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY) & 0xffffffffL;
                        default -> Double.doubleToRawLongBits(neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
                    };
                }
                default -> {
                    if (s.startsWith("0x") || s.startsWith("0X")) {
                        String hex = s.substring(2);
                        if (hex.length() != 2 * size || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                            throw new InvalidMetadataException(where + " is the hex string \"" + s + "\", but " + typeName
                                    + " takes exactly " + 2 * size + " hex digits after 0x (" + size + " bytes, big-endian)");
                        }
                        return Long.parseUnsignedLong(hex, 16);
                    }
                    throw new InvalidMetadataException(where + " is the string \"" + s + "\"; a " + typeName
                            + " fill value is a number, \"NaN\", \"Infinity\", \"-Infinity\" or a hex bit pattern like \""
                            + "0x" + "0".repeat(2 * size) + "\"");
                }
            }
        }
        double d = switch (json) {
            case Long l -> (double) l;
            case Integer i -> (double) i;
            case BigInteger b -> b.doubleValue();
            case Double x -> x;
            case null, default -> throw new InvalidMetadataException(where + " must be a number, \"NaN\", \"Infinity\","
                    + " \"-Infinity\" or a hex bit pattern for " + typeName + ", got " + Json.describe(json));
        };
        if (Double.isNaN(d)) {
            return canonicalNaN(size);
        }
        switch (size) {
            case 2 -> {
                short h = Float.floatToFloat16((float) d);
                if (Double.isFinite(d) && Float.isInfinite(Float.float16ToFloat(h))) {
                    throw new InvalidMetadataException(where + " is " + json + ", too large for " + typeName
                            + " (largest finite 65504.0)");
                }
                return h & 0xffffL;
            }
            case 4 -> {
                float f = (float) d;
                if (Double.isFinite(d) && Float.isInfinite(f)) {
                    throw new InvalidMetadataException(where + " is " + json + ", too large for " + typeName
                            + " (largest finite " + Float.MAX_VALUE + ")");
                }
                return Float.floatToRawIntBits(f) & 0xffffffffL;
            }
            default -> {
                return Double.doubleToRawLongBits(d);
            }
        }
    }

    private static long canonicalNaN(int size) {
        return switch (size) {
            case 2 -> NAN16;
            case 4 -> NAN32;
            default -> NAN64;
        };
    }

    private static void putLE(byte[] out, int off, int len, long v) {
        for (int i = 0; i < len; i++) {
            out[off + i] = (byte) (v >>> (8 * i));
        }
    }

    private static long getLE(byte[] in, int off, int len) {
        long v = 0;
        for (int i = 0; i < len; i++) {
            v |= (in[off + i] & 0xffL) << (8 * i);
        }
        return v;
    }

    /**
     * The canonical JSON form: what {@link #parse} reads back to equal bytes. NaN is {@code "NaN"}
     * when its bits are the canonical quiet NaN and a hex string otherwise; {@code uint64} values
     * past {@code Long.MAX_VALUE} are {@code BigInteger}s.
     *
     * @return a value of the plain JSON model
     */
    public Object toJson() {
        int n = bytes.length;
        return switch (dataType.kind()) {
            case BOOL -> bytes[0] != 0;
            case INT -> {
                long raw = getLE(bytes, 0, n);
                int shift = 64 - 8 * n;
                yield (raw << shift) >> shift;
            }
            case UINT -> {
                long raw = getLE(bytes, 0, n);
                yield n == 8 && raw < 0 ? new BigInteger(Long.toUnsignedString(raw)) : (Object) raw;
            }
            case FLOAT -> floatJson(getLE(bytes, 0, n), n);
            case COMPLEX -> {
                List<Object> parts = new ArrayList<>(2);
                parts.add(floatJson(getLE(bytes, 0, n / 2), n / 2));
                parts.add(floatJson(getLE(bytes, n / 2, n / 2), n / 2));
                yield parts;
            }
            case RAW -> {
                List<Object> list = new ArrayList<>(n);
                for (byte b : bytes) {
                    list.add((long) (b & 0xff));
                }
                yield list;
            }
        };
    }

    private static Object floatJson(long bits, int size) {
        double d = switch (size) {
            case 2 -> Float.float16ToFloat((short) bits);
            case 4 -> Float.intBitsToFloat((int) bits);
            default -> Double.longBitsToDouble(bits);
        };
        if (Double.isNaN(d)) {
            return bits == canonicalNaN(size) ? "NaN" : "0x" + HexFormat.of().toHexDigits(bits).substring(16 - 2 * size);
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        return size == 8 ? d : shortestDecimal(d, size, bits);
    }

    /**
     * The decimal with the fewest digits that reads back to {@code bits} the way {@link #parse} reads
     * numbers (double, then the narrower type), so that 0.1f is written 0.1 and not
     * 0.10000000149011612. The exact value of the float is the fallback and always reads back.
     */
    private static double shortestDecimal(double exact, int size, long bits) {
        if (exact == 0) {
            return exact;
        }
        BigDecimal value = new BigDecimal(exact);
        for (int digits = 1; digits <= 9; digits++) {
            double candidate = value.round(new MathContext(digits, RoundingMode.HALF_EVEN)).doubleValue();
            long back = size == 2 ? Float.floatToFloat16((float) candidate) & 0xffffL
                    : Float.floatToRawIntBits((float) candidate) & 0xffffffffL;
            if (back == bits) {
                return candidate;
            }
        }
        return exact;
    }

    /**
     * The element's little-endian bytes.
     *
     * @return a read-only heap segment of a fresh copy, {@code dataType().byteSize()} bytes long
     */
    public MemorySegment bytes() {
        return MemorySegment.ofArray(bytes.clone()).asReadOnly();
    }

    /**
     * The element's little-endian bytes.
     *
     * @return a fresh copy, which the caller may change
     */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    /**
     * The type of the element.
     *
     * @return the data type
     */
    public DataType dataType() {
        return dataType;
    }

    /**
     * Whether every byte is 0, so that zeroed memory already holds the fill value.
     *
     * @return true for all-zero bytes ({@code -0.0} is not zero)
     */
    public boolean isZero() {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FillValue f && f.dataType.equals(dataType) && Arrays.equals(f.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return 31 * dataType.hashCode() + Arrays.hashCode(bytes);
    }

    /** The JSON form without quotes: {@code NaN}, {@code 0}, {@code 0x7fc00001}, {@code [1.0, -0.5]}. */
    @Override
    public String toString() {
        Object j = toJson();
        if (j instanceof List<?> l) {
            return l.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ", "[", "]"));
        }
        return String.valueOf(j);
    }
}
