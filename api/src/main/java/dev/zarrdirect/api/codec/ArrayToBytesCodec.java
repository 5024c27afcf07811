// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

/**
 * Serialises an array representation to bytes ({@code bytes}). The in-memory representation is
 * C-order and little-endian; this codec turns it into the stored byte layout and back.
 */
public non-sealed interface ArrayToBytesCodec extends Codec {

    /**
     * {@inheritDoc}
     *
     * @return {@link CodecKind#ARRAY_TO_BYTES}
     */
    @Override
    default CodecKind kind() {
        return CodecKind.ARRAY_TO_BYTES;
    }

    /**
     * The exact encoded size of a chunk of {@code decoded}, when it does not depend on the data.
     *
     * @param decoded the array representation this codec receives
     * @return the size in bytes ({@code decoded.byteSize()} for {@code bytes}), or -1 if it depends on the data
     */
    long encodedSize(ChunkSpec decoded);

    /**
     * An upper bound on the encoded size of a chunk of {@code decoded}, for allocating encode outputs.
     *
     * @param decoded the array representation this codec receives
     * @return the bound in bytes, at least {@link #encodedSize} when that is known
     */
    long maxEncodedSize(ChunkSpec decoded);

    /**
     * Decodes every item of {@code batch}: inputs are stored bytes, outputs the packed array of
     * {@code decoded}, each exactly {@code decoded.byteSize()} bytes. Each item that succeeds is
     * reported with {@link CodecBatch#complete}; an input of the wrong size fails its item with a
     * {@link dev.zarrdirect.api.CorruptChunkException}.
     * A chunk that fails is recorded with {@link CodecBatch#fail} and the other items still run;
     * the method throws only when the whole call fails (a kernel launch, a lost device).
     *
     * @param decoded the representation of the outputs
     * @param batch   the items; the caller owns their buffers
     */
    void decode(ChunkSpec decoded, CodecBatch batch);

    /**
     * Encodes every item of {@code batch}: inputs are packed arrays of {@code decoded}, outputs at
     * least {@link #maxEncodedSize} bytes; each item reports the bytes it wrote with
     * {@link CodecBatch#complete}.
     * A chunk that fails is recorded with {@link CodecBatch#fail} and the other items still run;
     * the method throws only when the whole call fails (a kernel launch, a lost device).
     *
     * @param decoded the representation of the inputs
     * @param batch   the items; the caller owns their buffers
     */
    void encode(ChunkSpec decoded, CodecBatch batch);
}
