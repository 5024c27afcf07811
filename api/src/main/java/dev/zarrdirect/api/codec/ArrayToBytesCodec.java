// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

/**
 * Serialises an array representation to bytes ({@code bytes}). The in-memory representation is
 * C-order and little-endian; this codec turns it into the stored byte layout and back.
 */
public non-sealed interface ArrayToBytesCodec extends Codec {

    @Override
    default CodecKind kind() {
        return CodecKind.ARRAY_TO_BYTES;
    }

    /** Exact encoded size of a chunk of {@code decoded}, or -1 if it depends on the data. */
    long encodedSize(ChunkSpec decoded);

    /** Upper bound on the encoded size, for allocating encode outputs. */
    long maxEncodedSize(ChunkSpec decoded);

    void decode(ChunkSpec decoded, CodecBatch batch);

    void encode(ChunkSpec decoded, CodecBatch batch);
}
