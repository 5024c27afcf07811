// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * BloscLZ, Blosc's own LZ77 format (a relative of FastLZ level 1), written here from its format
 * description.
 *
 * <h2>Format</h2>
 * A stream is a sequence of instructions, each starting with a control byte {@code c}. The first
 * instruction is always a literal run and only the low 5 bits of its control byte count.
 * <ul>
 *   <li>{@code c < 32}: a literal run; the next {@code c + 1} bytes are copied to the output.</li>
 *   <li>{@code c >= 32}: a match. {@code L = c >> 5} (1..7) gives a length code {@code L - 1}; when
 *       {@code L == 7}, extension bytes follow and each is added to it, until one is not 255. Then
 *       one byte {@code lo}. The match copies {@code code + 3} bytes from {@code distance} bytes back
 *       in the output, where {@code distance = ((c & 31) << 8) + lo + 1}, except when
 *       {@code c & 31 == 31} and {@code lo == 255}: then two more bytes hold a big-endian 16-bit
 *       {@code far} and {@code distance = far + 8192}. Matches may overlap their own output.</li>
 * </ul>
 * The stream ends when its input ends; a well-formed stream ends with a literal run (c-blosc does not
 * execute a match that is the last instruction, so such a stream cannot reproduce its data and is
 * rejected here).
 *
 * <h2>Encoder</h2>
 * A greedy single-probe hash matcher (4-byte sequences, distances up to 73727) that always ends with
 * literals. It aims for speed, not for the ratio of c-blosc's own encoder; any BloscLZ decoder reads
 * what it writes.
 */
public final class BloscLz {

    static final int MAX_SHORT_DISTANCE = 8191;
    static final int MAX_DISTANCE = 8192 + 65535;
    private static final int MIN_MATCH = 4;
    private static final int HASH_BITS = 14;
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private BloscLz() {
    }

    /**
     * Decodes the stream in {@code src[srcOff, srcOff + srcLen)} into {@code dst[dstOff, dstOff + dstLen)}
     * and returns the number of bytes produced.
     *
     * @throws IllegalArgumentException for a malformed stream: the message says which instruction,
     *                                  at which input byte, and why
     */
    public static int decompress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff,
                                 int dstLen) {
        if (srcLen == 0) {
            throw new IllegalArgumentException("empty BloscLZ stream");
        }
        int ip = 0;
        int op = 0;
        int ctrl = src.get(ValueLayout.JAVA_BYTE, srcOff) & 31;
        ip = 1;
        while (true) {
            if (ctrl < 32) {
                int run = ctrl + 1;
                if (srcLen - ip < run) {
                    throw new IllegalArgumentException("literal run of " + run + " bytes at input byte " + (ip - 1)
                            + " runs past the end of the " + srcLen + "-byte stream");
                }
                if (dstLen - op < run) {
                    throw new IllegalArgumentException("literal run of " + run + " bytes at input byte " + (ip - 1)
                            + " overflows the " + dstLen + "-byte output at " + op);
                }
                MemorySegment.copy(src, srcOff + ip, dst, dstOff + op, run);
                ip += run;
                op += run;
                if (ip >= srcLen) {
                    return op;
                }
            } else {
                int at = ip - 1;
                int len = (ctrl >>> 5) - 1;
                int hi = ctrl & 31;
                if (len == 6) {
                    int b;
                    do {
                        if (ip >= srcLen) {
                            throw truncatedMatch(at, srcLen);
                        }
                        b = src.get(ValueLayout.JAVA_BYTE, srcOff + ip++) & 0xFF;
                        len += b;
                    } while (b == 255 && len < Integer.MAX_VALUE - 512);
                }
                if (ip >= srcLen) {
                    throw truncatedMatch(at, srcLen);
                }
                int lo = src.get(ValueLayout.JAVA_BYTE, srcOff + ip++) & 0xFF;
                long distance;
                if (hi == 31 && lo == 255) {
                    if (srcLen - ip < 2) {
                        throw truncatedMatch(at, srcLen);
                    }
                    int far = (src.get(ValueLayout.JAVA_BYTE, srcOff + ip) & 0xFF) << 8
                            | src.get(ValueLayout.JAVA_BYTE, srcOff + ip + 1) & 0xFF;
                    ip += 2;
                    distance = far + 8192L;
                } else {
                    distance = (hi << 8) + lo + 1L;
                }
                int length = len + 3;
                if (distance > op) {
                    throw new IllegalArgumentException("match at input byte " + at + " refers " + distance
                            + " bytes back from output byte " + op + ", before the start of the output");
                }
                if (dstLen - op < length) {
                    throw new IllegalArgumentException("match of " + length + " bytes at input byte " + at
                            + " overflows the " + dstLen + "-byte output at " + op);
                }
                if (ip >= srcLen) {
                    throw new IllegalArgumentException("stream of " + srcLen + " bytes ends with a match (at input byte "
                            + at + "); BloscLZ streams end with literals");
                }
                copyMatch(dst, dstOff + op, (int) distance, length);
                op += length;
            }
            ctrl = src.get(ValueLayout.JAVA_BYTE, srcOff + ip++) & 0xFF;
        }
    }

    private static IllegalArgumentException truncatedMatch(int at, int srcLen) {
        return new IllegalArgumentException("match at input byte " + at + " is cut off by the end of the "
                + srcLen + "-byte stream");
    }

    private static void copyMatch(MemorySegment dst, long to, int distance, int length) {
        long from = to - distance;
        if (distance == 1) {
            dst.asSlice(to, length).fill(dst.get(ValueLayout.JAVA_BYTE, from));
        } else if (distance >= length) {
            MemorySegment.copy(dst, from, dst, to, length);
        } else {
            // Overlapping: the pattern of `distance` bytes repeats; copy it in growing pieces.
            long done = 0;
            while (done < length) {
                long piece = Math.min(length - done, distance + done);
                MemorySegment.copy(dst, from, dst, to + done, piece);
                done += piece;
            }
        }
    }

    /**
     * Encodes {@code src[srcOff, srcOff + srcLen)} into {@code dst[dstOff, dstOff + maxOut)} and
     * returns the size written, or 0 when the result would not fit in {@code maxOut} bytes.
     *
     * @param table scratch of at least {@link #tableSize()} ints; its contents do not matter
     */
    public static int compress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int maxOut,
                               int[] table) {
        if (srcLen == 0 || maxOut < 2) {
            return 0;
        }
        java.util.Arrays.fill(table, 0, tableSize(), -1);
        int ip = 0;
        int anchor = 0; // first byte not yet emitted
        int op = 0;
        int limit = srcLen - 12; // the last bytes are always literals
        while (ip < limit) {
            int seq = src.get(LE_INT, srcOff + ip);
            int h = (seq * -1640531535) >>> (32 - HASH_BITS);
            int ref = table[h];
            table[h] = ip;
            int distance = ip - ref;
            if (ref < 0 || distance > MAX_DISTANCE || src.get(LE_INT, srcOff + ref) != seq) {
                ip++;
                continue;
            }
            int len = MIN_MATCH;
            int maxLen = srcLen - 1 - ip; // keep at least one literal at the end
            while (len < maxLen && src.get(ValueLayout.JAVA_BYTE, srcOff + ip + len)
                    == src.get(ValueLayout.JAVA_BYTE, srcOff + ref + len)) {
                len++;
            }
            op = literals(src, srcOff + anchor, ip - anchor, dst, dstOff, op, maxOut);
            if (op < 0) {
                return 0;
            }
            op = match(dst, dstOff, op, maxOut, len, distance);
            if (op < 0) {
                return 0;
            }
            ip += len;
            anchor = ip;
            if (ip < limit) { // refresh the table inside the match, cheaply: its last position only
                int p = ip - 1;
                table[(src.get(LE_INT, srcOff + p) * -1640531535) >>> (32 - HASH_BITS)] = p;
            }
        }
        op = literals(src, srcOff + anchor, srcLen - anchor, dst, dstOff, op, maxOut);
        return op < 0 ? 0 : op;
    }

    /** Ints of scratch {@link #compress} needs. */
    public static int tableSize() {
        return 1 << HASH_BITS;
    }

    private static int literals(MemorySegment src, long from, int count, MemorySegment dst, long dstOff, int op,
                                int maxOut) {
        while (count > 0) {
            int run = Math.min(32, count);
            if (maxOut - op < run + 1) {
                return -1;
            }
            dst.set(ValueLayout.JAVA_BYTE, dstOff + op++, (byte) (run - 1));
            MemorySegment.copy(src, from, dst, dstOff + op, run);
            op += run;
            from += run;
            count -= run;
        }
        return op;
    }

    private static int match(MemorySegment dst, long dstOff, int op, int maxOut, int length, int distance) {
        int code = length - 3;
        int need = 2 + (code >= 6 ? 1 + (code - 6) / 255 : 0) + (distance > MAX_SHORT_DISTANCE ? 2 : 0);
        if (maxOut - op < need) {
            return -1;
        }
        boolean far = distance > MAX_SHORT_DISTANCE;
        int hi = far ? 31 : (distance - 1) >>> 8;
        int lo = far ? 255 : (distance - 1) & 0xFF;
        if (code < 6) {
            dst.set(ValueLayout.JAVA_BYTE, dstOff + op++, (byte) (((code + 1) << 5) | hi));
        } else {
            dst.set(ValueLayout.JAVA_BYTE, dstOff + op++, (byte) ((7 << 5) | hi));
            int rest = code - 6;
            while (rest >= 255) {
                dst.set(ValueLayout.JAVA_BYTE, dstOff + op++, (byte) 255);
                rest -= 255;
            }
            dst.set(ValueLayout.JAVA_BYTE, dstOff + op++, (byte) rest);
        }
        dst.set(ValueLayout.JAVA_BYTE, dstOff + op++, (byte) lo);
        if (far) {
            int f = distance - 8192;
            dst.set(ValueLayout.JAVA_BYTE, dstOff + op++, (byte) (f >>> 8));
            dst.set(ValueLayout.JAVA_BYTE, dstOff + op++, (byte) f);
        }
        return op;
    }
}
