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

    /** Bit-transposes {@code n} elements ({@code n % 8 == 0}) of {@code typesize} bytes. */
    public static void shuffle(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long n, int typesize) {
        requireMultipleOf8(n);
        long rowBytes = n / 8;
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

    /** Reverses {@link #shuffle}. */
    public static void unshuffle(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long n, int typesize) {
        requireMultipleOf8(n);
        long rowBytes = n / 8;
        if (rowBytes % 8 == 0) {
            // Eight groups at once: read 8 bytes of each bit row, which covers 64 elements.
            for (long g = 0; g < rowBytes; g += 8) {
                for (int j = 0; j < typesize; j++) {
                    long row = srcOff + (long) j * 8 * rowBytes + g;
                    long r0 = src.get(LE_LONG, row);
                    long r1 = src.get(LE_LONG, row + rowBytes);
                    long r2 = src.get(LE_LONG, row + 2 * rowBytes);
                    long r3 = src.get(LE_LONG, row + 3 * rowBytes);
                    long r4 = src.get(LE_LONG, row + 4 * rowBytes);
                    long r5 = src.get(LE_LONG, row + 5 * rowBytes);
                    long r6 = src.get(LE_LONG, row + 6 * rowBytes);
                    long r7 = src.get(LE_LONG, row + 7 * rowBytes);
                    for (int q = 0; q < 8; q++) {
                        int s = 8 * q;
                        long x = (r0 >>> s & 0xFF) | (r1 >>> s & 0xFF) << 8 | (r2 >>> s & 0xFF) << 16
                                | (r3 >>> s & 0xFF) << 24 | (r4 >>> s & 0xFF) << 32 | (r5 >>> s & 0xFF) << 40
                                | (r6 >>> s & 0xFF) << 48 | (r7 >>> s & 0xFF) << 56;
                        x = transpose8x8(x);
                        long base = dstOff + (g + q) * 8 * typesize + j;
                        for (int m = 0; m < 8; m++) {
                            dst.set(ValueLayout.JAVA_BYTE, base + (long) m * typesize, (byte) (x >>> (8 * m)));
                        }
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

    private static void requireMultipleOf8(long n) {
        if (n % 8 != 0) {
            throw new IllegalArgumentException("bit shuffle needs a multiple of 8 elements, got " + n);
        }
    }
}
