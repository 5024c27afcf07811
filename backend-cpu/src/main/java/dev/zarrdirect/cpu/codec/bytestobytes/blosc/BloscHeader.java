// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 16-byte header of a Blosc1 buffer, all integers little-endian:
 * <pre>
 * 0  version     format version: c-blosc 1.x writes 2 (1 in its earliest releases)
 * 1  versionlz   version of the compressor's own format (1)
 * 2  flags       0x01 byte shuffle, 0x02 memcpyed (stored raw), 0x04 bit shuffle,
 *                0x10 blocks not split into typesize streams, bits 5-7 the compressor code
 * 3  typesize    element size in bytes used by the shuffles and the splits
 * 4  nbytes      uint32, decoded size
 * 8  blocksize   uint32, decoded size of every block but the last
 * 12 cbytes      uint32, encoded size including this header
 * </pre>
 * Unless memcpyed, an int32 start offset (from the start of the buffer) per block follows, then the
 * blocks. A block holds one stream, or {@code typesize} streams ("splits") of equal size when it is
 * split; each stream is an int32 compressed size followed by that many bytes, stored raw when the
 * size equals the stream's decoded size. A memcpyed buffer holds the raw data right after the header.
 */
public record BloscHeader(int version, int versionLz, int flags, int typesize, long nbytes, long blocksize,
                          long cbytes) {

    public static final int SIZE = 16;
    public static final int DOSHUFFLE = 0x01;
    public static final int MEMCPYED = 0x02;
    public static final int DOBITSHUFFLE = 0x04;
    public static final int DONTSPLIT = 0x10;
    /** Streams per block are at most this many (the split rule of c-blosc). */
    public static final int MAX_SPLITS = 16;
    /** The smallest buffer c-blosc compresses, and the smallest stream a split may have. */
    public static final int MIN_BUFFERSIZE = 128;
    /** The format version written here, as c-blosc 1.x does. */
    public static final int VERSION = 2;
    /** The largest decoded size of one Blosc1 buffer (c-blosc's {@code BLOSC_MAX_BUFFERSIZE}). */
    public static final long MAX_BUFFERSIZE = Integer.MAX_VALUE - SIZE;

    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Reads the header at the start of {@code in}, which must hold at least {@link #SIZE} bytes. */
    public static BloscHeader read(MemorySegment in) {
        return new BloscHeader(in.get(ValueLayout.JAVA_BYTE, 0) & 0xFF, in.get(ValueLayout.JAVA_BYTE, 1) & 0xFF,
                in.get(ValueLayout.JAVA_BYTE, 2) & 0xFF, in.get(ValueLayout.JAVA_BYTE, 3) & 0xFF,
                Integer.toUnsignedLong(in.get(LE_INT, 4)), Integer.toUnsignedLong(in.get(LE_INT, 8)),
                Integer.toUnsignedLong(in.get(LE_INT, 12)));
    }

    /** Writes this header at the start of {@code out}. */
    public void write(MemorySegment out) {
        out.set(ValueLayout.JAVA_BYTE, 0, (byte) version);
        out.set(ValueLayout.JAVA_BYTE, 1, (byte) versionLz);
        out.set(ValueLayout.JAVA_BYTE, 2, (byte) flags);
        out.set(ValueLayout.JAVA_BYTE, 3, (byte) typesize);
        out.set(LE_INT, 4, (int) nbytes);
        out.set(LE_INT, 8, (int) blocksize);
        out.set(LE_INT, 12, (int) cbytes);
    }

    public boolean memcpyed() {
        return (flags & MEMCPYED) != 0;
    }

    public boolean byteShuffle() {
        return (flags & DOSHUFFLE) != 0;
    }

    public boolean bitShuffle() {
        return (flags & DOBITSHUFFLE) != 0;
    }

    public int compressorCode() {
        return flags >>> 5;
    }

    /** Blocks in the buffer. */
    public long blocks() {
        return blocksize == 0 ? 0 : (nbytes + blocksize - 1) / blocksize;
    }

    /**
     * Streams in a block of {@code bsize} bytes: {@code typesize} when the flags allow splitting, the
     * block is a whole one, the type is at most {@link #MAX_SPLITS} bytes and each stream would hold at
     * least {@link #MIN_BUFFERSIZE} elements' worth; else 1. The same rule decides for c-blosc
     * releases that predate the "don't split" flag.
     */
    public int splits(long bsize) {
        boolean split = (flags & DONTSPLIT) == 0 && bsize == blocksize && typesize <= MAX_SPLITS
                && blocksize / typesize >= MIN_BUFFERSIZE;
        return split ? typesize : 1;
    }

    /** The header's fields, for error messages. */
    public String describe() {
        return String.format("version %d, versionlz %d, flags 0x%02X, typesize %d, nbytes %d, blocksize %d, cbytes %d",
                version, versionLz, flags, typesize, nbytes, blocksize, cbytes);
    }
}
