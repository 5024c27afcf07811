// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.arraytoarray;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.TransposeOrder;
import dev.zarrdirect.cpu.codec.CodecItems;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * The {@code transpose} codec on the CPU. As the Zarr v3 specification defines it, encoding
 * permutes the axes: {@code encoded.shape[i] = decoded.shape[order[i]]}; decoding is the inverse.
 * The work is a {@link StridedCopy}: a loop over the output in C order reading the input with
 * permuted strides.
 *
 * <p>Input and output should be distinct memory; when they overlap (and the order is not the
 * identity) the input is first copied aside, which costs a temporary of the chunk's size.
 */
public final class TransposeCodec implements ArrayToArrayCodec {

    static final String NAME = "transpose";

    private final TransposeOrder order;

    private TransposeCodec(TransposeOrder order) {
        this.order = order;
    }

    /** Reads {@code {"order": [permutation of 0..rank-1]}}. */
    public static TransposeCodec create(Map<String, Object> configuration) {
        return new TransposeCodec(TransposeOrder.parse(NAME, configuration));
    }

    /** The permutation, a copy. */
    public int[] order() {
        return order.order();
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
        return order.encodedSpec(decoded);
    }

    @Override
    public void encode(ChunkSpec decoded, CodecBatch batch) {
        run(batch, "encode", decoded, encodedSpec(decoded).shape(), order.encodeInputStrides(decoded));
    }

    @Override
    public void decode(ChunkSpec decoded, CodecBatch batch) {
        run(batch, "decode", decoded, decoded.shape(), order.decodeInputStrides(decoded));
    }

    private void run(CodecBatch batch, String direction, ChunkSpec spec, long[] outShape, long[] inStrides) {
        long size = spec.byteSize();
        int elem = spec.dataType().byteSize();
        boolean identity = order.isIdentity();
        CodecItems.forEach(NAME, direction, batch, (i, in, out) -> {
            if (in.byteSize() != size) {
                throw new CorruptChunkException(NAME, NAME + " " + direction + " of " + batch.label(i) + ": input is "
                        + in.byteSize() + " bytes, expected " + size + " for " + spec);
            }
            if (out.byteSize() < size) {
                throw new IllegalArgumentException("output of " + out.byteSize() + " bytes is smaller than the "
                        + size + " bytes of " + spec);
            }
            if (identity) {
                MemorySegment.copy(in, 0, out, 0, size);
            } else if (CodecItems.overlap(in, out.asSlice(0, size))) {
                try (Arena tmp = Arena.ofConfined()) {
                    MemorySegment copy = tmp.allocate(size, 64);
                    MemorySegment.copy(in, 0, copy, 0, size);
                    StridedCopy.copy(copy, out, outShape, inStrides, elem);
                }
            } else {
                StridedCopy.copy(in, out, outShape, inStrides, elem);
            }
            batch.complete(i, size);
        });
    }
}
