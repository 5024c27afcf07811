// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.arraytoarray;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.DeltaSpec;
import dev.zarrdirect.cpu.codec.CodecItems;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Map;

/**
 * numcodecs' {@code delta} filter on the CPU ({@code "numcodecs.delta"}): in C order over the whole
 * chunk, element 0 is kept and every later element is stored as its difference from the one before,
 * computed in {@code dtype} (wrapping for integers, rounded for floats, as numpy does); decoding is the
 * running sum. The element count and shape do not change.
 *
 * <h2>Configuration</h2>
 * As {@link DeltaSpec} reads it, on every backend. This class defines the bytes the device
 * implementations must give, floats included: their sums run in this class's sequential order.
 */
public final class DeltaCodec implements ArrayToArrayCodec {

    public static final String NAME = DeltaSpec.NAME;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(LE);

    private final DeltaSpec spec;
    private final DataType dtype;

    private DeltaCodec(DeltaSpec spec) {
        this.spec = spec;
        this.dtype = spec.dtype();
    }

    /** Reads the configuration described in the class documentation ({@link DeltaSpec}). */
    public static DeltaCodec create(Map<String, Object> configuration) {
        return new DeltaCodec(DeltaSpec.parse(configuration));
    }

    public DataType dtype() {
        return dtype;
    }

    public DataType astype() {
        return spec.astype();
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
        return spec.encodedSpec(decoded);
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

    // Each loop reads element k before writing it, so input and output may be the same memory. Each
    // element type has loops of its own: one loop for all integer sizes read and wrote through a
    // switch on the size, slow once the JIT had seen two sizes, likely as it then could not
    // specialize it (one core, 64 MiB, in a JVM that decoded int16 first: int32 0.57-0.63 GB/s
    // against 6.9-8.0 now, int8 0.17-0.18 against 2.5-3.1; first calls 209-223 and 416-632 ms
    // against 67-112 and 88-126). Tiles in Java arrays, as the shuffles use, were slower here
    // (int16 1.7-2.1 GB/s against 4.6-5.7).

    private void encode(MemorySegment in, MemorySegment out, long n) {
        switch (dtype.kind()) {
            case FLOAT -> {
                switch (dtype.byteSize()) {
                    case 2 -> {
                        float prev = 0;
                        for (long k = 0; k < n; k++) {
                            short bits = in.getAtIndex(SHORT, k);
                            float cur = Float.float16ToFloat(bits);
                            // element 0 is copied, as numpy copies it: converting it there and back would
                            // quiet a signaling NaN where the JIT uses the F16C instructions, not elsewhere
                            out.setAtIndex(SHORT, k, k == 0 ? bits : Float.floatToFloat16(cur - prev));
                            prev = cur;
                        }
                    }
                    case 4 -> encodeFloats(in, out, n);
                    default -> encodeDoubles(in, out, n);
                }
            }
            default -> {
                switch (dtype.byteSize()) {
                    case 1 -> encodeBytes(in, out, n);
                    case 2 -> encodeShorts(in, out, n);
                    case 4 -> encodeInts(in, out, n);
                    default -> encodeLongs(in, out, n);
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
                    case 4 -> decodeFloats(in, out, n);
                    default -> decodeDoubles(in, out, n);
                }
            }
            default -> {
                switch (dtype.byteSize()) {
                    case 1 -> decodeBytes(in, out, n);
                    case 2 -> decodeShorts(in, out, n);
                    case 4 -> decodeInts(in, out, n);
                    default -> decodeLongs(in, out, n);
                }
            }
        }
    }

    // Integers wrap, so element 0 needs no case of its own: it is its difference from 0.

    private static void encodeBytes(MemorySegment in, MemorySegment out, long n) {
        byte prev = 0;
        for (long k = 0; k < n; k++) {
            byte cur = in.get(ValueLayout.JAVA_BYTE, k);
            out.set(ValueLayout.JAVA_BYTE, k, (byte) (cur - prev));
            prev = cur;
        }
    }

    private static void decodeBytes(MemorySegment in, MemorySegment out, long n) {
        int acc = 0; // wider than the element, narrowed when stored: the low bits are the same
        for (long k = 0; k < n; k++) {
            acc += in.get(ValueLayout.JAVA_BYTE, k);
            out.set(ValueLayout.JAVA_BYTE, k, (byte) acc);
        }
    }

    private static void encodeShorts(MemorySegment in, MemorySegment out, long n) {
        short prev = 0;
        for (long k = 0; k < n; k++) {
            short cur = in.getAtIndex(SHORT, k);
            out.setAtIndex(SHORT, k, (short) (cur - prev));
            prev = cur;
        }
    }

    private static void decodeShorts(MemorySegment in, MemorySegment out, long n) {
        int acc = 0; // wider than the element, narrowed when stored: the low bits are the same
        for (long k = 0; k < n; k++) {
            acc += in.getAtIndex(SHORT, k);
            out.setAtIndex(SHORT, k, (short) acc);
        }
    }

    private static void encodeInts(MemorySegment in, MemorySegment out, long n) {
        int prev = 0;
        for (long k = 0; k < n; k++) {
            int cur = in.getAtIndex(INT, k);
            out.setAtIndex(INT, k, cur - prev);
            prev = cur;
        }
    }

    private static void decodeInts(MemorySegment in, MemorySegment out, long n) {
        int acc = 0;
        for (long k = 0; k < n; k++) {
            acc += in.getAtIndex(INT, k);
            out.setAtIndex(INT, k, acc);
        }
    }

    private static void encodeLongs(MemorySegment in, MemorySegment out, long n) {
        long prev = 0;
        for (long k = 0; k < n; k++) {
            long cur = in.getAtIndex(LONG, k);
            out.setAtIndex(LONG, k, cur - prev);
            prev = cur;
        }
    }

    private static void decodeLongs(MemorySegment in, MemorySegment out, long n) {
        long acc = 0;
        for (long k = 0; k < n; k++) {
            acc += in.getAtIndex(LONG, k);
            out.setAtIndex(LONG, k, acc);
        }
    }

    // Floats: element 0 is kept as it is, as numpy keeps it, and the sums run left to right.

    private static void encodeFloats(MemorySegment in, MemorySegment out, long n) {
        float prev = 0;
        for (long k = 0; k < n; k++) {
            float cur = in.getAtIndex(FLOAT, k);
            out.setAtIndex(FLOAT, k, k == 0 ? cur : cur - prev);
            prev = cur;
        }
    }

    private static void decodeFloats(MemorySegment in, MemorySegment out, long n) {
        float acc = 0;
        for (long k = 0; k < n; k++) {
            acc = k == 0 ? in.getAtIndex(FLOAT, k) : acc + in.getAtIndex(FLOAT, k);
            out.setAtIndex(FLOAT, k, acc);
        }
    }

    private static void encodeDoubles(MemorySegment in, MemorySegment out, long n) {
        double prev = 0;
        for (long k = 0; k < n; k++) {
            double cur = in.getAtIndex(DOUBLE, k);
            out.setAtIndex(DOUBLE, k, k == 0 ? cur : cur - prev);
            prev = cur;
        }
    }

    private static void decodeDoubles(MemorySegment in, MemorySegment out, long n) {
        double acc = 0;
        for (long k = 0; k < n; k++) {
            acc = k == 0 ? in.getAtIndex(DOUBLE, k) : acc + in.getAtIndex(DOUBLE, k);
            out.setAtIndex(DOUBLE, k, acc);
        }
    }
}
