// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import dev.zarrdirect.api.codec.ChunkSpec;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code order} of the {@code transpose} codec: a permutation of {@code 0..rank-1}. As the
 * Zarr v3 specification defines it, encoding permutes the axes,
 * {@code encoded.shape[i] = decoded.shape[order[i]]}; decoding is the inverse.
 *
 * <p>Both directions are a copy that writes its output in C order and reads its input through
 * permuted strides: {@link #encodeInputStrides} and {@link #decodeInputStrides} give those strides
 * in elements, for a loop over the output shape ({@code encodedSpec(decoded).shape()} when
 * encoding, {@code decoded.shape()} when decoding). Immutable.
 */
public final class TransposeOrder {

    /** The configuration field. */
    public static final String FIELD = "order";

    private final String codec;
    private final int[] order;
    private final int[] inverse;

    private TransposeOrder(String codec, int[] order) {
        this.codec = codec;
        this.order = order;
        this.inverse = new int[order.length];
        for (int i = 0; i < order.length; i++) {
            inverse[order[i]] = i;
        }
    }

    /**
     * Reads {@code {"order": [permutation of 0..rank-1]}}, the only field allowed.
     *
     * @param codec the codec's name, for messages
     * @param configuration the codec's {@code configuration} object; null reads as empty (and then fails:
     *                      {@code order} is required)
     * @return the parsed order
     * @throws IllegalArgumentException when a field is unknown, {@code order} is missing or not a list,
     *         or an element is not an integer, out of range or repeated
     */
    public static TransposeOrder parse(String codec, Map<String, Object> configuration) {
        CodecConfigReader c = CodecConfigReader.of(codec, configuration, Set.of(FIELD));
        List<?> list = c.list(FIELD);
        int n = list.size();
        int[] order = new int[n];
        boolean[] seen = new boolean[n];
        for (int i = 0; i < n; i++) {
            Object v = list.get(i);
            if (!CodecConfigReader.isInteger(v)) {
                throw c.bad(FIELD, list, "a permutation of 0.." + (n - 1) + ", but element " + i + " is " + v);
            }
            long a = ((Number) v).longValue();
            if (a < 0 || a >= n) {
                throw c.bad(FIELD, list, "a permutation of 0.." + (n - 1) + ", but element " + i + " is " + a
                        + ", out of range");
            }
            if (seen[(int) a]) {
                throw c.bad(FIELD, list, "a permutation of 0.." + (n - 1) + ", but axis " + a + " appears twice");
            }
            seen[(int) a] = true;
            order[i] = (int) a;
        }
        return new TransposeOrder(codec, order);
    }

    /**
     * The rank the order permutes.
     *
     * @return the length of the permutation
     */
    public int rank() {
        return order.length;
    }

    /**
     * The permutation, a copy.
     *
     * @return a copy of {@code order}; changing it does not change this object
     */
    public int[] order() {
        return order.clone();
    }

    /**
     * The inverse permutation ({@code inverse[order[i]] == i}), a copy.
     *
     * @return a copy of the inverse; changing it does not change this object
     */
    public int[] inverse() {
        return inverse.clone();
    }

    /**
     * Whether the order is {@code 0, 1, …, rank-1}, so that coding moves nothing.
     *
     * @return true for the identity permutation (also for rank 0)
     */
    public boolean isIdentity() {
        for (int i = 0; i < order.length; i++) {
            if (order[i] != i) {
                return false;
            }
        }
        return true;
    }

    /**
     * The encoded spec: {@code encoded.shape[i] = decoded.shape[order[i]]}, same data type.
     *
     * @param decoded the representation the codec receives when encoding
     * @return the permuted representation
     * @throws IllegalArgumentException when the rank differs from the order's
     */
    public ChunkSpec encodedSpec(ChunkSpec decoded) {
        checkRank(decoded);
        long[] d = decoded.shape();
        long[] e = new long[d.length];
        for (int i = 0; i < d.length; i++) {
            e[i] = d[order[i]];
        }
        return new ChunkSpec(decoded.dataType(), e);
    }

    /**
     * The decoded spec that {@link #encodedSpec} maps to {@code encoded}.
     *
     * @param encoded the permuted representation
     * @return the representation before encoding
     * @throws IllegalArgumentException when the rank differs from the order's
     */
    public ChunkSpec decodedSpec(ChunkSpec encoded) {
        checkRank(encoded);
        long[] e = encoded.shape();
        long[] d = new long[e.length];
        for (int i = 0; i < e.length; i++) {
            d[order[i]] = e[i];
        }
        return new ChunkSpec(encoded.dataType(), d);
    }

    /**
     * Encoding: the strides, in elements, at which a loop over the encoded shape in C order reads
     * the decoded input ({@code cStrides(decoded)[order[i]]}).
     *
     * @param decoded the representation before encoding
     * @return one stride per encoded dimension, in elements
     * @throws IllegalArgumentException when the rank differs from the order's
     */
    public long[] encodeInputStrides(ChunkSpec decoded) {
        checkRank(decoded);
        long[] in = cStrides(decoded.shape());
        long[] s = new long[order.length];
        for (int i = 0; i < order.length; i++) {
            s[i] = in[order[i]];
        }
        return s;
    }

    /**
     * Decoding: the strides, in elements, at which a loop over the decoded shape in C order reads
     * the encoded input ({@code cStrides(encoded)[inverse[j]]}).
     *
     * @param decoded the representation after decoding (the output's)
     * @return one stride per decoded dimension, in elements
     * @throws IllegalArgumentException when the rank differs from the order's
     */
    public long[] decodeInputStrides(ChunkSpec decoded) {
        long[] in = cStrides(encodedSpec(decoded).shape());
        long[] s = new long[order.length];
        for (int j = 0; j < order.length; j++) {
            s[j] = in[inverse[j]];
        }
        return s;
    }

    /**
     * The strides, in elements, of a C-order array of {@code shape}.
     *
     * @param shape the extents, in elements
     * @return a new array; the last stride is 1 (not checked for overflow)
     */
    public static long[] cStrides(long[] shape) {
        long[] s = new long[shape.length];
        long acc = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= shape[i];
        }
        return s;
    }

    private void checkRank(ChunkSpec spec) {
        if (spec.rank() != order.length) {
            throw new IllegalArgumentException("codec \"" + codec + "\" with order " + Arrays.toString(order)
                    + " needs rank " + order.length + ", but the chunk is " + spec + " of rank " + spec.rank());
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TransposeOrder t && Arrays.equals(t.order, order);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(order);
    }

    /** The order as {@link Arrays#toString(int[])} writes it. */
    @Override
    public String toString() {
        return Arrays.toString(order);
    }
}
