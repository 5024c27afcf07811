package dev.zarrdirect.cpu.codec.arraytoarray;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.codec.CodecConfig;
import dev.zarrdirect.cpu.codec.CodecItems;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

    private final int[] order;
    private final int[] inverse;

    private TransposeCodec(int[] order) {
        this.order = order;
        this.inverse = new int[order.length];
        for (int i = 0; i < order.length; i++) {
            inverse[order[i]] = i;
        }
    }

    /** Reads {@code {"order": [permutation of 0..rank-1]}}. */
    public static TransposeCodec create(Map<String, Object> configuration) {
        CodecConfig c = CodecConfig.of(NAME, configuration, Set.of("order"));
        List<?> list = c.list("order");
        int n = list.size();
        int[] order = new int[n];
        boolean[] seen = new boolean[n];
        for (int i = 0; i < n; i++) {
            Object v = list.get(i);
            if (!(v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte)) {
                throw c.bad("order", list, "a permutation of 0.." + (n - 1) + ", but element " + i + " is " + v);
            }
            long a = ((Number) v).longValue();
            if (a < 0 || a >= n) {
                throw c.bad("order", list, "a permutation of 0.." + (n - 1) + ", but element " + i + " is " + a
                        + ", out of range");
            }
            if (seen[(int) a]) {
                throw c.bad("order", list, "a permutation of 0.." + (n - 1) + ", but axis " + a + " appears twice");
            }
            seen[(int) a] = true;
            order[i] = (int) a;
        }
        return new TransposeCodec(order);
    }

    /** The permutation, a copy. */
    public int[] order() {
        return order.clone();
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

    private void checkRank(ChunkSpec spec) {
        if (spec.rank() != order.length) {
            throw new IllegalArgumentException("codec \"" + NAME + "\" with order " + Arrays.toString(order)
                    + " needs rank " + order.length + ", but the chunk is " + spec + " of rank " + spec.rank());
        }
    }

    @Override
    public ChunkSpec encodedSpec(ChunkSpec decoded) {
        checkRank(decoded);
        long[] d = decoded.shape();
        long[] e = new long[d.length];
        for (int i = 0; i < d.length; i++) {
            e[i] = d[order[i]];
        }
        return new ChunkSpec(decoded.dataType(), e);
    }

    @Override
    public void encode(ChunkSpec decoded, CodecBatch batch) {
        ChunkSpec encoded = encodedSpec(decoded);
        long[] inStrides = strides(decoded.shape());
        long[] strides = new long[order.length];
        for (int i = 0; i < order.length; i++) {
            strides[i] = inStrides[order[i]];
        }
        run(batch, "encode", decoded, encoded.shape(), strides);
    }

    @Override
    public void decode(ChunkSpec decoded, CodecBatch batch) {
        ChunkSpec encoded = encodedSpec(decoded);
        long[] inStrides = strides(encoded.shape());
        long[] strides = new long[order.length];
        for (int j = 0; j < order.length; j++) {
            strides[j] = inStrides[inverse[j]];
        }
        run(batch, "decode", decoded, decoded.shape(), strides);
    }

    private void run(CodecBatch batch, String direction, ChunkSpec spec, long[] outShape, long[] inStrides) {
        long size = spec.byteSize();
        int elem = spec.dataType().byteSize();
        boolean identity = isIdentity();
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

    private boolean isIdentity() {
        for (int i = 0; i < order.length; i++) {
            if (order[i] != i) {
                return false;
            }
        }
        return true;
    }

    private static long[] strides(long[] shape) {
        long[] s = new long[shape.length];
        long acc = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= shape[i];
        }
        return s;
    }
}
