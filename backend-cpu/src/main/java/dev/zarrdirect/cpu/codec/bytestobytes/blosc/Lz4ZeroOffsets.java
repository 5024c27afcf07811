// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Finds a match of offset 0 in an LZ4 block, which the block format calls invalid ("a 0 offset
 * value denotes an invalid (corrupted) block") and which lz4-java decodes anyway: the match then
 * copies the destination's own bytes at the output position, whatever an earlier user of that
 * memory left there. The device kernels report it as {@code CORRUPT_OFFSET_BEFORE_START}; without
 * this walk a stream damaged there decoded on the CPU, to bytes that depend on the buffer's past.
 *
 * <p>The walk reads the tokens, length extensions and offsets only, skipping literals: a few byte
 * reads per sequence. Where the stream is malformed in any other way it stops and leaves the
 * verdict to lz4-java.
 */
final class Lz4ZeroOffsets {

    private Lz4ZeroOffsets() {
    }

    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;

    /** The position (from {@code off}) of the first zero offset of the LZ4 block {@code src[off, off + len)}, or -1. */
    static long find(MemorySegment src, long off, long len) {
        long end = off + len;
        long p = off;
        while (p < end) {
            int token = u8(src, p++);
            long lit = token >>> 4;
            if (lit == 15) {
                int x;
                do {
                    if (p >= end) {
                        return -1;
                    }
                    x = u8(src, p++);
                    lit += x;
                } while (x == 255);
            }
            if (lit >= end - p) { // the last sequence ends on its literals (or the stream is cut)
                return -1;
            }
            p += lit;
            if (end - p < 2) {
                return -1;
            }
            if (src.get(SHORT, p) == 0) { // both bytes zero, whatever the byte order
                return p - off;
            }
            p += 2;
            if ((token & 15) == 15) {
                int x;
                do {
                    if (p >= end) {
                        return -1;
                    }
                    x = u8(src, p++);
                } while (x == 255);
            }
        }
        return -1;
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }
}
