// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** Encoded bytes that cannot be decoded: truncated, damaged, or inconsistent with the metadata. */
public class CorruptChunkException extends CodecException {
    private static final long serialVersionUID = 1L;

    public CorruptChunkException(String codec, String message, Throwable cause) {
        super(codec, message, cause);
    }

    public CorruptChunkException(String codec, String message) {
        super(codec, message);
    }
}
