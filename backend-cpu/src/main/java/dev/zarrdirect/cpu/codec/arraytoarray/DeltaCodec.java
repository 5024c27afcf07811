// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.arraytoarray;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.CodecConfigReader;
import dev.zarrdirect.cpu.codec.CodecItems;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.Set;

/**
 * numcodecs' {@code delta} filter on the CPU ({@code "numcodecs.delta"}): in C order over the whole
 * chunk, element 0 is kept and every later element is stored as its difference from the one before,
 * computed in {@code dtype} (wrapping for integers, rounded for floats, as numpy does); decoding is the
 * running sum. The element count and shape do not change.
 *
 * <h2>Configuration</h2>
 * {@code {"dtype": numpy typestr, "astype": numpy typestr}}: integers {@code i1 i2 i4 i8 u1 u2 u4 u8}
 * and floats {@code f2 f4 f8}, each with an optional byte order prefix ({@code < > | =}). The order
 * does not matter here: the codec works on values (the in-memory representation is little-endian;
 * the {@code bytes} codec of the chain applies the stored order), which gives the same stored bytes as
 * numcodecs working on big-endian arrays. {@code dtype} must be the array's data type. {@code astype}
 * (default: {@code dtype}) may differ only as a signed/unsigned integer of the same size, whose
 * wrapping differences have the same bits; every other cast would lose information and is rejected.
 */
public final class DeltaCodec implements ArrayToArrayCodec {

    public static final String NAME = "numcodecs.delta";
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(LE);

    private final DataType dtype;
    private final DataType astype;
    private final String dtypeText;

    private DeltaCodec(DataType dtype, DataType astype, String dtypeText) {
        this.dtype = dtype;
        this.astype = astype;
        this.dtypeText = dtypeText;
    }

    /** Reads the configuration described in the class documentation; an {@code "id"}, if present, must be "delta". */
    public static DeltaCodec create(Map<String, Object> configuration) {
        CodecConfigReader c = CodecConfigReader.of(NAME, configuration, Set.of("dtype", "astype", "id"));
        if (c.has("id")) {
            c.choice("id", Set.of("delta"));
        }
        if (!c.has("dtype")) {
            throw new IllegalArgumentException("codec \"" + NAME + "\": configuration field \"dtype\" is required");
        }
        Object d = configuration.get("dtype");
        DataType dtype = parse(c, "dtype", d);
        Object a = configuration.get("astype");
        DataType astype = a == null ? dtype : parse(c, "astype", a);
        if (!astype.equals(dtype)) {
            boolean sameSizeInts = astype.byteSize() == dtype.byteSize()
                    && (dtype.kind() == DataType.Kind.INT || dtype.kind() == DataType.Kind.UINT)
                    && (astype.kind() == DataType.Kind.INT || astype.kind() == DataType.Kind.UINT);
            if (!sameSizeInts) {
                throw c.bad("astype", a, "the dtype " + d + " (" + dtype + ") or the integer of its size with the"
                        + " other signedness; a cast from " + dtype + " to " + astype + " would lose information,"
                        + " which this implementation does not support");
            }
        }
        return new DeltaCodec(dtype, astype, (String) d);
    }

    private static DataType parse(CodecConfigReader c, String field, Object v) {
        if (!(v instanceof String s)) {
            throw c.bad(field, v, "a numpy type string such as \"<i4\"");
        }
        String t = s;
        if (!t.isEmpty() && "<>|=".indexOf(t.charAt(0)) >= 0) {
            t = t.substring(1);
        }
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

    public DataType dtype() {
        return dtype;
    }

    public DataType astype() {
        return astype;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Device device() {
        return Device.CPU;
    }

    @Override
    public String provider() {
        return "cpu";
    }

    @Override
    public ChunkSpec encodedSpec(ChunkSpec decoded) {
        if (!decoded.dataType().equals(dtype)) {
            throw new IllegalArgumentException("codec \"" + NAME + "\" with dtype \"" + dtypeText + "\" (" + dtype
                    + ") cannot apply to a chunk of " + decoded + "; the dtype must be the array's data type");
        }
        return new ChunkSpec(astype, decoded.shape());
    }

    @Override
    public void encode(ChunkSpec decoded, CodecBatch batch) {
        run(decoded, batch, true);
    }

    @Override
    public void decode(ChunkSpec decoded, CodecBatch batch) {
        run(decoded, batch, false);
    }

    private void run(ChunkSpec decoded, CodecBatch batch, boolean encode) {
        ChunkSpec encoded = encodedSpec(decoded);
        long size = decoded.byteSize();
        long count = decoded.elementCount();
        String direction = encode ? "encode" : "decode";
        CodecItems.forEach(NAME, direction, batch, (i, in, out) -> {
            if (in.byteSize() != size) {
                throw new CorruptChunkException(NAME, NAME + " " + direction + " of " + batch.label(i) + ": input is "
                        + in.byteSize() + " bytes, expected " + size + " for " + (encode ? decoded : encoded));
            }
            if (out.byteSize() < size) {
                throw new IllegalArgumentException("output of " + out.byteSize() + " bytes is smaller than the "
                        + size + " bytes of " + (encode ? encoded : decoded));
            }
            if (CodecItems.overlap(in, out.asSlice(0, size)) && !CodecItems.sameStart(in, out)) {
                throw new IllegalArgumentException(NAME + " " + direction + " of " + batch.label(i)
                        + " needs its output at the same place as its input or apart from it, but they partly overlap");
            }
            if (encode) {
                encode(in, out, count);
            } else {
                decode(in, out, count);
            }
            batch.complete(i, size);
        });
    }

    // Each loop reads element k before writing it, so input and output may be the same memory.

    private void encode(MemorySegment in, MemorySegment out, long n) {
        switch (dtype.kind()) {
            case FLOAT -> {
                switch (dtype.byteSize()) {
                    case 2 -> {
                        float prev = 0;
                        for (long k = 0; k < n; k++) {
                            float cur = Float.float16ToFloat(in.getAtIndex(SHORT, k));
                            out.setAtIndex(SHORT, k, k == 0 ? Float.floatToFloat16(cur) : Float.floatToFloat16(cur - prev));
                            prev = cur;
                        }
                    }
                    case 4 -> {
                        float prev = 0;
                        for (long k = 0; k < n; k++) {
                            float cur = in.getAtIndex(FLOAT, k);
                            out.setAtIndex(FLOAT, k, k == 0 ? cur : cur - prev);
                            prev = cur;
                        }
                    }
                    default -> {
                        double prev = 0;
                        for (long k = 0; k < n; k++) {
                            double cur = in.getAtIndex(DOUBLE, k);
                            out.setAtIndex(DOUBLE, k, k == 0 ? cur : cur - prev);
                            prev = cur;
                        }
                    }
                }
            }
            default -> {
                long prev = 0;
                for (long k = 0; k < n; k++) {
                    long cur = getInt(in, k);
                    setInt(out, k, cur - prev);
                    prev = cur;
                }
            }
        }
    }

    private void decode(MemorySegment in, MemorySegment out, long n) {
        switch (dtype.kind()) {
            case FLOAT -> {
                switch (dtype.byteSize()) {
                    case 2 -> {
                        short acc = 0;
                        for (long k = 0; k < n; k++) {
                            short d = in.getAtIndex(SHORT, k);
                            acc = k == 0 ? d : Float.floatToFloat16(Float.float16ToFloat(acc) + Float.float16ToFloat(d));
                            out.setAtIndex(SHORT, k, acc);
                        }
                    }
                    case 4 -> {
                        float acc = 0;
                        for (long k = 0; k < n; k++) {
                            acc = k == 0 ? in.getAtIndex(FLOAT, k) : acc + in.getAtIndex(FLOAT, k);
                            out.setAtIndex(FLOAT, k, acc);
                        }
                    }
                    default -> {
                        double acc = 0;
                        for (long k = 0; k < n; k++) {
                            acc = k == 0 ? in.getAtIndex(DOUBLE, k) : acc + in.getAtIndex(DOUBLE, k);
                            out.setAtIndex(DOUBLE, k, acc);
                        }
                    }
                }
            }
            default -> {
                long acc = 0;
                for (long k = 0; k < n; k++) {
                    acc += getInt(in, k);
                    setInt(out, k, acc);
                }
            }
        }
    }

    /** The integer element {@code k} (its low bits are what matters: arithmetic wraps at the element size). */
    private long getInt(MemorySegment s, long k) {
        return switch (dtype.byteSize()) {
            case 1 -> s.get(ValueLayout.JAVA_BYTE, k);
            case 2 -> s.getAtIndex(SHORT, k);
            case 4 -> s.getAtIndex(INT, k);
            default -> s.getAtIndex(LONG, k);
        };
    }

    private void setInt(MemorySegment s, long k, long v) {
        switch (dtype.byteSize()) {
            case 1 -> s.set(ValueLayout.JAVA_BYTE, k, (byte) v);
            case 2 -> s.setAtIndex(SHORT, k, (short) v);
            case 4 -> s.setAtIndex(INT, k, (int) v);
            default -> s.setAtIndex(LONG, k, v);
        }
    }
}
