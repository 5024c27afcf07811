// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

/** The three kinds of codec of the Zarr v3 specification, in the order a chain holds them. */
public enum CodecKind {
    /**
     * An array to another array representation ({@code transpose}): {@link ArrayToArrayCodec}; zero or more,
     * first in a chain.
     */
    ARRAY_TO_ARRAY,
    /**
     * An array to bytes ({@code bytes}, {@code sharding_indexed}): {@link ArrayToBytesCodec}; exactly one per
     * chain.
     */
    ARRAY_TO_BYTES,
    /**
     * Bytes to bytes: compressors and checksums ({@code zstd}, {@code crc32c}): {@link BytesToBytesCodec};
     * zero or more, last.
     */
    BYTES_TO_BYTES
}
