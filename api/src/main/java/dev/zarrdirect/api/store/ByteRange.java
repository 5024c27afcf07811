// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.store;

/**
 * Which bytes of a value to read: all of them, {@code length} bytes from {@code offset}, or the
 * last {@code length} bytes (a suffix, as sharding reads an index stored at the end).
 *
 * @param offset start, or -1 for a suffix
 * @param length number of bytes, or -1 for "to the end"
 */
public record ByteRange(long offset, long length) {

    /** The whole value. */
    public static final ByteRange ALL = new ByteRange(0, -1);

    public ByteRange {
        if (offset < -1 || length < -1 || (offset == -1 && length < 0)) {
            throw new IllegalArgumentException("bad byte range offset=" + offset + " length=" + length
                    + ": offsets and lengths are non-negative (-1 marks a suffix or an open end)");
        }
    }

    /** {@code length} bytes from {@code offset}. */
    public static ByteRange of(long offset, long length) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        return new ByteRange(offset, length);
    }

    /** Everything from {@code offset} to the end. */
    public static ByteRange from(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        return new ByteRange(offset, -1);
    }

    /** The last {@code length} bytes. */
    public static ByteRange suffix(long length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative suffix length " + length);
        }
        return new ByteRange(-1, length);
    }

    public boolean isSuffix() {
        return offset == -1;
    }

    public boolean isAll() {
        return offset == 0 && length == -1;
    }

    /**
     * The absolute start within a value of {@code size} bytes.
     *
     * @throws IllegalArgumentException when the range does not fit in the value
     */
    public long start(long size) {
        return isSuffix() ? size - length : offset;
    }

    /** The number of bytes this range covers within a value of {@code size} bytes. */
    public long lengthIn(long size) {
        return isSuffix() || length >= 0 ? length : size - offset;
    }

    /** True when the range lies inside a value of {@code size} bytes. */
    public boolean fits(long size) {
        long s = start(size);
        long n = lengthIn(size);
        return s >= 0 && n >= 0 && s <= size - n;
    }

    @Override
    public String toString() {
        if (isSuffix()) {
            return "last " + length + " bytes";
        }
        return length < 0 ? "bytes " + offset + "-end" : "bytes " + offset + "-" + (offset + length);
    }
}
