// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.arraytobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.ArrayToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.BytesEndian;
import dev.zarrdirect.cpu.codec.CodecItems;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Map;

/**
 * The {@code bytes} codec on the CPU: the in-memory representation (C order, little-endian) as
 * stored bytes, little- or big-endian. Little-endian is a copy; big-endian swaps each
 * {@linkplain DataType#swapUnit() swap unit} (each half of a complex number separately) with the
 * JDK's bulk swapping copy. Input and output may be the same memory, or overlap.
 *
 * <p>{@code endian} may be absent only for types whose swap unit is one byte (bool, int8, uint8,
 * raw {@code r<N>}); as that depends on the chunk's data type, it is checked when a chunk is coded.
 */
public final class BytesCodec implements ArrayToBytesCodec {

    static final String NAME = "bytes";

    private final BytesEndian endian;

    private BytesCodec(BytesEndian endian) {
        this.endian = endian;
    }

    /** Reads {@code {"endian": "little"|"big"}}. */
    public static BytesCodec create(Map<String, Object> configuration) {
        return new BytesCodec(BytesEndian.parse(NAME, configuration));
    }

    /** The byte order of the stored bytes, or null when the configuration gave none. */
    public ByteOrder order() {
        return endian.order();
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
    public long encodedSize(ChunkSpec decoded) {
        endian.needsSwap(decoded.dataType());
        return decoded.byteSize();
    }

    @Override
    public long maxEncodedSize(ChunkSpec decoded) {
        return encodedSize(decoded);
    }

    @Override
    public void decode(ChunkSpec decoded, CodecBatch batch) {
        run(decoded, batch, "decode", "stored");
    }

    @Override
    public void encode(ChunkSpec decoded, CodecBatch batch) {
        run(decoded, batch, "encode", "decoded");
    }

    private void run(ChunkSpec spec, CodecBatch batch, String direction, String inputWhat) {
        boolean swap = endian.needsSwap(spec.dataType());
        long size = spec.byteSize();
        int unit = spec.dataType().swapUnit();
        CodecItems.forEach(NAME, direction, batch, (i, in, out) -> {
            if (in.byteSize() != size) {
                throw new CorruptChunkException(NAME, NAME + " " + direction + " of " + batch.label(i) + ": "
                        + inputWhat + " size is " + in.byteSize() + " bytes, expected " + size + " for " + spec);
            }
            if (out.byteSize() < size) {
                throw new IllegalArgumentException("output of " + out.byteSize() + " bytes is smaller than the "
                        + size + " bytes of " + spec);
            }
            if (swap) {
                swapCopy(in, out, size, unit);
            } else if (!CodecItems.sameStart(in, out)) {
                MemorySegment.copy(in, 0, out, 0, size);
            }
            batch.complete(i, size);
        });
    }

    /** Copies {@code size} bytes reversing every unit; overlap-safe, as {@link MemorySegment#copy} is. */
    static void swapCopy(MemorySegment in, MemorySegment out, long size, int unit) {
        ValueLayout little = switch (unit) {
            case 2 -> ValueLayout.JAVA_SHORT_UNALIGNED;
            case 4 -> ValueLayout.JAVA_INT_UNALIGNED;
            case 8 -> ValueLayout.JAVA_LONG_UNALIGNED;
            default -> throw new IllegalArgumentException("no byte swap for units of " + unit + " bytes");
        };
        little = little.withOrder(ByteOrder.LITTLE_ENDIAN);
        ValueLayout big = little.withOrder(ByteOrder.BIG_ENDIAN);
        MemorySegment.copy(in, big, 0, out, little, 0, size / unit);
    }
}
