// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A codec failed on one chunk; the message names the codec, the chunk and where it came from. */
public class CodecException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;
    /** The codec's name as in the metadata. */
    private final String codec;

    /**
     * Creates the exception.
     *
     * @param codec   the codec's name as in the metadata ({@code zstd})
     * @param message the whole message, naming the codec, the chunk and its store key
     * @param cause   the underlying failure (a native library's error), or null
     */
    public CodecException(String codec, String message, Throwable cause) {
        super(message, cause);
        this.codec = codec;
    }

    /**
     * Creates the exception without a cause.
     *
     * @param codec   the codec's name as in the metadata ({@code zstd})
     * @param message the whole message, naming the codec, the chunk and its store key
     */
    public CodecException(String codec, String message) {
        this(codec, message, null);
    }

    /**
     * The codec's name as in the metadata, e.g. {@code zstd}.
     *
     * @return the name given to the constructor
     */
    public String codec() {
        return codec;
    }
}
