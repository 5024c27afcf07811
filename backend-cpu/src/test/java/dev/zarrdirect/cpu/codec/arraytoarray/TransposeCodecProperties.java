// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.arraytoarray;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;

class TransposeCodecProperties {

    private static final int[] ELEMENT_SIZES = {1, 2, 3, 4, 8, 16};

    private static DataType typeOfSize(int bytes) {
        return switch (bytes) {
            case 1 -> DataType.UINT8;
            case 2 -> DataType.FLOAT16;
            case 4 -> DataType.FLOAT32;
            case 8 -> DataType.COMPLEX64;
            case 16 -> DataType.COMPLEX128;
            default -> DataType.raw(bytes * 8);
        };
    }

    /** Encoding by the specification's words, one element at a time. */
    private static byte[] reference(byte[] decoded, long[] shape, int[] order, int elem) {
        int rank = shape.length;
        long[] enc = new long[rank];
        for (int i = 0; i < rank; i++) {
            enc[i] = shape[order[i]];
        }
        long[] dStride = new long[rank];
        long acc = 1;
        for (int i = rank - 1; i >= 0; i--) {
            dStride[i] = acc;
            acc *= shape[i];
        }
        byte[] out = new byte[decoded.length];
        long count = acc;
        long[] idx = new long[rank];
        for (long e = 0; e < count; e++) {
            long rest = e;
            for (int i = rank - 1; i >= 0; i--) {
                idx[i] = rest % enc[i];
                rest /= enc[i];
            }
            long src = 0;
            for (int i = 0; i < rank; i++) {
                src += idx[i] * dStride[order[i]];
            }
            System.arraycopy(decoded, (int) (src * elem), out, (int) (e * elem), elem);
        }
        return out;
    }

    private static Map<String, Object> config(int[] order) {
        return Map.of("order", Arrays.stream(order).mapToObj(i -> (Object) (long) i).toList());
    }

    private static void check(long[] shape, int[] order, int elem, long seed) {
        TransposeCodec codec = TransposeCodec.create(config(order));
        ChunkSpec spec = new ChunkSpec(typeOfSize(elem), shape);
        int bytes = (int) spec.byteSize();
        byte[] data = random(new Random(seed), bytes);
        String what = "shape " + Arrays.toString(shape) + " order " + Arrays.toString(order) + " elem " + elem
                + " seed " + seed;
        try (CpuBackend backend = trackingBackend(); HostBuffer in = buffer(backend, data);
             HostBuffer enc = empty(backend, bytes); HostBuffer dec = empty(backend, bytes)) {
            CodecBatch e = CodecBatch.of(in, enc, "chunk [0]");
            codec.encode(spec, e);
            e.throwIfFailed();
            assertArrayEquals(reference(data, shape, order, elem), bytes(enc), what);
            CodecBatch d = CodecBatch.of(enc, dec, "chunk [0]");
            codec.decode(spec, d);
            d.throwIfFailed();
            assertArrayEquals(data, bytes(dec), "decode(encode(x)) == x for " + what);
            long[] expectedShape = new long[shape.length];
            for (int i = 0; i < shape.length; i++) {
                expectedShape[i] = shape[order[i]];
            }
            assertArrayEquals(expectedShape, codec.encodedSpec(spec).shape(), what);
        }
    }

    @Property(tries = 400)
    void encodeMatchesTheSpecificationAndDecodeInvertsIt(@ForAll @IntRange(min = 1, max = 4) int rank,
                                                         @ForAll long seed) {
        Random r = new Random(seed);
        long[] shape = new long[rank];
        for (int i = 0; i < rank; i++) {
            shape[i] = r.nextInt(rank <= 2 ? 70 : 9) + (r.nextInt(10) == 0 ? 0 : 1);
        }
        List<Integer> perm = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            perm.add(i);
        }
        Collections.shuffle(perm, r);
        int[] order = perm.stream().mapToInt(Integer::intValue).toArray();
        check(shape, order, ELEMENT_SIZES[r.nextInt(ELEMENT_SIZES.length)], seed);
    }

    @Example
    void largeChunksTakeEveryLoopOfTheKernel() {
        check(new long[] {300, 257}, new int[] {1, 0}, 4, 1);          // tiled 2-D transpose
        check(new long[] {7, 64, 33}, new int[] {1, 0, 2}, 8, 2);      // last axis stays last: row copies
        check(new long[] {5, 6, 7, 8}, new int[] {3, 1, 2, 0}, 2, 3);  // strided, with tiles
        check(new long[] {4, 1, 9, 1}, new int[] {2, 3, 0, 1}, 3, 4);  // extent-1 axes and odd element size
        check(new long[] {1024, 1024}, new int[] {1, 0}, 4, 5);        // a 4 MiB float32 chunk
    }

    @Example
    void orderThatIsNotAPermutationIsRejectedAtCreate() {
        IllegalArgumentException dup = assertThrows(IllegalArgumentException.class,
                () -> TransposeCodec.create(config(new int[] {0, 0})));
        assertTrue(dup.getMessage().contains("transpose") && dup.getMessage().contains("order")
                && dup.getMessage().contains("twice"), dup.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                () -> TransposeCodec.create(config(new int[] {0, 2})));
        assertTrue(range.getMessage().contains("out of range"), range.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TransposeCodec.create(Map.of()));
        assertThrows(IllegalArgumentException.class, () -> TransposeCodec.create(Map.of("order", List.of("0"))));
        assertThrows(IllegalArgumentException.class,
                () -> TransposeCodec.create(Map.of("order", List.of(0L), "extra", true)));
    }

    @Example
    void rankMismatchIsAnIllegalArgument() {
        TransposeCodec codec = TransposeCodec.create(config(new int[] {1, 0}));
        ChunkSpec rank3 = new ChunkSpec(DataType.INT8, new long[] {2, 2, 2});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> codec.encodedSpec(rank3));
        assertTrue(e.getMessage().contains("rank 2") && e.getMessage().contains("rank 3"), e.getMessage());
        try (CpuBackend backend = trackingBackend(); HostBuffer b = empty(backend, 8); HostBuffer o = empty(backend, 8)) {
            assertThrows(IllegalArgumentException.class, () -> codec.decode(rank3, CodecBatch.of(b, o, "c")));
            assertThrows(IllegalArgumentException.class, () -> codec.encode(rank3, CodecBatch.of(b, o, "c")));
        }
    }

    @Example
    void overlappingInputAndOutputStillTransposeCorrectly() {
        TransposeCodec codec = TransposeCodec.create(config(new int[] {1, 0}));
        ChunkSpec spec = new ChunkSpec(DataType.INT16, new long[] {3, 5});
        byte[] data = random(new Random(9), 30);
        try (CpuBackend backend = trackingBackend(); HostBuffer buf = buffer(backend, data)) {
            CodecBatch b = CodecBatch.of(buf, buf, "chunk [0]");
            codec.encode(spec, b);
            b.throwIfFailed();
            assertArrayEquals(reference(data, new long[] {3, 5}, new int[] {1, 0}, 2), bytes(buf));
        }
    }
}
