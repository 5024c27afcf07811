// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

/** Transforms bytes into bytes: compressors and checksums. */
public non-sealed interface BytesToBytesCodec extends Codec {

    @Override
    default CodecKind kind() {
        return CodecKind.BYTES_TO_BYTES;
    }

    /** Exact encoded size for {@code decodedSize} input bytes, or -1 if it depends on the data. */
    long encodedSize(long decodedSize);

    /** Upper bound on the encoded size, for allocating encode outputs. */
    long maxEncodedSize(long decodedSize);

    /**
     * Exact decoded size for {@code encodedSize} input bytes when the codec can tell without
     * decoding (a checksum codec: input minus the checksum), else -1. The pipeline uses it when
     * the size math of the chain cannot say how large a decoded stage is.
     */
    default long decodedSize(long encodedSize) {
        return -1;
    }

    /**
     * Exact decoded size of {@code encoded} when the codec can read it from the data without
     * decoding (a zstd frame header that declares its content size), else -1. By default the
     * size-only form {@link #decodedSize(long)}.
     */
    default long decodedSize(dev.zarrdirect.api.buffer.Buffer encoded) {
        return decodedSize(encoded.byteSize());
    }

    /**
     * Decodes each item; each output is exactly the expected decoded size, and a chunk that decodes
     * to any other size fails with a {@link dev.zarrdirect.api.CorruptChunkException}.
     */
    void decode(CodecBatch batch);

    /** Encodes each item into an output of {@link #maxEncodedSize} bytes and reports the size written. */
    void encode(CodecBatch batch);
}
