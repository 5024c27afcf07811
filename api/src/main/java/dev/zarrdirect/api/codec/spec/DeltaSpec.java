// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.codec.ChunkSpec;

import java.util.Map;
import java.util.Set;

/**
 * The configuration of numcodecs' {@code delta} filter ({@code numcodecs.delta}, v2 id {@code delta}),
 * read once for every implementation: {@code {"dtype": numpy typestr, "astype": numpy typestr}}.
 *
 * <p>In C order over the whole chunk, element 0 is stored as it is and every later element as its
 * difference from the one before, computed in {@code dtype} (wrapping for integers, rounded for
 * floats, as numpy does); decoding is the running sum in the same order.
 *
 * <p>Types: integers {@code i1 i2 i4 i8 u1 u2 u4 u8} and floats {@code f2 f4 f8}, each with an
 * optional byte order prefix ({@code < > | =}). The order does not matter: the codec works on values
 * (chunks in memory are little-endian; the {@code bytes} codec of the chain applies the stored order).
 * {@code dtype} must be the array's data type. {@code astype} (default: {@code dtype}) may differ only
 * as a signed/unsigned integer of the same size, whose wrapping differences have the same bits; every
 * other cast would lose information and is rejected.
 *
 * @param dtype     the type the differences are computed in (the array's)
 * @param astype    the type they are stored as
 * @param dtypeText {@code dtype} as the configuration spells it, for messages
 */
public record DeltaSpec(DataType dtype, DataType astype, String dtypeText) {

    /** The codec's v3 name. */
    public static final String NAME = "numcodecs.delta";

    /**
     * Reads a configuration.
     *
     * @param configuration the {@code configuration} object from the metadata
     * @return the spec
     * @throws IllegalArgumentException for an unknown field, a missing {@code dtype}, a type that is
     *                                  not an integer or float typestr, or a lossy {@code astype}
     */
    public static DeltaSpec parse(Map<String, Object> configuration) {
        CodecConfigReader c = CodecConfigReader.of(NAME, configuration, Set.of("dtype", "astype", "id"));
        if (c.has("id")) {
            c.choice("id", Set.of("delta"));
        }
        if (!c.has("dtype")) {
            throw new IllegalArgumentException("codec \"" + NAME + "\": configuration field \"dtype\" is required");
        }
        Object d = configuration.get("dtype");
        DataType dtype = type(c, "dtype", d);
        Object a = configuration.get("astype");
        DataType astype = a == null ? dtype : type(c, "astype", a);
        if (!astype.equals(dtype)) {
            boolean sameSizeInts = astype.byteSize() == dtype.byteSize() && integer(dtype) && integer(astype);
            if (!sameSizeInts) {
                throw c.bad("astype", a, "the dtype " + d + " (" + dtype + ") or the integer of its size with the"
                        + " other signedness; a cast from " + dtype + " to " + astype + " would lose information,"
                        + " which this implementation does not support");
            }
        }
        return new DeltaSpec(dtype, astype, (String) d);
    }

    private static boolean integer(DataType t) {
        return t.kind() == DataType.Kind.INT || t.kind() == DataType.Kind.UINT;
    }

    private static DataType type(CodecConfigReader c, String field, Object v) {
        if (!(v instanceof String s)) {
            throw c.bad(field, v, "a numpy type string such as \"<i4\"");
        }
        String t = !s.isEmpty() && "<>|=".indexOf(s.charAt(0)) >= 0 ? s.substring(1) : s;
        DataType type = switch (t) {
            case "i1" -> DataType.INT8;
            case "i2" -> DataType.INT16;
            case "i4" -> DataType.INT32;
            case "i8" -> DataType.INT64;
            case "u1" -> DataType.UINT8;
            case "u2" -> DataType.UINT16;
            case "u4" -> DataType.UINT32;
            case "u8" -> DataType.UINT64;
            case "f2" -> DataType.FLOAT16;
            case "f4" -> DataType.FLOAT32;
            case "f8" -> DataType.FLOAT64;
            default -> null;
        };
        if (type == null) {
            throw c.bad(field, v, "an integer or float numpy type string: [<>|=]{i1,i2,i4,i8,u1,u2,u4,u8,f2,f4,f8}");
        }
        return type;
    }

    /**
     * Whether the sums are floating point (order-dependent, see the device implementations) rather
     * than integers wrapping at the element size.
     *
     * @return true for {@code f2 f4 f8}
     */
    public boolean floating() {
        return dtype.kind() == DataType.Kind.FLOAT;
    }

    /**
     * The representation encoding {@code decoded} produces: {@code astype}, same shape.
     *
     * @param decoded the chunk as the array holds it
     * @return the encoded chunk
     * @throws IllegalArgumentException when {@code decoded} is not of {@code dtype}
     */
    public ChunkSpec encodedSpec(ChunkSpec decoded) {
        if (!decoded.dataType().equals(dtype)) {
            throw new IllegalArgumentException("codec \"" + NAME + "\" with dtype \"" + dtypeText + "\" (" + dtype
                    + ") cannot apply to a chunk of " + decoded + "; the dtype must be the array's data type");
        }
        return new ChunkSpec(astype, decoded.shape());
    }
}
