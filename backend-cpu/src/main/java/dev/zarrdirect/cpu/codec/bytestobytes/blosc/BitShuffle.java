// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The bit shuffle of Blosc (the "bitshuffle" transform): {@code n} elements of {@code typesize}
 * bytes, seen as a bit matrix of {@code n} rows and {@code 8 * typesize} columns, are stored
 * transposed. Bits are numbered from the least significant bit of each byte, so bit {@code k} of
 * byte {@code j} of element {@code i} goes to bit number {@code (8 * j + k) * n + i} of the output
 * (again least significant bit first). The transform needs {@code n} to be a multiple of 8.
 *
 * <h2>Blocks that are not a multiple of 8 elements</h2>
 * The Blosc1 format (version 2, what c-blosc 1.x writes) bit-shuffles a block only when its whole
 * elements are a multiple of 8 and otherwise copies the block unchanged; bytes after the last whole
 * element are copied unchanged. {@link #shuffleBlock} and {@link #unshuffleBlock} implement exactly
 * that rule.
 */
public final class BitShuffle {

    private static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Elements a tile of {@link #unshuffle}'s word path (a multiple of 64). */
    static final int TILE = 8192;

    private BitShuffle() {
    }

    /**
     * Transposes the 8x8 bit matrix held in {@code x}, where bit {@code 8 * r + c} is row {@code r}
     * (a byte) and column {@code c} (a bit of it): afterwards bit {@code 8 * c + r} holds it.
     */
    static long transpose8x8(long x) {
        long t = (x ^ (x >>> 7)) & 0x00AA00AA00AA00AAL;
        x ^= t ^ (t << 7);
        t = (x ^ (x >>> 14)) & 0x0000CCCC0000CCCCL;
        x ^= t ^ (t << 14);
        t = (x ^ (x >>> 28)) & 0x00000000F0F0F0F0L;
        x ^= t ^ (t << 28);
        return x;
    }

    /** Bit-shuffles a Blosc block of {@code bytes} bytes, with the Blosc1 rule for other sizes (see the class doc). */
    public static void shuffleBlock(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long bytes,
                                    int typesize) {
        long n = bytes / typesize;
        if (n % 8 != 0 || n == 0) {
            MemorySegment.copy(src, srcOff, dst, dstOff, bytes);
            return;
        }
        shuffle(src, srcOff, dst, dstOff, n, typesize);
        long whole = n * typesize;
        MemorySegment.copy(src, srcOff + whole, dst, dstOff + whole, bytes - whole);
    }

    /** Reverses {@link #shuffleBlock}. */
    public static void unshuffleBlock(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long bytes,
                                      int typesize) {
        long n = bytes / typesize;
        if (n % 8 != 0 || n == 0) {
            MemorySegment.copy(src, srcOff, dst, dstOff, bytes);
            return;
        }
        unshuffle(src, srcOff, dst, dstOff, n, typesize);
        long whole = n * typesize;
        MemorySegment.copy(src, srcOff + whole, dst, dstOff + whole, bytes - whole);
    }

    /**
     * Bit-transposes {@code n} elements ({@code n % 8 == 0}) of {@code typesize} bytes. When the bit
     * rows are whole words ({@code n % 64 == 0}) and elements are of 1, 2, 4 or 8 bytes, tiles of
     * {@link #TILE} elements are worked in Java arrays, {@link #unshuffle}'s steps run backwards: the
     * elements byte-shuffled into planes ({@link ByteShuffle}'s word shuffle), each plane
     * bit-transposed into its 8 bit rows, and the tile's part of each row copied out whole. One core,
     * 512 KiB blocks, best of 300: 1.37 / 0.96 / 0.97 / 1.01-1.21 GB/s for 1/2/4/8-byte elements
     * against 0.36-0.46 / 0.31 / 0.27 / 0.20 for the byte loop, which other element sizes keep
     * (3-byte elements through byte arrays were no faster than it).
     */
    public static void shuffle(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long n, int typesize) {
        requireMultipleOf8(n);
        long rowBytes = n / 8;
        if (rowBytes % 8 == 0 && (typesize == 1 || typesize == 2 || typesize == 4 || typesize == 8)) {
            int most = (int) Math.min(TILE, n);
            long[] planes = new long[most / 8 * typesize];
            long[] rows = new long[planes.length];
            long[] in = typesize > 1 ? new long[planes.length] : null;
            for (long i = 0; i < n; i += TILE) {
                int t = (int) Math.min(TILE, n - i); // a multiple of 64, as n and TILE are
                int wr = t / 64; // words of each bit row in this tile
                int w = t / 8; // words of each byte plane
                if (typesize == 1) {
                    MemorySegment.copy(src, LE_LONG, srcOff + i, planes, 0, w);
                } else {
                    MemorySegment.copy(src, LE_LONG, srcOff + i * typesize, in, 0, w * typesize);
                    ByteShuffle.shuffleWords(in, planes, w, typesize);
                }
                for (int j = 0; j < typesize; j++) {
                    rows(planes, j * w, wr, rows, j * 8 * wr);
                }
                for (int r = 0; r < 8 * typesize; r++) {
                    MemorySegment.copy(rows, r * wr, dst, LE_LONG, dstOff + r * rowBytes + i / 8, wr);
                }
            }
            return;
        }
        shuffleBytes(src, srcOff, dst, dstOff, rowBytes, typesize);
    }

    /** {@link #shuffle} a byte at a time: a method of its own, so that it compiles apart from the tiles' loops. */
    private static void shuffleBytes(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long rowBytes,
                                     int typesize) {
        for (long g = 0; g < rowBytes; g++) {
            long base = srcOff + g * 8 * typesize;
            for (int j = 0; j < typesize; j++) {
                long x = 0;
                for (int m = 0; m < 8; m++) {
                    x |= (src.get(ValueLayout.JAVA_BYTE, base + (long) m * typesize + j) & 0xFFL) << (8 * m);
                }
                x = transpose8x8(x);
                long row = dstOff + (long) j * 8 * rowBytes + g;
                for (int k = 0; k < 8; k++) {
                    dst.set(ValueLayout.JAVA_BYTE, row + k * rowBytes, (byte) (x >>> (8 * k)));
                }
            }
        }
    }

    /**
     * Reverses {@link #shuffle}. When the bit rows are whole words ({@code n % 64 == 0}, as in every
     * block of 64 elements or more that c-blosc writes), tiles of {@link #TILE} elements are worked
     * in Java arrays: the tile's part of each of the {@code 8 * typesize} bit rows is copied in,
     * each group of 8 rows is bit-transposed into one byte plane (the byte-shuffled form), and
     * {@link ByteShuffle}'s word unshuffle of those planes writes whole 8-byte words of elements. The
     * element loop before wrote every byte to the segment on its own, one var handle access each.
     */
    public static void unshuffle(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long n, int typesize) {
        requireMultipleOf8(n);
        long rowBytes = n / 8;
        if (rowBytes % 8 == 0) {
            int most = (int) Math.min(TILE, n);
            long[] rows = new long[most / 8 * typesize];
            long[] planes = new long[rows.length];
            long[] out = typesize == 2 || typesize == 4 || typesize == 8 ? new long[rows.length] : null;
            byte[] outBytes = out == null && typesize > 1 ? new byte[most * typesize] : null;
            for (long i = 0; i < n; i += TILE) {
                int t = (int) Math.min(TILE, n - i); // a multiple of 64, as n and TILE are
                int wr = t / 64; // words of each bit row in this tile
                int w = t / 8; // words of each byte plane
                for (int r = 0; r < 8 * typesize; r++) {
                    MemorySegment.copy(src, LE_LONG, srcOff + r * rowBytes + i / 8, rows, r * wr, wr);
                }
                for (int j = 0; j < typesize; j++) {
                    planes(rows, j * 8 * wr, wr, planes, j * w);
                }
                switch (typesize) {
                    case 1 -> MemorySegment.copy(planes, 0, dst, LE_LONG, dstOff + i, w);
                    case 2, 4, 8 -> ByteShuffle.unshuffleWords(planes, out, w, typesize, dst, dstOff + i * typesize);
                    default -> {
                        for (int k = 0, at = 0; k < t; k++) {
                            for (int j = 0; j < typesize; j++) {
                                outBytes[at++] = (byte) (planes[j * w + (k >>> 3)] >>> (8 * (k & 7)));
                            }
                        }
                        MemorySegment.copy(outBytes, 0, dst, ValueLayout.JAVA_BYTE, dstOff + i * typesize, t * typesize);
                    }
                }
            }
            return;
        }
        for (long g = 0; g < rowBytes; g++) {
            long base = dstOff + g * 8 * typesize;
            for (int j = 0; j < typesize; j++) {
                long row = srcOff + (long) j * 8 * rowBytes + g;
                long x = 0;
                for (int k = 0; k < 8; k++) {
                    x |= (src.get(ValueLayout.JAVA_BYTE, row + k * rowBytes) & 0xFFL) << (8 * k);
                }
                x = transpose8x8(x);
                for (int m = 0; m < 8; m++) {
                    dst.set(ValueLayout.JAVA_BYTE, base + (long) m * typesize + j, (byte) (x >>> (8 * m)));
                }
            }
        }
    }

    /**
     * One byte plane from its 8 bit rows: rows[from + k * wr + g] is word g of bit row k (64
     * elements), and word 8g + q of the plane (byte k of it for element 8q + k of those 64) goes to
     * planes[to + 8g + q].
     */
    private static void planes(long[] rows, int from, int wr, long[] planes, int to) {
        long[] m = new long[8];
        for (int g = 0; g < wr; g++) {
            for (int k = 0; k < 8; k++) {
                m[k] = rows[from + k * wr + g];
            }
            // byte q of row k to byte k of word q, then each word's 8 x 8 bits transposed
            ByteShuffle.transposeBytes(m);
            for (int q = 0; q < 8; q++) {
                planes[to + 8 * g + q] = transpose8x8(m[q]);
            }
        }
    }

    /** The 8 bit rows of one byte plane: {@link #planes} undone (both of its transposes are their own inverses). */
    private static void rows(long[] planes, int from, int wr, long[] rows, int to) {
        long[] m = new long[8];
        for (int g = 0; g < wr; g++) {
            for (int q = 0; q < 8; q++) {
                m[q] = transpose8x8(planes[from + 8 * g + q]);
            }
            ByteShuffle.transposeBytes(m);
            for (int k = 0; k < 8; k++) {
                rows[to + k * wr + g] = m[k];
            }
        }
    }

    private static void requireMultipleOf8(long n) {
        if (n % 8 != 0) {
            throw new IllegalArgumentException("bit shuffle needs a multiple of 8 elements, got " + n);
        }
    }
}
