// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.store;

/**
 * Which bytes of a value to read: all of them, {@code length} bytes from {@code offset}, or the
 * last {@code length} bytes (a suffix, as sharding reads an index stored at the end). A range
 * does not know the value's size; {@link #fits}, {@link #start} and {@link #lengthIn} resolve it
 * against one. Immutable.
 *
 * {@snippet :
 * ByteRange.ALL;               // the whole value
 * ByteRange.of(1024, 512);     // bytes 1024..1535
 * ByteRange.from(1024);        // byte 1024 to the end
 * ByteRange.suffix(16);        // the last 16 bytes
 * }
 *
 * @param offset start, in bytes from the value's first byte, or -1 for a suffix
 * @param length number of bytes, or -1 for "to the end" (never -1 for a suffix)
 */
public record ByteRange(long offset, long length) {

    /** The whole value. */
    public static final ByteRange ALL = new ByteRange(0, -1);

    /**
     * Checks the components; prefer the factories, which name the bad argument.
     *
     * @throws IllegalArgumentException when a component is below -1, or {@code offset} is -1 with a
     *                                  {@code length} of -1
     */
    public ByteRange {
        if (offset < -1 || length < -1 || (offset == -1 && length < 0)) {
            throw new IllegalArgumentException("bad byte range offset=" + offset + " length=" + length
                    + ": offsets and lengths are non-negative (-1 marks a suffix or an open end)");
        }
    }

    /**
     * {@code length} bytes from {@code offset}.
     *
     * @param offset the first byte, from the start of the value
     * @param length the number of bytes; 0 is allowed
     * @return the range
     * @throws IllegalArgumentException when either is negative
     */
    public static ByteRange of(long offset, long length) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        return new ByteRange(offset, length);
    }

    /**
     * Everything from {@code offset} to the end; {@code from(0)} equals {@link #ALL}.
     *
     * @param offset the first byte, from the start of the value
     * @return the range
     * @throws IllegalArgumentException when {@code offset} is negative
     */
    public static ByteRange from(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        return new ByteRange(offset, -1);
    }

    /**
     * The last {@code length} bytes.
     *
     * @param length the number of bytes at the end of the value; 0 is allowed
     * @return the range
     * @throws IllegalArgumentException when {@code length} is negative
     */
    public static ByteRange suffix(long length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative suffix length " + length);
        }
        return new ByteRange(-1, length);
    }

    /**
     * Whether this is a suffix range, made by {@link #suffix}.
     *
     * @return true when {@code offset} is -1
     */
    public boolean isSuffix() {
        return offset == -1;
    }

    /**
     * Whether this range is the whole value ({@link #ALL} or {@code from(0)}). A range that happens to
     * cover a value of known size, such as {@code of(0, size)}, is not.
     *
     * @return true for offset 0 with an open end
     */
    public boolean isAll() {
        return offset == 0 && length == -1;
    }

    /**
     * The absolute start within a value of {@code size} bytes: {@code size - length} for a suffix,
     * else the offset. It does not check anything: a suffix longer than the value gives a negative
     * start, so call {@link #fits} first.
     *
     * @param size the value's size in bytes
     * @return the first byte the range covers
     */
    public long start(long size) {
        return isSuffix() ? size - length : offset;
    }

    /**
     * The number of bytes this range covers within a value of {@code size} bytes: {@code length},
     * or {@code size - offset} for an open end. Unchecked, like {@link #start}; call {@link #fits} first.
     *
     * @param size the value's size in bytes
     * @return the number of bytes
     */
    public long lengthIn(long size) {
        return isSuffix() || length >= 0 ? length : size - offset;
    }

    /**
     * Whether the range lies inside a value of {@code size} bytes; stores throw
     * {@link dev.zarrdirect.api.StoreException} for a range that does not. An empty range at the
     * end ({@code of(size, 0)}) fits; any non-empty range of an empty value does not.
     *
     * @param size the value's size in bytes
     * @return true when start and end are within {@code [0, size]}
     */
    public boolean fits(long size) {
        long s = start(size);
        long n = lengthIn(size);
        return s >= 0 && n >= 0 && s <= size - n;
    }

    /**
     * The range as messages print it: {@code bytes 1024-1536} (end exclusive), {@code bytes 1024-end},
     * {@code last 16 bytes}.
     *
     * @return the description
     */
    @Override
    public String toString() {
        if (isSuffix()) {
            return "last " + length + " bytes";
        }
        return length < 0 ? "bytes " + offset + "-end" : "bytes " + offset + "-" + (offset + length);
    }
}
