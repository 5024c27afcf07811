// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

import java.util.List;
import java.util.Objects;

/**
 * An element type of a Zarr array: the Zarr v3 core data types plus raw bit types {@code r<N>}.
 * In memory every element is little-endian; {@code bool} is one byte holding 0 or 1; complex
 * numbers are the real part followed by the imaginary part.
 *
 * <p>Instances are compared by {@link #name()}; the constants below are the canonical instances.
 */
public final class DataType {

    /** What family a data type belongs to, with its DLPack {@code DLDataTypeCode}. */
    public enum Kind {
        BOOL(6), INT(0), UINT(1), FLOAT(2), COMPLEX(5), RAW(3) /* DLPack opaque handle */;

        private final int dlpackCode;

        Kind(int dlpackCode) {
            this.dlpackCode = dlpackCode;
        }

        public int dlpackCode() {
            return dlpackCode;
        }
    }

    public static final DataType BOOL = new DataType("bool", Kind.BOOL, 1);
    public static final DataType INT8 = new DataType("int8", Kind.INT, 1);
    public static final DataType INT16 = new DataType("int16", Kind.INT, 2);
    public static final DataType INT32 = new DataType("int32", Kind.INT, 4);
    public static final DataType INT64 = new DataType("int64", Kind.INT, 8);
    public static final DataType UINT8 = new DataType("uint8", Kind.UINT, 1);
    public static final DataType UINT16 = new DataType("uint16", Kind.UINT, 2);
    public static final DataType UINT32 = new DataType("uint32", Kind.UINT, 4);
    public static final DataType UINT64 = new DataType("uint64", Kind.UINT, 8);
    public static final DataType FLOAT16 = new DataType("float16", Kind.FLOAT, 2);
    public static final DataType FLOAT32 = new DataType("float32", Kind.FLOAT, 4);
    public static final DataType FLOAT64 = new DataType("float64", Kind.FLOAT, 8);
    public static final DataType COMPLEX64 = new DataType("complex64", Kind.COMPLEX, 8);
    public static final DataType COMPLEX128 = new DataType("complex128", Kind.COMPLEX, 16);

    private static final List<DataType> NAMED = List.of(BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16,
            UINT32, UINT64, FLOAT16, FLOAT32, FLOAT64, COMPLEX64, COMPLEX128);

    private final String name;
    private final Kind kind;
    private final int byteSize;

    private DataType(String name, Kind kind, int byteSize) {
        this.name = name;
        this.kind = kind;
        this.byteSize = byteSize;
    }

    /** A raw type of {@code bits} bits, {@code r<bits>}; bits must be a positive multiple of 8. */
    public static DataType raw(int bits) {
        if (bits <= 0 || bits % 8 != 0) {
            throw new IllegalArgumentException("raw data type needs a positive multiple of 8 bits, got r" + bits);
        }
        return new DataType("r" + bits, Kind.RAW, bits / 8);
    }

    /** The data type named {@code name} in Zarr v3 metadata ({@code "float32"}, {@code "r24"}). */
    public static DataType parse(String name) {
        Objects.requireNonNull(name, "name");
        for (DataType t : NAMED) {
            if (t.name.equals(name)) {
                return t;
            }
        }
        if (name.length() > 1 && name.charAt(0) == 'r') {
            try {
                return raw(Integer.parseInt(name.substring(1)));
            } catch (NumberFormatException e) {
                // fall through to the error that lists the known names
            }
        }
        throw new IllegalArgumentException("unknown data type \"" + name + "\"; known: " + NAMED.stream()
                .map(DataType::name).toList() + " and r<bits> for raw bits");
    }

    /** All named (non-raw) data types. */
    public static List<DataType> named() {
        return NAMED;
    }

    public String name() {
        return name;
    }

    public Kind kind() {
        return kind;
    }

    /** Bytes per element. */
    public int byteSize() {
        return byteSize;
    }

    /**
     * The size of the unit a byte swap reverses: the element size, except for complex numbers whose
     * two halves are swapped separately, and bool and raw types which are never swapped.
     */
    public int swapUnit() {
        return switch (kind) {
            case BOOL, RAW -> 1;
            case COMPLEX -> byteSize / 2;
            default -> byteSize;
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DataType d && d.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
