// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

/**
 * Transforms bytes into bytes: compressors and checksums. Sizes here are in bytes.
 */
public non-sealed interface BytesToBytesCodec extends Codec {

    /**
     * {@inheritDoc}
     *
     * @return {@link CodecKind#BYTES_TO_BYTES}
     */
    @Override
    default CodecKind kind() {
        return CodecKind.BYTES_TO_BYTES;
    }

    /**
     * The exact encoded size for {@code decodedSize} input bytes, when it does not depend on the data
     * (a checksum codec: input plus the checksum).
     *
     * @param decodedSize the input size in bytes
     * @return the encoded size in bytes, or -1 if it depends on the data (a compressor)
     */
    long encodedSize(long decodedSize);

    /**
     * An upper bound on the encoded size for {@code decodedSize} input bytes, for allocating encode
     * outputs (a compressor's worst case for incompressible input).
     *
     * @param decodedSize the input size in bytes
     * @return the bound in bytes
     */
    long maxEncodedSize(long decodedSize);

    /**
     * Exact decoded size for {@code encodedSize} input bytes when the codec can tell without
     * decoding (a checksum codec: input minus the checksum), else -1. The pipeline uses it when
     * the size math of the chain cannot say how large a decoded stage is. By default -1.
     *
     * @param encodedSize the input size in bytes
     * @return the decoded size in bytes, or -1 when it cannot be told from the size alone
     */
    default long decodedSize(long encodedSize) {
        return -1;
    }

    /**
     * Exact decoded size of {@code encoded} when the codec can read it from the data without
     * decoding (a zstd frame header that declares its content size), else -1. By default the
     * size-only form {@link #decodedSize(long)}. An implementation reads no more than a header; the
     * CPU implementations answer -1 for memory that is not host-accessible.
     *
     * @param encoded the encoded bytes; not closed, not changed
     * @return the decoded size in bytes, or -1 when it cannot be told without decoding
     */
    default long decodedSize(dev.zarrdirect.api.buffer.Buffer encoded) {
        return decodedSize(encoded.byteSize());
    }

    /**
     * The decoded bytes of a chunk of {@code decodedSize} bytes that this implementation decodes as
     * one serial run: a deflate stream on a device, where one thread reads the whole stream, or a
     * blosc block whose zlib streams follow one another. The pipeline uses it to decide, batch by
     * batch, whether a device has enough such runs to keep busy, or whether decoding on the host is
     * faster. By default 0: the implementation spreads a chunk's work, or runs on the host anyway.
     *
     * @param decodedSize the decoded size of one chunk at this stage, in bytes
     * @return the bytes of its longest serial run, 0 when none matters
     */
    default long serialDecodeBytes(long decodedSize) {
        return 0;
    }

    /**
     * Decodes each item; each output is exactly the expected decoded size, and a chunk that decodes
     * to any other size fails with a {@link dev.zarrdirect.api.CorruptChunkException}. Each item that
     * succeeds reports its size with {@link CodecBatch#complete}.
     * A chunk that fails is recorded with {@link CodecBatch#fail} and the other items still run;
     * the method throws only when the whole call fails (a kernel launch, a lost device).
     *
     * @param batch the items; the caller owns their buffers
     */
    void decode(CodecBatch batch);

    /**
     * Encodes each item into an output of (at least) {@link #maxEncodedSize} bytes and reports the
     * size written with {@link CodecBatch#complete}.
     * A chunk that fails is recorded with {@link CodecBatch#fail} and the other items still run;
     * the method throws only when the whole call fails (a kernel launch, a lost device).
     *
     * @param batch the items; the caller owns their buffers
     */
    void encode(CodecBatch batch);
}
