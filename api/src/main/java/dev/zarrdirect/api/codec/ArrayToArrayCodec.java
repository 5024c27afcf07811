// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

/**
 * Changes an array representation into another one ({@code transpose}). Both sides are packed,
 * C-order, little-endian arrays: {@link ChunkSpec#byteSize()} bytes of {@code decoded} on one side
 * and of {@link #encodedSpec(ChunkSpec) encodedSpec(decoded)} on the other. The buffers of a batch
 * belong to the caller.
 */
public non-sealed interface ArrayToArrayCodec extends Codec {

    /**
     * {@inheritDoc}
     *
     * @return {@link CodecKind#ARRAY_TO_ARRAY}
     */
    @Override
    default CodecKind kind() {
        return CodecKind.ARRAY_TO_ARRAY;
    }

    /**
     * The representation produced by encoding {@code decoded}: its data type and chunk shape.
     *
     * @param decoded the representation this codec receives when encoding
     * @return the representation it produces
     * @throws IllegalArgumentException when the codec cannot code {@code decoded} (a rank the
     *                                  configuration does not fit)
     */
    ChunkSpec encodedSpec(ChunkSpec decoded);

    /**
     * Decodes every item of {@code batch}: inputs are in {@link #encodedSpec(ChunkSpec)}, outputs in
     * {@code decoded}, each exactly {@code decoded.byteSize()} bytes. Each item that succeeds is
     * reported with {@link CodecBatch#complete}.
     * A chunk that fails is recorded with {@link CodecBatch#fail} and the other items still run;
     * the method throws only when the whole call fails (a kernel launch, a lost device).
     *
     * @param decoded the representation of the outputs
     * @param batch   the items; the caller owns their buffers
     */
    void decode(ChunkSpec decoded, CodecBatch batch);

    /**
     * Encodes every item of {@code batch}: inputs are in {@code decoded}, outputs in
     * {@link #encodedSpec(ChunkSpec)}, each exactly its {@code byteSize()} bytes. Each item that
     * succeeds is reported with {@link CodecBatch#complete}.
     * A chunk that fails is recorded with {@link CodecBatch#fail} and the other items still run;
     * the method throws only when the whole call fails (a kernel launch, a lost device).
     *
     * @param decoded the representation of the inputs
     * @param batch   the items; the caller owns their buffers
     */
    void encode(ChunkSpec decoded, CodecBatch batch);
}
