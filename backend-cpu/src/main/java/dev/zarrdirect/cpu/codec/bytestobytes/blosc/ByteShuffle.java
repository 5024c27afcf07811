// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The byte shuffle of Blosc and of numcodecs' {@code Shuffle}: a buffer of {@code n} elements of
 * {@code typesize} bytes is stored as {@code typesize} streams, stream {@code j} holding byte
 * {@code j} of every element in order. Bytes after the last whole element are copied unchanged at
 * the end. Source and destination must not overlap.
 */
public final class ByteShuffle {

    private static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ByteShuffle() {
    }

    /** Shuffles {@code bytes} bytes of {@code src} from {@code srcOff} into {@code dst} at {@code dstOff}. */
    public static void shuffle(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long bytes, int typesize) {
        long n = bytes / typesize;
        if (typesize == 1 || n == 0) {
            MemorySegment.copy(src, srcOff, dst, dstOff, bytes);
            return;
        }
        long i = 0;
        if (typesize == 4) {
            // 8 elements at a time: four 8-byte loads, four 8-byte stores, one per stream.
            for (; i + 8 <= n; i += 8) {
                long a = src.get(LE_LONG, srcOff + i * 4);
                long b = src.get(LE_LONG, srcOff + i * 4 + 8);
                long c = src.get(LE_LONG, srcOff + i * 4 + 16);
                long d = src.get(LE_LONG, srcOff + i * 4 + 24);
                for (int j = 0; j < 4; j++) {
                    int s = 8 * j;
                    long v = (a >>> s & 0xFF) | (a >>> (s + 32) & 0xFF) << 8
                            | (b >>> s & 0xFF) << 16 | (b >>> (s + 32) & 0xFF) << 24
                            | (c >>> s & 0xFF) << 32 | (c >>> (s + 32) & 0xFF) << 40
                            | (d >>> s & 0xFF) << 48 | (d >>> (s + 32) & 0xFF) << 56;
                    dst.set(LE_LONG, dstOff + j * n + i, v);
                }
            }
        } else if (typesize == 2) {
            // 8 elements: two 8-byte loads, the even bytes to stream 0 and the odd to stream 1
            for (; i + 8 <= n; i += 8) {
                long a = src.get(LE_LONG, srcOff + i * 2);
                long b = src.get(LE_LONG, srcOff + i * 2 + 8);
                dst.set(LE_LONG, dstOff + i, gather8(a) | gather8(b) << 32);
                dst.set(LE_LONG, dstOff + n + i, gather8(a >>> 8) | gather8(b >>> 8) << 32);
            }
        } else if (typesize == 8) {
            // 8 elements of 8 bytes are an 8 x 8 byte matrix: stream j is its column j
            long[] m = new long[8];
            for (; i + 8 <= n; i += 8) {
                for (int r = 0; r < 8; r++) {
                    m[r] = src.get(LE_LONG, srcOff + (i + r) * 8);
                }
                transposeBytes(m);
                for (int j = 0; j < 8; j++) {
                    dst.set(LE_LONG, dstOff + j * n + i, m[j]);
                }
            }
        } else {
            for (; i + 8 <= n; i += 8) {
                for (int j = 0; j < typesize; j++) {
                    long v = 0;
                    for (int m = 0; m < 8; m++) {
                        v |= (src.get(ValueLayout.JAVA_BYTE, srcOff + (i + m) * typesize + j) & 0xFFL) << (8 * m);
                    }
                    dst.set(LE_LONG, dstOff + j * n + i, v);
                }
            }
        }
        for (; i < n; i++) {
            for (int j = 0; j < typesize; j++) {
                dst.set(ValueLayout.JAVA_BYTE, dstOff + j * n + i, src.get(ValueLayout.JAVA_BYTE, srcOff + i * typesize + j));
            }
        }
        long whole = n * typesize;
        MemorySegment.copy(src, srcOff + whole, dst, dstOff + whole, bytes - whole);
    }

    /** The 4 low bytes of {@code x} moved to the low byte of each 16-bit unit. */
    private static long spread8(long x) {
        x &= 0xFFFFFFFFL;
        x = (x | x << 16) & 0x0000FFFF0000FFFFL;
        return (x | x << 8) & 0x00FF00FF00FF00FFL;
    }

    /** The low byte of each 16-bit unit of {@code x} gathered into its 4 low bytes ({@link #spread8} undone). */
    private static long gather8(long x) {
        x &= 0x00FF00FF00FF00FFL;
        x = (x | x >>> 8) & 0x0000FFFF0000FFFFL;
        return (x | x >>> 16) & 0xFFFFFFFFL;
    }

    /**
     * Transposes the 8 x 8 byte matrix whose row r is {@code m[r]} (byte c of a row is column c): in
     * three rounds, 1-byte, 2-byte then 4-byte blocks trade places across the diagonal.
     */
    static void transposeBytes(long[] m) {
        for (int r = 0; r < 8; r += 2) {
            long t = ((m[r] >>> 8) ^ m[r + 1]) & 0x00FF00FF00FF00FFL;
            m[r + 1] ^= t;
            m[r] ^= t << 8;
        }
        for (int r = 0; r < 8; r += 4) {
            for (int k = 0; k < 2; k++) {
                long t = ((m[r + k] >>> 16) ^ m[r + k + 2]) & 0x0000FFFF0000FFFFL;
                m[r + k + 2] ^= t;
                m[r + k] ^= t << 16;
            }
        }
        for (int k = 0; k < 4; k++) {
            long t = ((m[k] >>> 32) ^ m[k + 4]) & 0xFFFFFFFFL;
            m[k + 4] ^= t;
            m[k] ^= t << 32;
        }
    }

    /** The 2 low 16-bit units of {@code x} moved to the low half of each 32-bit unit. */
    private static long spread16(long x) {
        x &= 0xFFFFFFFFL;
        return (x | x << 16) & 0x0000FFFF0000FFFFL;
    }

    /** Reverses {@link #shuffle}: {@code bytes} shuffled bytes of {@code src} back into element order in {@code dst}. */
    public static void unshuffle(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long bytes, int typesize) {
        long n = bytes / typesize;
        if (typesize == 1 || n == 0) {
            MemorySegment.copy(src, srcOff, dst, dstOff, bytes);
            return;
        }
        long i = 0;
        if (typesize == 4) {
            for (; i + 8 <= n; i += 8) {
                long p0 = src.get(LE_LONG, srcOff + i);
                long p1 = src.get(LE_LONG, srcOff + n + i);
                long p2 = src.get(LE_LONG, srcOff + 2 * n + i);
                long p3 = src.get(LE_LONG, srcOff + 3 * n + i);
                // Interleave bytes of streams 0/1 and 2/3, then 16-bit pairs of those: 8 elements.
                long lo01 = spread8(p0) | spread8(p1) << 8;
                long hi01 = spread8(p0 >>> 32) | spread8(p1 >>> 32) << 8;
                long lo23 = spread8(p2) | spread8(p3) << 8;
                long hi23 = spread8(p2 >>> 32) | spread8(p3 >>> 32) << 8;
                long o = dstOff + i * 4;
                dst.set(LE_LONG, o, spread16(lo01) | spread16(lo23) << 16);
                dst.set(LE_LONG, o + 8, spread16(lo01 >>> 32) | spread16(lo23 >>> 32) << 16);
                dst.set(LE_LONG, o + 16, spread16(hi01) | spread16(hi23) << 16);
                dst.set(LE_LONG, o + 24, spread16(hi01 >>> 32) | spread16(hi23 >>> 32) << 16);
            }
        } else if (typesize == 2) {
            // netCDF-like int16: byte k of each stream to the low and high byte of element k
            for (; i + 8 <= n; i += 8) {
                long p0 = src.get(LE_LONG, srcOff + i);
                long p1 = src.get(LE_LONG, srcOff + n + i);
                long o = dstOff + i * 2;
                dst.set(LE_LONG, o, spread8(p0) | spread8(p1) << 8);
                dst.set(LE_LONG, o + 8, spread8(p0 >>> 32) | spread8(p1 >>> 32) << 8);
            }
        } else if (typesize == 8) {
            long[] m = new long[8];
            for (; i + 8 <= n; i += 8) {
                for (int j = 0; j < 8; j++) {
                    m[j] = src.get(LE_LONG, srcOff + j * n + i);
                }
                transposeBytes(m);
                for (int r = 0; r < 8; r++) {
                    dst.set(LE_LONG, dstOff + (i + r) * 8, m[r]);
                }
            }
        } else {
            for (; i + 8 <= n; i += 8) {
                for (int j = 0; j < typesize; j++) {
                    long v = src.get(LE_LONG, srcOff + j * n + i);
                    for (int m = 0; m < 8; m++) {
                        dst.set(ValueLayout.JAVA_BYTE, dstOff + (i + m) * typesize + j, (byte) (v >>> (8 * m)));
                    }
                }
            }
        }
        for (; i < n; i++) {
            for (int j = 0; j < typesize; j++) {
                dst.set(ValueLayout.JAVA_BYTE, dstOff + i * typesize + j, src.get(ValueLayout.JAVA_BYTE, srcOff + j * n + i));
            }
        }
        long whole = n * typesize;
        MemorySegment.copy(src, srcOff + whole, dst, dstOff + whole, bytes - whole);
    }
}
