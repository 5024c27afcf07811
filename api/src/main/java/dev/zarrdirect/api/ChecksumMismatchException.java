// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A stored checksum disagrees with the one computed from the bytes; both values are in the message. */
public class ChecksumMismatchException extends CorruptChunkException {
    private static final long serialVersionUID = 1L;
    /** The checksum read from the encoded bytes. */
    private final long stored;
    /** The checksum computed over the bytes it protects. */
    private final long computed;

    /**
     * Creates the exception; the message is {@code <codec> of <where>: stored 0x…, computed 0x…}, with
     * both values in hexadecimal (at least eight digits).
     *
     * @param codec    the checksum codec's name as in the metadata ({@code crc32c})
     * @param where    what was checked, for the message: the chunk, its array and key
     *                 ({@code chunk [4,0] in "/u10"})
     * @param stored   the checksum read from the encoded bytes
     * @param computed the checksum computed over the bytes it protects
     */
    public ChecksumMismatchException(String codec, String where, long stored, long computed) {
        super(codec, String.format("%s of %s: stored 0x%08X, computed 0x%08X", codec, where, stored, computed));
        this.stored = stored;
        this.computed = computed;
    }

    /**
     * The checksum read from the encoded bytes.
     *
     * @return the stored value; a 32-bit checksum such as {@code crc32c} occupies the low 32 bits
     */
    public long stored() {
        return stored;
    }

    /**
     * The checksum computed over the bytes it protects.
     *
     * @return the computed value; a 32-bit checksum such as {@code crc32c} occupies the low 32 bits
     */
    public long computed() {
        return computed;
    }
}
