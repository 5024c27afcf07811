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
        /** {@code bool}: one byte, 0 or 1 ({@code kDLBool}, 6). */
        BOOL(6),
        /** Signed two's-complement integers: {@code int8} to {@code int64} ({@code kDLInt}, 0). */
        INT(0),
        /** Unsigned integers: {@code uint8} to {@code uint64} ({@code kDLUInt}, 1). */
        UINT(1),
        /**
         * IEEE 754 binary floating point: {@code float16}, {@code float32}, {@code float64}
         * ({@code kDLFloat}, 2).
         */
        FLOAT(2),
        /**
         * Complex numbers, real part then imaginary part: {@code complex64}, {@code complex128}
         * ({@code kDLComplex}, 5).
         */
        COMPLEX(5),
        /** Raw bits {@code r<N>} with no numeric meaning (DLPack's opaque handle, {@code kDLOpaqueHandle}, 3). */
        RAW(3) /* DLPack opaque handle */;

        private final int dlpackCode;

        Kind(int dlpackCode) {
            this.dlpackCode = dlpackCode;
        }

        /**
         * The DLPack {@code DLDataTypeCode} of this family, written into and read from
         * {@code DLDataType.code} by {@link dev.zarrdirect.api.dlpack.DLPack}.
         *
         * @return the code: 0 int, 1 uint, 2 float, 3 opaque (raw), 5 complex, 6 bool
         */
        public int dlpackCode() {
            return dlpackCode;
        }
    }

    /** {@code bool}: one byte per element, 0 for false and 1 for true. */
    public static final DataType BOOL = new DataType("bool", Kind.BOOL, 1);
    /** {@code int8}: signed 8-bit integers. */
    public static final DataType INT8 = new DataType("int8", Kind.INT, 1);
    /** {@code int16}: signed 16-bit integers, 2 bytes. */
    public static final DataType INT16 = new DataType("int16", Kind.INT, 2);
    /** {@code int32}: signed 32-bit integers, 4 bytes. */
    public static final DataType INT32 = new DataType("int32", Kind.INT, 4);
    /** {@code int64}: signed 64-bit integers, 8 bytes. */
    public static final DataType INT64 = new DataType("int64", Kind.INT, 8);
    /** {@code uint8}: unsigned 8-bit integers. */
    public static final DataType UINT8 = new DataType("uint8", Kind.UINT, 1);
    /** {@code uint16}: unsigned 16-bit integers, 2 bytes. */
    public static final DataType UINT16 = new DataType("uint16", Kind.UINT, 2);
    /** {@code uint32}: unsigned 32-bit integers, 4 bytes. */
    public static final DataType UINT32 = new DataType("uint32", Kind.UINT, 4);
    /** {@code uint64}: unsigned 64-bit integers, 8 bytes. */
    public static final DataType UINT64 = new DataType("uint64", Kind.UINT, 8);
    /** {@code float16}: IEEE 754 half precision, 2 bytes. */
    public static final DataType FLOAT16 = new DataType("float16", Kind.FLOAT, 2);
    /** {@code float32}: IEEE 754 single precision, 4 bytes. */
    public static final DataType FLOAT32 = new DataType("float32", Kind.FLOAT, 4);
    /** {@code float64}: IEEE 754 double precision, 8 bytes. */
    public static final DataType FLOAT64 = new DataType("float64", Kind.FLOAT, 8);
    /** {@code complex64}: two {@code float32}, real then imaginary; 8 bytes. */
    public static final DataType COMPLEX64 = new DataType("complex64", Kind.COMPLEX, 8);
    /** {@code complex128}: two {@code float64}, real then imaginary; 16 bytes. */
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

    /**
     * A raw type of {@code bits} bits, {@code r<bits>}, whose elements are {@code bits / 8} bytes
     * that are never byte-swapped. Each call returns a new instance, equal to any other of the same
     * width.
     *
     * @param bits the width in bits, a positive multiple of 8
     * @return the raw data type {@code r<bits>}
     * @throws IllegalArgumentException when {@code bits} is not a positive multiple of 8
     */
    public static DataType raw(int bits) {
        if (bits <= 0 || bits % 8 != 0) {
            throw new IllegalArgumentException("raw data type needs a positive multiple of 8 bits, got r" + bits);
        }
        return new DataType("r" + bits, Kind.RAW, bits / 8);
    }

    /**
     * The data type named {@code name} in Zarr v3 metadata ({@code "float32"}, {@code "r24"}). Names
     * are case-sensitive and not trimmed.
     *
     * {@snippet :
     * DataType t = DataType.parse("float32");   // DataType.FLOAT32, 4 bytes per element
     * DataType r = DataType.parse("r24");       // raw, 3 bytes per element
     * }
     *
     * @param name the name as the metadata spells it
     * @return the named constant, or a raw type for {@code r<bits>}
     * @throws NullPointerException     when {@code name} is null
     * @throws IllegalArgumentException when no data type has that name (the message lists the known
     *                                  ones), or for {@code r<N>} whose N is not a positive multiple of 8
     */
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

    /**
     * All named (non-raw) data types, in the order of the constants above.
     *
     * @return an unmodifiable list of the 14 named data types
     */
    public static List<DataType> named() {
        return NAMED;
    }

    /**
     * The name as Zarr v3 metadata spells it: {@code "float32"}, {@code "r24"}.
     *
     * @return the name; {@link #parse(String)} of it gives back an equal data type
     */
    public String name() {
        return name;
    }

    /**
     * The family: integer, floating point, complex, bool or raw.
     *
     * @return the family, never null
     */
    public Kind kind() {
        return kind;
    }

    /**
     * The size of one element in bytes (not bits): 4 for {@code float32}, 16 for {@code complex128},
     * 3 for {@code r24}.
     *
     * @return bytes per element, at least 1
     */
    public int byteSize() {
        return byteSize;
    }

    /**
     * The size of the unit a byte swap reverses: the element size, except for complex numbers whose
     * two halves are swapped separately, and bool and raw types which are never swapped.
     *
     * @return the swap unit in bytes: 1 for bool, raw and one-byte types, half the element size for
     *         complex types, the element size otherwise
     */
    public int swapUnit() {
        return switch (kind) {
            case BOOL, RAW -> 1;
            case COMPLEX -> byteSize / 2;
            default -> byteSize;
        };
    }

    /**
     * Two data types are equal when their {@linkplain #name() names} are.
     *
     * @param o the object to compare with
     * @return true for a data type of the same name
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof DataType d && d.name.equals(name);
    }

    /**
     * A hash of the name, consistent with {@link #equals(Object)}.
     *
     * @return the name's hash code
     */
    @Override
    public int hashCode() {
        return name.hashCode();
    }

    /**
     * The {@linkplain #name() name}, as metadata and messages write it.
     *
     * @return the name
     */
    @Override
    public String toString() {
        return name;
    }
}
