// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.codec.ChunkSpec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransposeOrderTest {

    private static TransposeOrder order(long... axes) {
        List<Object> l = new ArrayList<>();
        for (long a : axes) {
            l.add(a);
        }
        return TransposeOrder.parse("transpose", Map.of("order", l));
    }

    private static String error(Map<String, Object> configuration) {
        return assertThrows(IllegalArgumentException.class, () -> TransposeOrder.parse("transpose", configuration))
                .getMessage();
    }

    @Test
    void parsesAPermutationAndItsInverse() {
        TransposeOrder o = order(2, 0, 1);
        assertEquals(3, o.rank());
        assertArrayEquals(new int[]{2, 0, 1}, o.order());
        assertArrayEquals(new int[]{1, 2, 0}, o.inverse());
        assertFalse(o.isIdentity());
        assertTrue(order(0, 1, 2).isIdentity());
        assertTrue(order().isIdentity());
        assertEquals("[2, 0, 1]", o.toString());
        assertEquals(o, TransposeOrder.parse("transpose", Map.of("order", List.of(2, (short) 0, (byte) 1))));
    }

    @Test
    void rejectsWhatIsNotAPermutationNamingTheElement() {
        assertEquals("codec \"transpose\": configuration field \"order\" is [0, 0] (List12), must be a permutation"
                + " of 0..1, but axis 0 appears twice", error(Map.of("order", List.of(0L, 0L))));
        assertEquals("codec \"transpose\": configuration field \"order\" is [0, 2] (List12), must be a permutation"
                + " of 0..1, but element 1 is 2, out of range", error(Map.of("order", List.of(0L, 2L))));
        assertEquals("codec \"transpose\": configuration field \"order\" is [0, -1] (List12), must be a permutation"
                + " of 0..1, but element 1 is -1, out of range", error(Map.of("order", List.of(0L, -1L))));
        assertEquals("codec \"transpose\": configuration field \"order\" is [0] (List12), must be a permutation"
                + " of 0..0, but element 0 is 0", error(Map.of("order", List.of("0"))));
        assertEquals("codec \"transpose\": configuration field \"order\" is required", error(Map.of()));
        assertTrue(error(Map.of("order", List.of(0L), "extra", true)).contains("unknown configuration field \"extra\""));
        assertTrue(error(Map.of("order", "C")).contains("must be a list"));
    }

    @Test
    void encodedSpecPermutesTheShapeAndDecodedSpecUndoesIt() {
        TransposeOrder o = order(2, 0, 1);
        ChunkSpec decoded = new ChunkSpec(DataType.FLOAT32, new long[]{2, 3, 5});
        ChunkSpec encoded = o.encodedSpec(decoded);
        assertEquals(new ChunkSpec(DataType.FLOAT32, new long[]{5, 2, 3}), encoded);
        assertEquals(decoded, o.decodedSpec(encoded));
    }

    @Test
    void aChunkOfAnotherRankIsRejectedInEveryDirection() {
        TransposeOrder o = order(1, 0);
        ChunkSpec rank3 = new ChunkSpec(DataType.INT8, new long[]{1, 2, 3});
        String want = "codec \"transpose\" with order [1, 0] needs rank 2, but the chunk is int8[1, 2, 3] of rank 3";
        assertEquals(want, assertThrows(IllegalArgumentException.class, () -> o.encodedSpec(rank3)).getMessage());
        assertEquals(want, assertThrows(IllegalArgumentException.class, () -> o.decodedSpec(rank3)).getMessage());
        assertEquals(want, assertThrows(IllegalArgumentException.class, () -> o.encodeInputStrides(rank3)).getMessage());
        assertEquals(want, assertThrows(IllegalArgumentException.class, () -> o.decodeInputStrides(rank3)).getMessage());
    }

    @Test
    void cStridesAreInElements() {
        assertArrayEquals(new long[]{15, 5, 1}, TransposeOrder.cStrides(new long[]{2, 3, 5}));
        assertArrayEquals(new long[0], TransposeOrder.cStrides(new long[0]));
    }

    @Test
    void inputStridesMoveEveryElementWhereTheSpecificationSaysAndBack() {
        long seed = new Random().nextLong();
        Random r = new Random(seed);
        for (int round = 0; round < 50; round++) {
            int rank = 1 + r.nextInt(5);
            List<Object> axes = new ArrayList<>();
            long[] shape = new long[rank];
            for (int i = 0; i < rank; i++) {
                axes.add((long) i);
                shape[i] = 1 + r.nextInt(4);
            }
            Collections.shuffle(axes, r);
            TransposeOrder o = TransposeOrder.parse("transpose", Map.of("order", axes));
            ChunkSpec decoded = new ChunkSpec(DataType.UINT16, shape);
            long[] encodedShape = o.encodedSpec(decoded).shape();
            int n = (int) decoded.elementCount();
            long[] in = new long[n];
            for (int i = 0; i < n; i++) {
                in[i] = i;
            }
            long[] enc = gather(in, encodedShape, o.encodeInputStrides(decoded));
            // encoded[i_0..i_r] == decoded[j] with j[order[k]] = i_k
            int[] ord = o.order();
            long[] dStrides = TransposeOrder.cStrides(shape);
            long[] eStrides = TransposeOrder.cStrides(encodedShape);
            for (int flat = 0; flat < n; flat++) {
                long rest = flat;
                long src = 0;
                for (int k = 0; k < rank; k++) {
                    long idx = rest / eStrides[k];
                    rest %= eStrides[k];
                    src += idx * dStrides[ord[k]];
                }
                assertEquals(src, enc[flat], "seed " + seed + ", order " + o + ", shape " + decoded);
            }
            assertArrayEquals(in, gather(enc, shape, o.decodeInputStrides(decoded)), "seed " + seed);
        }
    }

    /** out[C-order index over outShape] = in[sum index_k * strides[k]]. */
    private static long[] gather(long[] in, long[] outShape, long[] strides) {
        long[] out = new long[in.length];
        long[] outStrides = TransposeOrder.cStrides(outShape);
        for (int flat = 0; flat < in.length; flat++) {
            long rest = flat;
            long src = 0;
            for (int k = 0; k < outShape.length; k++) {
                src += (rest / outStrides[k]) * strides[k];
                rest %= outStrides[k];
            }
            out[flat] = in[(int) src];
        }
        return out;
    }
}
