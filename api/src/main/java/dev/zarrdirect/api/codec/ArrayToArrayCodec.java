// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

/** Changes an array representation into another one ({@code transpose}). */
public non-sealed interface ArrayToArrayCodec extends Codec {

    @Override
    default CodecKind kind() {
        return CodecKind.ARRAY_TO_ARRAY;
    }

    /** The representation produced by encoding {@code decoded}. */
    ChunkSpec encodedSpec(ChunkSpec decoded);

    /** Inputs are in {@link #encodedSpec(ChunkSpec)}, outputs in {@code decoded}. */
    void decode(ChunkSpec decoded, CodecBatch batch);

    /** Inputs are in {@code decoded}, outputs in {@link #encodedSpec(ChunkSpec)}. */
    void encode(ChunkSpec decoded, CodecBatch batch);
}
