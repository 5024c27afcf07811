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
 *
 * <p>The bytes are rearranged in tiles of {@link #TILE} elements held in Java arrays: each tile is
 * copied in with one bulk copy a stream, rearranged with plain array indexing, and copied out. Done
 * straight on the segments, every 8-byte access went through a var handle and its checks, which
 * the interpreter and the first compiled code pay in full: on an H200's 16-core host the CUDA
 * backend's host path decoded its first batch of 16 int16 shuffle + zlib chunks of 8.3 MB in 1,060
 * ms and the next in 55, and a profile of that first batch found 500 of its 549 samples in those
 * accesses. Here (2 cores, two threads unshuffling 8.3 MB of int16 at once) the first two calls
 * took 110-226 ms each on the segments, 39-56 ms in tiles; once compiled, both run at about the
 * same rate (3.3-3.8 GB/s a core for 2-byte elements, 2.3-2.6 for 4-byte).
 */
public final class ByteShuffle {

    private static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Elements a tile (a multiple of 8) for 2-, 4- and 8-byte elements: 8 KiB of each stream. */
    static final int TILE = 8192;

    private ByteShuffle() {
    }

    /** Shuffles {@code bytes} bytes of {@code src} from {@code srcOff} into {@code dst} at {@code dstOff}. */
    public static void shuffle(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long bytes, int typesize) {
        long n = bytes / typesize;
        if (typesize == 1 || n == 0) {
            MemorySegment.copy(src, srcOff, dst, dstOff, bytes);
            return;
        }
        // whole groups of 8 elements in tiles; the last few elements byte by byte
        long grouped = n & ~7L;
        if (typesize == 2 || typesize == 4 || typesize == 8) {
            long[] in = new long[(int) Math.min(TILE, grouped) * typesize / 8];
            long[] out = new long[in.length];
            for (long i = 0; i < grouped; i += TILE) {
                int w = (int) Math.min(TILE, grouped - i) / 8;
                MemorySegment.copy(src, LE_LONG, srcOff + i * typesize, in, 0, w * typesize);
                shuffleWords(in, out, w, typesize);
                for (int j = 0; j < typesize; j++) {
                    MemorySegment.copy(out, j * w, dst, LE_LONG, dstOff + j * n + i, w);
                }
            }
        } else {
            int tile = genericTile(typesize);
            byte[] in = new byte[(int) Math.min(tile, grouped) * typesize];
            byte[] out = new byte[in.length];
            for (long i = 0; i < grouped; i += tile) {
                int t = (int) Math.min(tile, grouped - i);
                MemorySegment.copy(src, ValueLayout.JAVA_BYTE, srcOff + i * typesize, in, 0, t * typesize);
                transpose(in, out, t, typesize);
                for (int j = 0; j < typesize; j++) {
                    MemorySegment.copy(out, j * t, dst, ValueLayout.JAVA_BYTE, dstOff + j * n + i, t);
                }
            }
        }
        for (long i = grouped; i < n; i++) {
            for (int j = 0; j < typesize; j++) {
                dst.set(ValueLayout.JAVA_BYTE, dstOff + j * n + i, src.get(ValueLayout.JAVA_BYTE, srcOff + i * typesize + j));
            }
        }
        long whole = n * typesize;
        MemorySegment.copy(src, srcOff + whole, dst, dstOff + whole, bytes - whole);
    }

    /** {@code out[c * rows + r] = in[r * cols + c]}: the {@code rows x cols} byte matrix {@code in}, transposed. */
    private static void transpose(byte[] in, byte[] out, int rows, int cols) {
        for (int r = 0, at = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[c * rows + r] = in[at++];
            }
        }
    }

    /**
     * Elements a tile for other element sizes: {@link #TILE}, or fewer (a multiple of 8) so that a
     * tile stays within 1 MiB, as numcodecs' shuffle takes any element size.
     */
    static int genericTile(int typesize) {
        return (int) Math.max(8, Math.min(TILE, ((1L << 20) / typesize) & ~7L));
    }

    /**
     * {@code 8 * w} elements of 2, 4 or 8 bytes, held as little-endian words in {@code in}, into their
     * streams in {@code out} ({@code out[j * w + k]}: word k of stream j); what
     * {@link #unshuffleWords} undoes.
     */
    static void shuffleWords(long[] in, long[] out, int w, int typesize) {
        switch (typesize) {
            case 2 -> shuffle2(in, out, w);
            case 4 -> shuffle4(in, out, w);
            case 8 -> shuffle8(in, out, w);
            default -> throw new IllegalArgumentException("words of " + typesize + "-byte elements");
        }
    }

    /** 8 elements of 2 bytes a step, {@code w} steps: the even bytes to stream 0 ({@code out[0, w)}), the odd to stream 1. */
    private static void shuffle2(long[] in, long[] out, int w) {
        for (int k = 0; k < w; k++) {
            long a = in[2 * k];
            long b = in[2 * k + 1];
            out[k] = gather8(a) | gather8(b) << 32;
            out[w + k] = gather8(a >>> 8) | gather8(b >>> 8) << 32;
        }
    }

    /** 8 elements of 4 bytes a step: four 8-byte words in, one 8-byte word to each stream. */
    private static void shuffle4(long[] in, long[] out, int w) {
        for (int k = 0; k < w; k++) {
            long a = in[4 * k];
            long b = in[4 * k + 1];
            long c = in[4 * k + 2];
            long d = in[4 * k + 3];
            for (int j = 0; j < 4; j++) {
                int s = 8 * j;
                out[j * w + k] = (a >>> s & 0xFF) | (a >>> (s + 32) & 0xFF) << 8
                        | (b >>> s & 0xFF) << 16 | (b >>> (s + 32) & 0xFF) << 24
                        | (c >>> s & 0xFF) << 32 | (c >>> (s + 32) & 0xFF) << 40
                        | (d >>> s & 0xFF) << 48 | (d >>> (s + 32) & 0xFF) << 56;
            }
        }
    }

    /** 8 elements of 8 bytes are an 8 x 8 byte matrix: stream j is its column j. */
    private static void shuffle8(long[] in, long[] out, int w) {
        long[] m = new long[8];
        for (int k = 0; k < w; k++) {
            System.arraycopy(in, 8 * k, m, 0, 8);
            transposeBytes(m);
            for (int j = 0; j < 8; j++) {
                out[j * w + k] = m[j];
            }
        }
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
        long grouped = n & ~7L;
        if (typesize == 2 || typesize == 4 || typesize == 8) {
            long[] in = new long[(int) Math.min(TILE, grouped) * typesize / 8];
            long[] out = new long[in.length];
            for (long i = 0; i < grouped; i += TILE) {
                int w = (int) Math.min(TILE, grouped - i) / 8;
                for (int j = 0; j < typesize; j++) {
                    MemorySegment.copy(src, LE_LONG, srcOff + j * n + i, in, j * w, w);
                }
                unshuffleWords(in, out, w, typesize, dst, dstOff + i * typesize);
            }
        } else {
            int tile = genericTile(typesize);
            byte[] in = new byte[(int) Math.min(tile, grouped) * typesize];
            byte[] out = new byte[in.length];
            for (long i = 0; i < grouped; i += tile) {
                int t = (int) Math.min(tile, grouped - i);
                for (int j = 0; j < typesize; j++) {
                    MemorySegment.copy(src, ValueLayout.JAVA_BYTE, srcOff + j * n + i, in, j * t, t);
                }
                transpose(in, out, typesize, t);
                MemorySegment.copy(out, 0, dst, ValueLayout.JAVA_BYTE, dstOff + i * typesize, t * typesize);
            }
        }
        for (long i = grouped; i < n; i++) {
            for (int j = 0; j < typesize; j++) {
                dst.set(ValueLayout.JAVA_BYTE, dstOff + i * typesize + j, src.get(ValueLayout.JAVA_BYTE, srcOff + j * n + i));
            }
        }
        long whole = n * typesize;
        MemorySegment.copy(src, srcOff + whole, dst, dstOff + whole, bytes - whole);
    }

    /**
     * {@code 8 * w} elements of 2, 4 or 8 bytes into {@code dst} at {@code dstOff}, from their
     * streams held as little-endian words ({@code streams[j * w + k]}: word k of stream j);
     * {@code out}: room for {@code w * typesize} words.
     */
    static void unshuffleWords(long[] streams, long[] out, int w, int typesize, MemorySegment dst, long dstOff) {
        switch (typesize) {
            case 2 -> unshuffle2(streams, out, w);
            case 4 -> unshuffle4(streams, out, w);
            case 8 -> unshuffle8(streams, out, w);
            default -> throw new IllegalArgumentException("words of " + typesize + "-byte elements");
        }
        MemorySegment.copy(out, 0, dst, LE_LONG, dstOff, w * typesize);
    }

    /** netCDF-like int16: byte k of each stream to the low and high byte of element k, 8 elements a step. */
    private static void unshuffle2(long[] in, long[] out, int w) {
        for (int k = 0; k < w; k++) {
            long p0 = in[k];
            long p1 = in[w + k];
            out[2 * k] = spread8(p0) | spread8(p1) << 8;
            out[2 * k + 1] = spread8(p0 >>> 32) | spread8(p1 >>> 32) << 8;
        }
    }

    /** Interleaves the bytes of streams 0/1 and 2/3, then the 16-bit pairs of those: 8 elements a step. */
    private static void unshuffle4(long[] in, long[] out, int w) {
        for (int k = 0; k < w; k++) {
            long p0 = in[k];
            long p1 = in[w + k];
            long p2 = in[2 * w + k];
            long p3 = in[3 * w + k];
            long lo01 = spread8(p0) | spread8(p1) << 8;
            long hi01 = spread8(p0 >>> 32) | spread8(p1 >>> 32) << 8;
            long lo23 = spread8(p2) | spread8(p3) << 8;
            long hi23 = spread8(p2 >>> 32) | spread8(p3 >>> 32) << 8;
            out[4 * k] = spread16(lo01) | spread16(lo23) << 16;
            out[4 * k + 1] = spread16(lo01 >>> 32) | spread16(lo23 >>> 32) << 16;
            out[4 * k + 2] = spread16(hi01) | spread16(hi23) << 16;
            out[4 * k + 3] = spread16(hi01 >>> 32) | spread16(hi23 >>> 32) << 16;
        }
    }

    /** Word k of each of the 8 streams is the 8 x 8 byte matrix whose transpose is elements 8k to 8k + 7. */
    private static void unshuffle8(long[] in, long[] out, int w) {
        long[] m = new long[8];
        for (int k = 0; k < w; k++) {
            for (int j = 0; j < 8; j++) {
                m[j] = in[j * w + k];
            }
            transposeBytes(m);
            System.arraycopy(m, 0, out, 8 * k, 8);
        }
    }
}
