// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata.v2;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;

/**
 * A Zarr v2 {@code dtype}: a NumPy type string such as {@code "<f4"}, {@code ">i2"}, {@code "|u1"},
 * {@code "|b1"}, {@code "<c8"} or {@code "|V4"} (raw bytes, {@code r32}), read as an element type and
 * the byte order the chunks hold it in. Types whose bytes are never swapped (one-byte types, bool,
 * raw) are little-endian here and written with {@code |}.
 *
 * <p>Not supported, each with its own message: datetime and timedelta ({@code M8}, {@code m8}),
 * strings and objects ({@code S}, {@code U}, {@code O}) and structured types (a JSON list).
 *
 * <p>Immutable and thread-safe. Two values are equal when type and byte order are; the byte order
 * of a type without one is always {@link ByteOrder#LITTLE_ENDIAN}, so {@code "<u1"} and
 * {@code "|u1"} read as equal values.
 *
 * @param dataType  the element type
 * @param byteOrder the order of the bytes of each element (of each part, for complex types) in the
 *                  stored chunks; forced to little-endian for bool, one-byte and raw types
 */
public record V2DataType(DataType dataType, ByteOrder byteOrder) {

    /**
     * Checks the components and makes the byte order of types without one little-endian.
     *
     * @throws NullPointerException if a component is null
     */
    public V2DataType {
        Objects.requireNonNull(dataType, "dataType");
        Objects.requireNonNull(byteOrder, "byteOrder");
        if (dataType.swapUnit() == 1) {
            byteOrder = ByteOrder.LITTLE_ENDIAN;
        }
    }

    /**
     * The type stored little-endian ({@code <} or {@code |}).
     *
     * @param dataType the element type
     * @return the value
     * @throws NullPointerException if {@code dataType} is null
     */
    public static V2DataType little(DataType dataType) {
        return new V2DataType(dataType, ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * The type stored big-endian ({@code >}; {@code |} for types without a byte order).
     *
     * @param dataType the element type
     * @return the value; little-endian after all for types without a byte order
     * @throws NullPointerException if {@code dataType} is null
     */
    public static V2DataType big(DataType dataType) {
        return new V2DataType(dataType, ByteOrder.BIG_ENDIAN);
    }

    /**
     * Whether the stored bytes are big-endian; never for a type without a byte order.
     *
     * @return true for {@code >} types
     */
    public boolean isBigEndian() {
        return byteOrder == ByteOrder.BIG_ENDIAN;
    }

    /**
     * The {@code endian} of the v3 {@code bytes} codec that reads these chunks.
     *
     * @return {@code "big"} or {@code "little"} (also for types without a byte order)
     */
    public String endian() {
        return isBigEndian() ? "big" : "little";
    }

    /**
     * The NumPy type string, as NumPy writes it: {@code "<f8"}, {@code "|b1"}, {@code "|V4"}.
     *
     * @return byte order ({@code <}, {@code >} or {@code |}), kind and size in bytes; what
     *         {@link #parse} reads back to an equal value
     */
    public String typestr() {
        char order = dataType.swapUnit() == 1 ? '|' : isBigEndian() ? '>' : '<';
        char kind = switch (dataType.kind()) {
            case BOOL -> 'b';
            case INT -> 'i';
            case UINT -> 'u';
            case FLOAT -> 'f';
            case COMPLEX -> 'c';
            case RAW -> 'V';
        };
        return "" + order + kind + dataType.byteSize();
    }

    /**
     * Reads a {@code dtype} value. Supported: {@code b1}, {@code i1..i8}, {@code u1..u8},
     * {@code f2}, {@code f4}, {@code f8}, {@code c8}, {@code c16} and {@code V<n>} (n bytes), with
     * {@code <}, {@code >} or (for one-byte and raw types) {@code |}.
     *
     * @param json  the {@code dtype} value, as parsed: a string (a list is a structured type)
     * @param where names the field in errors, such as {@code "dtype" in "t2m/.zarray"}
     * @return the type and byte order
     * @throws InvalidMetadataException naming {@code where} and the value, for a value that is not a
     *                                  string, an unsupported kind or size, or a byte order the type
     *                                  cannot have; for datetime, string and structured types the
     *                                  message says they are not supported
     */
    public static V2DataType parse(Object json, String where) {
        if (json instanceof List<?>) {
            throw new InvalidMetadataException(where + " is the structured data type " + json
                    + "; structured (record) data types are not supported");
        }
        String s = Json.string(json, where);
        if (s.length() < 3) {
            throw new InvalidMetadataException(where + " is \"" + s + "\", not a NumPy type string such as \"<f4\","
                    + " \"|u1\" or \">i8\"");
        }
        char order = s.charAt(0);
        char kind = s.charAt(1);
        if (kind == 'M' || kind == 'm') {
            throw new InvalidMetadataException(where + " is \"" + s + "\", a NumPy " + (kind == 'M' ? "datetime64"
                    : "timedelta64") + " type; datetime and timedelta types are not supported (their values are"
                    + " int64 counts: store them as \"" + order + "i8\")");
        }
        if (kind == 'S' || kind == 'U' || kind == 'O' || kind == 'a') {
            throw new InvalidMetadataException(where + " is \"" + s + "\"; string and object data types are not"
                    + " supported (supported: b1, i1..i8, u1..u8, f2, f4, f8, c8, c16 and V<n>)");
        }
        if (order != '<' && order != '>' && order != '|') {
            throw new InvalidMetadataException(where + " is \"" + s + "\" with the byte order '" + order
                    + "'; expected '<' (little-endian), '>' (big-endian) or '|' (not applicable)");
        }
        int size;
        try {
            size = Integer.parseInt(s.substring(2));
        } catch (NumberFormatException e) {
            throw new InvalidMetadataException(where + " is \"" + s + "\"; the size after the kind '" + kind
                    + "' must be a number of bytes", e);
        }
        DataType dt = switch (kind) {
            case 'b' -> size == 1 ? DataType.BOOL : null;
            case 'i' -> switch (size) {
                case 1 -> DataType.INT8;
                case 2 -> DataType.INT16;
                case 4 -> DataType.INT32;
                case 8 -> DataType.INT64;
                default -> null;
            };
            case 'u' -> switch (size) {
                case 1 -> DataType.UINT8;
                case 2 -> DataType.UINT16;
                case 4 -> DataType.UINT32;
                case 8 -> DataType.UINT64;
                default -> null;
            };
            case 'f' -> switch (size) {
                case 2 -> DataType.FLOAT16;
                case 4 -> DataType.FLOAT32;
                case 8 -> DataType.FLOAT64;
                default -> null;
            };
            case 'c' -> switch (size) {
                case 8 -> DataType.COMPLEX64;
                case 16 -> DataType.COMPLEX128;
                default -> null;
            };
            case 'V' -> size > 0 ? DataType.raw(size * 8) : null;
            default -> throw new InvalidMetadataException(where + " is \"" + s + "\" of the unknown kind '" + kind
                    + "'; supported kinds: b (bool), i, u, f, c and V (raw bytes)");
        };
        if (dt == null) {
            throw new InvalidMetadataException(where + " is \"" + s + "\": the kind '" + kind + "' has no "
                    + size + "-byte type here (supported: b1, i1..i8, u1..u8, f2, f4, f8, c8, c16 and V<n>)");
        }
        if (order == '|' && dt.swapUnit() > 1) {
            throw new InvalidMetadataException(where + " is \"" + s + "\": '|' (no byte order) is only for one-byte"
                    + " and raw types; a " + size + "-byte " + dt + " needs '<' or '>'");
        }
        return new V2DataType(dt, order == '>' ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public String toString() {
        return typestr();
    }
}
