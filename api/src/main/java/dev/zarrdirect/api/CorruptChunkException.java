// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** Encoded bytes that cannot be decoded: truncated, damaged, or inconsistent with the metadata. */
public class CorruptChunkException extends CodecException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param codec   the name of the codec that could not decode the bytes ({@code zstd})
     * @param message the whole message: codec, chunk, array, key and byte range, what was expected and
     *                what was found
     * @param cause   the underlying failure (a native decoder's error), or null
     */
    public CorruptChunkException(String codec, String message, Throwable cause) {
        super(codec, message, cause);
    }

    /**
     * Creates the exception without a cause.
     *
     * @param codec   the name of the codec that could not decode the bytes ({@code zstd})
     * @param message the whole message: codec, chunk, array, key and byte range, what was expected and
     *                what was found
     */
    public CorruptChunkException(String codec, String message) {
        super(codec, message);
    }
}
