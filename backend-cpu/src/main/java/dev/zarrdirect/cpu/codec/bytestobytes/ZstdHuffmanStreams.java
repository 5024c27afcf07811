// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The one check of RFC 8878 that libzstd skips: "If a bitstream is not entirely and exactly
 * consumed, hence reaching exactly its beginning position with all bits consumed, the decoding
 * process is considered faulty" (section 4.2.2, Huffman-coded streams). libzstd's fast loop for
 * four-stream literals (used for all but small sections) checks only that each stream produced
 * its symbols, so a damaged stream that still yields the right number of (wrong) literals decodes
 * without error on the CPU, while the device kernels, which check it, report the frame corrupt.
 *
 * <p>{@link #check} runs after libzstd has decoded the frames successfully, so their structure is
 * known to be sound: it walks the frames and blocks, rebuilds each Huffman table (direct or
 * FSE-compressed weights, RFC 8878 4.2.1) and decodes each literal stream only far enough to see
 * where it ends. Anything it does not expect answers "no verdict" (null), never a false alarm:
 * libzstd's own checks stand. Thread-safe: each call takes its scratch (its tables, and room to
 * copy a stream walked the slow way) from a small bounded pool, as the zstd contexts are.
 *
 * <p>What it costs is a second Huffman decode of the literals, less the writing of symbols: it
 * reads four-stream sections in place, several codes a lookup (see {@link #fourStreams}), and
 * builds a table once for blocks that repeat it (treeless literals, or the same description
 * bytes again). Sections the fast loop cannot take (one stream, streams under 8 bytes) and any
 * stream it finds wrong are walked symbol by symbol ({@link #stream}), which also words the
 * verdict; {@link #checkExact} walks every stream so, for tests.
 */
public final class ZstdHuffmanStreams {

    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.invoke.VarHandle LE_LONG_ARRAY =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int MAGIC = 0xFD2FB528;
    private static final int MAX_BITS = 11;
    private static final int WEIGHTS_MAX_LOG = 6;
    /** The window of {@link Table#multi}: at least the longest code (11 bits). */
    private static final int MULTI_BITS = 12;
    /** The most a container moves down in a round of four lookups: what they take, and the 7 bits left before. */
    private static final int ROUND_BYTES = (7 + 4 * MULTI_BITS) / 8;
    /** The largest block (RFC 8878 Block_Maximum_Size), which holds every stream of its literals. */
    private static final int BLOCK_MAX = 128 << 10;
    private static final java.util.concurrent.ArrayBlockingQueue<Table> TABLES = new java.util.concurrent.ArrayBlockingQueue<>(
            Math.max(2, 2 * Runtime.getRuntime().availableProcessors()));

    private ZstdHuffmanStreams() {
    }

    /**
     * Null when every Huffman stream of the frames in {@code in} is consumed exactly (or when the
     * data are not what this reader expects), else what is wrong, e.g. {@code "Huffman stream 2
     * ends with 5 of its bits unread (...) of the literals of block 3 of frame 0"}.
     */
    public static String check(MemorySegment in) {
        Table table = TABLES.poll();
        if (table == null) {
            table = new Table();
        }
        try {
            return check(in, table);
        } finally {
            TABLES.offer(table);
        }
    }

    /**
     * {@link #check} the slow way, for tests: each stream decoded symbol by symbol to its count and
     * each table rebuilt. Its verdicts are the ones {@link #check} must give.
     */
    static String checkExact(MemorySegment in) {
        Table table = new Table();
        table.exact = true;
        return check(in, table);
    }

    private static String check(MemorySegment in, Table table) {
        long n = in.byteSize();
        long p = 0;
        int frame = 0;
        while (p < n) {
            if (n - p < 5) {
                return null;
            }
            int magic = in.get(LE_INT, p);
            if ((magic & 0xFFFFFFF0) == 0x184D2A50) {
                if (n - p < 8) {
                    return null;
                }
                long size = Integer.toUnsignedLong(in.get(LE_INT, p + 4));
                p += 8 + size;
                continue;
            }
            if (magic != MAGIC) {
                return null;
            }
            int fhd = u8(in, p + 4);
            boolean single = (fhd & 0x20) != 0;
            boolean checksum = (fhd & 0x04) != 0;
            int fcsFlag = fhd >>> 6;
            int didSize = new int[]{0, 1, 2, 4}[fhd & 3];
            int fcsSize = fcsFlag == 0 ? (single ? 1 : 0) : 1 << fcsFlag;
            p += 5 + (single ? 0 : 1) + didSize + fcsSize;
            table.valid = false;
            for (int block = 0; ; block++) {
                if (n - p < 3) {
                    return null;
                }
                int h = u8(in, p) | u8(in, p + 1) << 8 | u8(in, p + 2) << 16;
                p += 3;
                boolean last = (h & 1) != 0;
                int type = (h >>> 1) & 3;
                long size = h >>> 3;
                if (type == 1) {
                    size = 1;
                } else if (type == 2) {
                    if (n - p < size) {
                        return null;
                    }
                    String bad = literals(in, p, size, table);
                    if (bad != null) {
                        return bad.isEmpty() ? null : bad + " of the literals of block " + block + " of frame " + frame;
                    }
                }
                p += size;
                if (last) {
                    break;
                }
            }
            p += checksum ? 4 : 0;
            frame++;
        }
        return null;
    }

    /** The Huffman table of the current frame (kept for treeless literals) and the scratch to check with it. */
    private static final class Table {
        /** The code length of each cell of the table ({@link #bits} wide): what one symbol takes. */
        final byte[] nb = new byte[1 << MAX_BITS];
        /**
         * For each {@link #MULTI_BITS}-bit window, the codes that lie whole in it: their number times 256
         * plus their bits, so that one addition advances both a stream's bit count and its symbol count.
         */
        final char[] multi = new char[1 << MULTI_BITS];
        /** {@link #multi} of every narrower window, the r-bit one at [2^r, 2^(r+1)): what {@link #buildMulti} builds from. */
        final char[] narrower = new char[1 << MULTI_BITS];
        /** The description {@link #nb} was built from: a block that repeats it reuses the table. */
        final byte[] description = new byte[1 + 128];
        final MemorySegment descriptionSegment = MemorySegment.ofArray(description);
        int descriptionBytes;
        /** A stream walked symbol by symbol, copied out: it lies within a block (128 KiB at most). */
        byte[] buf = new byte[4 << 10];
        int bits;
        boolean valid;
        /** Where {@link #fourStreams} left its streams: start, container and accumulator of each. */
        final int[] lo = new int[4];
        final int[] ptr = new int[4];
        final int[] acc = new int[4];
        /** For {@link #checkExact}: no shortcut. */
        boolean exact;

        byte[] buf(long bytes) {
            if (buf.length < bytes) {
                buf = new byte[(int) Math.min(Math.max(bytes, 2L * buf.length), BLOCK_MAX)];
            }
            return buf;
        }
    }

    /** Checks the literals section at {@code in[p, p + blockSize)}: null if fine, "" for no verdict, else what is wrong. */
    private static String literals(MemorySegment in, long p, long blockSize, Table table) {
        int b0 = u8(in, p);
        int type = b0 & 3;
        if (type < 2) {
            return null;
        }
        int sf = (b0 >>> 2) & 3;
        int hl = sf <= 1 ? 3 : sf + 2;
        int nbits = sf <= 1 ? 10 : sf == 2 ? 14 : 18;
        if (blockSize < hl) {
            return "";
        }
        long v = 0;
        for (int i = 0; i < hl; i++) {
            v |= (long) u8(in, p + i) << (8 * i);
        }
        long mask = (1L << nbits) - 1;
        long regen = (v >>> 4) & mask;
        long csize = (v >>> (4 + nbits)) & mask;
        if (blockSize - hl < csize) {
            return "";
        }
        long q = p + hl;
        long rem = csize;
        if (type == 2) {
            long used = readTable(in, q, rem, table);
            if (used < 0) {
                return "";
            }
            q += used;
            rem -= used;
        } else if (!table.valid) {
            return "";
        }
        if (sf == 0) {
            return stream(in, q, rem, regen, table, 0);
        }
        if (rem < 10) {
            return "";
        }
        long s1 = u8(in, q) | u8(in, q + 1) << 8;
        long s2 = u8(in, q + 2) | u8(in, q + 3) << 8;
        long s3 = u8(in, q + 4) | u8(in, q + 5) << 8;
        long s4 = rem - 6 - s1 - s2 - s3;
        if (s4 <= 0) {
            return "";
        }
        long seg = (regen + 3) / 4;
        long at = q + 6;
        long[] len = {s1, s2, s3, s4};
        if (s1 >= 8 && s2 >= 8 && s3 >= 8 && s4 >= 8 && rem - 6 <= BLOCK_MAX) {
            int zero = zeroLastByte(in, at, len);
            if (zero >= 0) {
                return noEndMark(zero);
            }
            if (!table.exact && fourStreams(in, at, len, seg, regen - 3 * seg, table)) {
                return null;
            }
            // a stream is wrong (or this is checkExact): the exact walk below says which and how
        }
        for (int k = 0; k < 4; k++) {
            String bad = stream(in, at, len[k], k < 3 ? seg : regen - 3 * seg, table, k);
            if (bad != null) {
                return bad;
            }
            at += len[k];
        }
        return null;
    }

    /**
     * Decodes {@code count} symbols of the stream at {@code in[at, at + len)} and checks it ends
     * exactly there. Bits below the stream's start read as zero, as in the kernels; only the
     * final position matters, since it only ever decreases: reading past the start leaves it
     * negative, bits left over leave it positive.
     */
    private static String stream(MemorySegment in, long at, long len, long count, Table t, int k) {
        if (len <= 0 || len > BLOCK_MAX) {
            return "";
        }
        int n = (int) len;
        byte[] buf = t.buf(n);
        MemorySegment.copy(in, ValueLayout.JAVA_BYTE, at, buf, 0, n);
        int last = buf[n - 1] & 0xFF;
        if (last == 0) {
            return noEndMark(k);
        }
        int mb = t.bits;
        byte[] nb = t.nb;
        long pos;
        if (n >= 8) {
            pos = run(buf, nb, 64 - mb, 0, n - 8, Integer.numberOfLeadingZeros(last) - 23,
                    (long) LE_LONG_ARRAY.get(buf, n - 8), count);
        } else {
            pos = (n - 1) * 8L + (31 - Integer.numberOfLeadingZeros(last));
            for (long i = 0; i < count && pos >= 0; i++) {
                pos -= nb[peekSlow(in, at, len, pos, mb)];
            }
        }
        return verdict(pos, k, count);
    }

    private static String verdict(long pos, int k, long count) {
        if (pos < 0) {
            return "Huffman stream " + (k + 1) + " of " + count + " symbols reads past its start";
        }
        if (pos != 0) {
            return "Huffman stream " + (k + 1) + " ends with " + pos + " of its bits unread (RFC 8878 4.2.2: a stream"
                    + " must be consumed exactly)";
        }
        return null;
    }

    /**
     * Decodes {@code count} symbols of the stream in {@code buf[lo, ...)} whose 64-bit container
     * {@code c} holds the 8 bytes from {@code ptr} and has {@code used} bits taken from its top (as
     * libzstd lays it out), and returns the bits left unread: negative when it read past {@code lo}.
     * Bits below {@code lo} read as zero. Once nothing is left to read every further symbol takes
     * at least one bit, so the result only needs the count.
     */
    private static long run(byte[] buf, byte[] nb, int shift, int lo, int ptr, int used, long c, long count) {
        for (long i = 0; i < count; i++) {
            if (used >= 64) {
                used += (int) Math.min(count - i, Integer.MAX_VALUE / 2);
                break;
            }
            used += nb[(int) ((c << used) >>> shift)];
            if (used > 64 - MAX_BITS && ptr > lo) {
                int back = Math.min(ptr - lo, used >>> 3);
                ptr -= back;
                used -= 8 * back;
                c = (long) LE_LONG_ARRAY.get(buf, ptr);
            }
        }
        return 8L * (ptr - lo) + 64 - used;
    }

    /** The first of the four streams at {@code in[at, ...)} whose last byte is zero, or -1. */
    private static int zeroLastByte(MemorySegment in, long at, long[] len) {
        long end = at;
        for (int k = 0; k < 4; k++) {
            end += len[k];
            if (u8(in, end - 1) == 0) {
                return k;
            }
        }
        return -1;
    }

    /**
     * A stream's last byte holds its end mark, the highest 1 bit (RFC 8878 4.2.2): zero is corrupt.
     * libzstd's slow path says so; its fast four-stream loop takes such a stream, and so would the
     * CPU return bytes where the kernels report the frame corrupt.
     */
    private static String noEndMark(int k) {
        return "Huffman stream " + (k + 1) + " ends in a zero byte, where its end mark belongs";
    }

    /**
     * True when each of four streams of at least 8 bytes, none ending in a zero byte, is consumed
     * exactly by its symbols (streams 1 to 3 decode {@code seg}, stream 4 {@code lastCount}); false
     * when one is not, and {@link #stream} then says which and how.
     *
     * <p>Instead of decoding each stream's count of symbols and looking where it stopped, this
     * counts the symbols while taking every bit of the stream, and compares where and after how
     * many symbols the bits ran out. The two agree: a stream consumed exactly reaches its start
     * after exactly its count; otherwise either the count is reached with bits left, or the bits
     * run out (exactly, or by reading past the start, where bits read as zero) at another count.
     * That frees the loop from counting symbols one by one: a lookup of {@link Table#multi} takes
     * every code that lies whole in a window of the stream, often two or three, and adds its
     * number and its bits to one accumulator. The four streams are decoded in lock step (one
     * stream's lookup depends on its previous one; four hide each other's latency), in rounds of
     * four lookups, while each has 8 bytes below its 64-bit container: each lookup then reads real
     * bits only, and one refill a round suffices. The longer streams then go on two at a time
     * and alone, and the last bytes of each are finished one symbol at a time.
     */
    private static boolean fourStreams(MemorySegment in, long at, long[] len, long seg, long lastCount, Table t) {
        int n0 = (int) len[0];
        int n1 = (int) len[1];
        int n2 = (int) len[2];
        int n3 = (int) len[3];
        // the four streams copied to the heap: array loads cost the hot loop less than segment ones
        // (JFR: the segment accesses' checks were the check's largest cost on 1 MB frames)
        int total = n0 + n1 + n2 + n3;
        byte[] buf = t.buf(total);
        if (buf.length < total) { // more than a block holds: let the symbol-by-symbol walk judge
            return false;
        }
        MemorySegment.copy(in, ValueLayout.JAVA_BYTE, at, buf, 0, total);
        char[] m = t.multi;
        int l0 = 0;
        int l1 = l0 + n0;
        int l2 = l1 + n1;
        int l3 = l2 + n2;
        int p0 = l1 - 8;
        int p1 = l2 - 8;
        int p2 = l3 - 8;
        int p3 = l3 + n3 - 8;
        // Each accumulator: symbols taken times 256, plus the bits taken from the top of the
        // container (below 64, so that the shift, which uses the low 6 bits, sees them alone).
        int a0 = Integer.numberOfLeadingZeros(u8(buf, p0 + 7)) - 23;
        int a1 = Integer.numberOfLeadingZeros(u8(buf, p1 + 7)) - 23;
        int a2 = Integer.numberOfLeadingZeros(u8(buf, p2 + 7)) - 23;
        int a3 = Integer.numberOfLeadingZeros(u8(buf, p3 + 7)) - 23;
        // Each container is kept shifted so that its unread bits are on top: a lookup is a shift,
        // a load and a shift, which is what one stream's lookups wait on.
        long c0 = (long) LE_LONG_ARRAY.get(buf, p0) << a0;
        long c1 = (long) LE_LONG_ARRAY.get(buf, p1) << a1;
        long c2 = (long) LE_LONG_ARRAY.get(buf, p2) << a2;
        long c3 = (long) LE_LONG_ARRAY.get(buf, p3) << a3;
        for (;;) {
            // rounds that keep every container 8 bytes above its stream's start, whatever they read
            int rounds = Math.min(Math.min(p0 - l0, p1 - l1), Math.min(p2 - l2, p3 - l3)) - 8;
            if (rounds < 0) {
                break;
            }
            for (rounds = rounds / ROUND_BYTES + 1; rounds > 0; rounds--) {
                int x;
                x = m[(int) (c0 >>> (64 - MULTI_BITS))];
                c0 <<= x;
                a0 += x;
                x = m[(int) (c1 >>> (64 - MULTI_BITS))];
                c1 <<= x;
                a1 += x;
                x = m[(int) (c2 >>> (64 - MULTI_BITS))];
                c2 <<= x;
                a2 += x;
                x = m[(int) (c3 >>> (64 - MULTI_BITS))];
                c3 <<= x;
                a3 += x;
                x = m[(int) (c0 >>> (64 - MULTI_BITS))];
                c0 <<= x;
                a0 += x;
                x = m[(int) (c1 >>> (64 - MULTI_BITS))];
                c1 <<= x;
                a1 += x;
                x = m[(int) (c2 >>> (64 - MULTI_BITS))];
                c2 <<= x;
                a2 += x;
                x = m[(int) (c3 >>> (64 - MULTI_BITS))];
                c3 <<= x;
                a3 += x;
                x = m[(int) (c0 >>> (64 - MULTI_BITS))];
                c0 <<= x;
                a0 += x;
                x = m[(int) (c1 >>> (64 - MULTI_BITS))];
                c1 <<= x;
                a1 += x;
                x = m[(int) (c2 >>> (64 - MULTI_BITS))];
                c2 <<= x;
                a2 += x;
                x = m[(int) (c3 >>> (64 - MULTI_BITS))];
                c3 <<= x;
                a3 += x;
                x = m[(int) (c0 >>> (64 - MULTI_BITS))];
                c0 <<= x;
                a0 += x;
                x = m[(int) (c1 >>> (64 - MULTI_BITS))];
                c1 <<= x;
                a1 += x;
                x = m[(int) (c2 >>> (64 - MULTI_BITS))];
                c2 <<= x;
                a2 += x;
                x = m[(int) (c3 >>> (64 - MULTI_BITS))];
                c3 <<= x;
                a3 += x;
                p0 -= (a0 & 0xFF) >>> 3;
                a0 &= ~0xF8;
                c0 = (long) LE_LONG_ARRAY.get(buf, p0) << a0;
                p1 -= (a1 & 0xFF) >>> 3;
                a1 &= ~0xF8;
                c1 = (long) LE_LONG_ARRAY.get(buf, p1) << a1;
                p2 -= (a2 & 0xFF) >>> 3;
                a2 &= ~0xF8;
                c2 = (long) LE_LONG_ARRAY.get(buf, p2) << a2;
                p3 -= (a3 & 0xFF) >>> 3;
                a3 &= ~0xF8;
                c3 = (long) LE_LONG_ARRAY.get(buf, p3) << a3;
            }
        }
        // The streams differ in length (about 5% of their bytes are left here): the longer ones go
        // on two at a time, the two with the most bytes left, then the last one alone.
        int[] lo = t.lo;
        int[] ptr = t.ptr;
        int[] acc = t.acc;
        lo[0] = l0;
        lo[1] = l1;
        lo[2] = l2;
        lo[3] = l3;
        ptr[0] = p0;
        ptr[1] = p1;
        ptr[2] = p2;
        ptr[3] = p3;
        acc[0] = a0;
        acc[1] = a1;
        acc[2] = a2;
        acc[3] = a3;
        for (;;) {
            int i = -1;
            int j = -1;
            for (int k = 0; k < 4; k++) {
                int left = ptr[k] - lo[k];
                if (left < 8) {
                    continue;
                }
                if (i < 0 || left > ptr[i] - lo[i]) {
                    j = i;
                    i = k;
                } else if (j < 0 || left > ptr[j] - lo[j]) {
                    j = k;
                }
            }
            if (j < 0) {
                break;
            }
            twoStreams(buf, m, t, i, j);
        }
        return endsExactly(buf, l0, ptr[0], acc[0], seg, t) && endsExactly(buf, l1, ptr[1], acc[1], seg, t)
                && endsExactly(buf, l2, ptr[2], acc[2], seg, t) && endsExactly(buf, l3, ptr[3], acc[3], lastCount, t);
    }

    /** Streams {@code i} and {@code j} of {@link #fourStreams} in lock step, while both have 8 bytes below their container. */
    private static void twoStreams(byte[] buf, char[] m, Table t, int i, int j) {
        int li = t.lo[i];
        int lj = t.lo[j];
        int pi = t.ptr[i];
        int pj = t.ptr[j];
        int ai = t.acc[i];
        int aj = t.acc[j];
        while (pi - li >= 8 && pj - lj >= 8) {
            long ci = (long) LE_LONG_ARRAY.get(buf, pi);
            long cj = (long) LE_LONG_ARRAY.get(buf, pj);
            ai += m[(int) ((ci << ai) >>> (64 - MULTI_BITS))];
            aj += m[(int) ((cj << aj) >>> (64 - MULTI_BITS))];
            ai += m[(int) ((ci << ai) >>> (64 - MULTI_BITS))];
            aj += m[(int) ((cj << aj) >>> (64 - MULTI_BITS))];
            ai += m[(int) ((ci << ai) >>> (64 - MULTI_BITS))];
            aj += m[(int) ((cj << aj) >>> (64 - MULTI_BITS))];
            ai += m[(int) ((ci << ai) >>> (64 - MULTI_BITS))];
            aj += m[(int) ((cj << aj) >>> (64 - MULTI_BITS))];
            pi -= (ai & 0xFF) >>> 3;
            ai &= ~0xF8;
            pj -= (aj & 0xFF) >>> 3;
            aj &= ~0xF8;
        }
        t.ptr[i] = pi;
        t.ptr[j] = pj;
        t.acc[i] = ai;
        t.acc[j] = aj;
    }

    /**
     * Finishes a stream of {@link #fourStreams} one symbol at a time until its bits run out (bits
     * below {@code buf[lo]} reading as zero): true when they run out exactly, after {@code count}
     * symbols in all.
     */
    private static boolean endsExactly(byte[] buf, int lo, int ptr, int acc, long count, Table t) {
        char[] m = t.multi;
        while (ptr - lo >= 8) {
            long c = (long) LE_LONG_ARRAY.get(buf, ptr);
            acc += m[(int) ((c << acc) >>> (64 - MULTI_BITS))];
            acc += m[(int) ((c << acc) >>> (64 - MULTI_BITS))];
            acc += m[(int) ((c << acc) >>> (64 - MULTI_BITS))];
            acc += m[(int) ((c << acc) >>> (64 - MULTI_BITS))];
            ptr -= (acc & 0xFF) >>> 3;
            acc &= ~0xF8;
        }
        long pos = 8L * (ptr - lo) + 64 - (acc & 0xFF);
        long taken = acc >>> 8;
        int mb = t.bits;
        byte[] nb = t.nb;
        while (pos > 0) {
            long from = pos - mb;
            int first = (int) (Math.max(0, from) >>> 3);
            int v = 0;
            for (int i = first, last = (int) ((pos - 1) >>> 3); i <= last; i++) {
                v |= u8(buf, lo + i) << (8 * (i - first));
            }
            int window = from >= 0 ? (v >>> (from & 7)) & ((1 << mb) - 1) : (v & ((1 << pos) - 1)) << (int) -from;
            pos -= nb[window];
            taken++;
        }
        return pos == 0 && taken == count;
    }

    /** The {@code n} bits below {@code pos}, bits below the stream's start reading as zero. */
    private static int peekSlow(MemorySegment in, long at, long len, long pos, int n) {
        long lo = pos - n;
        long v = 0;
        long from = Math.max(0, lo) >>> 3;
        for (int i = 0; i < 8 && from + i < len; i++) {
            v |= (long) u8(in, at + from + i) << (8 * i);
        }
        if (lo >= 0) {
            return (int) (v >>> (lo & 7)) & ((1 << n) - 1);
        }
        // from is 0: the bits [0, pos) shifted up to the top of the n bits
        return (int) ((v & ((1L << pos) - 1)) << (-lo));
    }

    /** Reads the Huffman tree description at {@code in[p, p + avail)} into {@code t}; its size, or -1 for no verdict. */
    private static long readTable(MemorySegment in, long p, long avail, Table t) {
        if (avail < 1) {
            return -1;
        }
        int hb = u8(in, p);
        long used = hb >= 128 ? 1 + (hb - 127 + 1) / 2 : 1 + hb;
        if (used <= avail && used == t.descriptionBytes && !t.exact
                && MemorySegment.mismatch(in, p, p + used, t.descriptionSegment, 0, used) == -1) {
            t.valid = true; // the same bytes as the last table built: the same table
            return used;
        }
        int[] weights = new int[256];
        int nw = 0;
        if (hb >= 128) {
            nw = hb - 127;
            int bytes = (nw + 1) / 2;
            if (avail < 1 + bytes) {
                return -1;
            }
            for (int i = 0; i < nw; i++) {
                int b = u8(in, p + 1 + i / 2);
                weights[i] = (i & 1) != 0 ? b & 15 : b >>> 4;
            }
        } else {
            nw = fseWeights(in, p + 1, hb, avail - 1, weights);
            if (nw < 0) {
                return -1;
            }
        }
        int sum = 0;
        for (int i = 0; i < nw; i++) {
            int w = weights[i];
            if (w > MAX_BITS) {
                return -1;
            }
            sum += w > 0 ? 1 << (w - 1) : 0;
        }
        if (sum == 0) {
            return -1;
        }
        int mb = 32 - Integer.numberOfLeadingZeros(sum);
        if (mb > MAX_BITS) {
            return -1;
        }
        int rest = (1 << mb) - sum;
        if (Integer.bitCount(rest) != 1) {
            return -1;
        }
        int lastW = 31 - Integer.numberOfLeadingZeros(rest) + 1;
        weights[nw] = lastW;
        int nsyms = nw + 1;
        // Cells in order of increasing weight, symbols in natural order within a weight (RFC 8878
        // 4.2.1.3): the symbols of one weight, whose codes have one length, take one run of cells.
        int[] count = new int[MAX_BITS + 2];
        for (int s = 0; s < nsyms; s++) {
            count[weights[s]]++;
        }
        int[] start = new int[MAX_BITS + 2];
        int acc = 0;
        for (int w = 1; w <= MAX_BITS; w++) {
            start[w] = acc;
            acc += count[w] << (w - 1);
        }
        if (acc != 1 << mb) {
            return -1;
        }
        for (int w = 1; w <= mb; w++) {
            java.util.Arrays.fill(t.nb, start[w], start[w] + (count[w] << (w - 1)), (byte) (mb + 1 - w));
        }
        t.bits = mb;
        buildMulti(t, mb, start, count);
        t.valid = true;
        MemorySegment.copy(in, ValueLayout.JAVA_BYTE, p, t.description, 0, (int) used);
        t.descriptionBytes = (int) used;
        return used;
    }

    /**
     * Fills {@link Table#multi}: for each window of {@code K} = {@link #MULTI_BITS} bits, the
     * codes that lie whole in it. Built from the narrower windows up rather than window by window:
     * the r-bit windows that start with a code of length l are that code followed by every (r -
     * l)-bit window, and the codes of one length take one run of cells ({@code start[w]}, {@code
     * count[w]} codes of weight w): the entries of a run are the (r - l)-bit table plus one code, once
     * per code, so each table is a few array copies. Windows that start with a code longer than
     * themselves hold no code (the longest codes take the first cells).
     */
    private static void buildMulti(Table t, int mb, int[] start, int[] count) {
        int k = MULTI_BITS;
        char[] narrower = t.narrower;
        narrower[1] = 0;
        for (int r = 1; r <= k; r++) {
            char[] out = r == k ? t.multi : narrower;
            int base = r == k ? 0 : 1 << r;
            int firstW = Math.max(1, mb + 1 - r);
            int zeros = r >= mb ? start[firstW] << (r - mb) : start[firstW] >>> (mb - r);
            java.util.Arrays.fill(out, base, base + zeros, (char) 0);
            for (int w = firstW; w <= mb; w++) {
                if (count[w] == 0) {
                    continue;
                }
                int l = mb + 1 - w;
                int each = 1 << (r - l);
                int off = base + (r >= mb ? start[w] << (r - mb) : start[w] >>> (mb - r));
                int from = 1 << (r - l);
                char add = (char) (256 | l);
                for (int v = 0; v < each; v++) {
                    out[off + v] = (char) (narrower[from + v] + add);
                }
                for (int done = each, all = count[w] * each; done < all; done *= 2) {
                    System.arraycopy(out, off, out, off + done, Math.min(done, all - done));
                }
            }
        }
    }

    /** Decodes the FSE-compressed weights at {@code in[p, p + csize)} into {@code weights}; their number, or -1. */
    private static int fseWeights(MemorySegment in, long p, int csize, long avail, int[] weights) {
        if (csize == 0 || avail < csize) {
            return -1;
        }
        // the table description: a forward bitstream of normalised counts (RFC 8878 4.1.1)
        long bitpos = 0;
        int log = (int) fwd(in, p, csize, bitpos, 4) + 5;
        bitpos += 4;
        if (log > WEIGHTS_MAX_LOG) {
            return -1;
        }
        int[] norm = new int[16];
        int remaining = (1 << log) + 1;
        int threshold = 1 << log;
        int nbits = log + 1;
        int sym = 0;
        while (remaining > 1) {
            if (sym > 15 || (bitpos + 7) >>> 3 > csize) {
                return -1;
            }
            int maxv = (2 * threshold - 1) - remaining;
            int v = (int) fwd(in, p, csize, bitpos, nbits);
            int low = v & (threshold - 1);
            if (low < maxv) {
                v = low;
                bitpos += nbits - 1;
            } else {
                if (v >= threshold) {
                    v -= maxv;
                }
                bitpos += nbits;
            }
            int prob = v - 1;
            norm[sym++] = prob;
            remaining -= Math.abs(prob);
            if (prob == 0) {
                for (;;) {
                    if ((bitpos + 7) >>> 3 > csize) {
                        return -1;
                    }
                    int rep = (int) fwd(in, p, csize, bitpos, 2);
                    bitpos += 2;
                    for (int k = 0; k < rep; k++) {
                        if (sym > 15) {
                            return -1;
                        }
                        norm[sym++] = 0;
                    }
                    if (rep != 3) {
                        break;
                    }
                }
            }
            while (remaining < threshold && threshold > 1) {
                nbits--;
                threshold >>= 1;
            }
        }
        long hdr = (bitpos + 7) >>> 3;
        if (remaining != 1 || hdr >= csize) {
            return -1;
        }
        // the decoding table (RFC 8878 4.1.1): "less than 1" symbols at the end, the rest spread
        int size = 1 << log;
        int[] tSym = new int[size];
        int[] tNb = new int[size];
        int[] tBase = new int[size];
        int[] next = new int[sym];
        int high = size - 1;
        for (int s = 0; s < sym; s++) {
            if (norm[s] == -1) {
                tSym[high--] = s;
                next[s] = 1;
            } else {
                next[s] = norm[s];
            }
        }
        int step = (size >>> 1) + (size >>> 3) + 3;
        int pos = 0;
        for (int s = 0; s < sym; s++) {
            for (int i = 0; i < norm[s]; i++) {
                tSym[pos] = s;
                do {
                    pos = (pos + step) & (size - 1);
                } while (pos > high);
            }
        }
        if (pos != 0) {
            return -1;
        }
        for (int u = 0; u < size; u++) {
            int ns = next[tSym[u]]++;
            int nb = log - (31 - Integer.numberOfLeadingZeros(ns));
            tNb[u] = nb;
            tBase[u] = (ns << nb) - size;
        }
        // two interleaved states over one backward stream, until an update reads past its start
        long at = p + hdr;
        long len = csize - hdr;
        int lastByte = u8(in, at + len - 1);
        if (lastByte == 0) {
            return -1;
        }
        long[] bpos = {(len - 1) * 8 + (31 - Integer.numberOfLeadingZeros(lastByte))};
        int s1 = bwd(in, at, len, bpos, log);
        int s2 = bwd(in, at, len, bpos, log);
        if (bpos[0] < 0) {
            return -1;
        }
        int nw = 0;
        for (;;) {
            if (nw >= 255) {
                return -1;
            }
            weights[nw++] = tSym[s1];
            s1 = tBase[s1] + bwd(in, at, len, bpos, tNb[s1]);
            if (nw >= 255) {
                return -1;
            }
            weights[nw++] = tSym[s2];
            if (bpos[0] < 0) {
                break;
            }
            s2 = tBase[s2] + bwd(in, at, len, bpos, tNb[s2]);
            if (bpos[0] < 0) {
                if (nw >= 255) {
                    return -1;
                }
                weights[nw++] = tSym[s1];
                break;
            }
        }
        return nw;
    }

    /** {@code n} bits (n <= 32) of the forward stream at {@code in[p, p + len)} from bit {@code bitpos}; bytes past the end read as 0. */
    private static long fwd(MemorySegment in, long p, long len, long bitpos, int n) {
        long from = bitpos >>> 3;
        long v = 0;
        for (int i = 0; i < 5 && from + i < len; i++) {
            v |= (long) u8(in, p + from + i) << (8 * i);
        }
        return (v >>> (bitpos & 7)) & ((1L << n) - 1);
    }

    /** Reads {@code n} bits of the backward stream at {@code in[at, at + len)} below {@code pos[0]} and moves it down. */
    private static int bwd(MemorySegment in, long at, long len, long[] pos, int n) {
        if (n == 0) {
            return 0;
        }
        int v = pos[0] <= 0 ? 0 : peekSlow(in, at, len, pos[0], n);
        pos[0] -= n;
        return v;
    }

    private static int u8(MemorySegment in, long at) {
        return in.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }

    private static int u8(byte[] in, int at) {
        return in[at] & 0xFF;
    }
}
