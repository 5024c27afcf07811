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
 * libzstd's own checks stand. Thread-safe: each call takes its scratch (a table and a copy of
 * one block's streams) from a small bounded pool, as the zstd contexts are.
 */
public final class ZstdHuffmanStreams {

    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.invoke.VarHandle LE_LONG_ARRAY =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int MAGIC = 0xFD2FB528;
    private static final int MAX_BITS = 11;
    private static final int WEIGHTS_MAX_LOG = 6;
    /** Table indexes masked to the table's size, so that the JIT can drop their bounds checks. */
    private static final int CELL_MASK = (1 << MAX_BITS) - 1;
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

    /** The Huffman table of the current frame (kept for treeless literals): the code length of each cell. */
    private static final class Table {
        final byte[] nb = new byte[1 << MAX_BITS];
        /**
         * For each cell, the bits of its code and of the next code when the cell's index holds that
         * one whole too (bits 0-4), and whether it does (bit 5): short codes are taken two at a time.
         */
        final byte[] pair = new byte[1 << MAX_BITS];
        /** The streams of one literals section, copied out: they lie within a block (128 KiB at most). */
        byte[] buf = new byte[4 << 10];
        int bits;
        boolean valid;

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
            return fourStreams(in, at, len, seg, regen - 3 * seg, table);
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
            return "";
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

    /**
     * {@link #stream} for four streams of at least 8 bytes each, decoded in lock step: one
     * stream's next lookup depends on its previous one, so interleaving four hides the latency
     * (as libzstd does). Streams 1 to 3 decode {@code seg} symbols, stream 4 {@code lastCount}.
     */
    private static String fourStreams(MemorySegment in, long at, long[] len, long seg, long lastCount, Table t) {
        int total = (int) (len[0] + len[1] + len[2] + len[3]);
        byte[] buf = t.buf(total);
        byte[] nb = t.nb;
        int shift = 64 - t.bits;
        MemorySegment.copy(in, ValueLayout.JAVA_BYTE, at, buf, 0, total);
        int[] lo = new int[4];
        int[] ptr = new int[4];
        int[] used = new int[4];
        long[] c = new long[4];
        for (int k = 0, o = 0; k < 4; o += (int) len[k], k++) {
            int last = buf[o + (int) len[k] - 1] & 0xFF;
            if (last == 0) {
                return "";
            }
            lo[k] = o;
            ptr[k] = o + (int) len[k] - 8;
            used[k] = Integer.numberOfLeadingZeros(last) - 23;
            c[k] = (long) LE_LONG_ARRAY.get(buf, ptr[k]);
        }
        int p0 = ptr[0], p1 = ptr[1], p2 = ptr[2], p3 = ptr[3];
        int u0 = used[0], u1 = used[1], u2 = used[2], u3 = used[3];
        long c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3];
        int l0 = lo[0], l1 = lo[1], l2 = lo[2], l3 = lo[3];
        byte[] pair = t.pair;
        long d0 = 0, d1 = 0, d2 = 0, d3 = 0;
        // Rounds of 5 lookups a stream, each taking one or two codes of at most 11 bits together,
        // while every stream has 10 codes left and 8 bytes below its container: 5 lookups fit the
        // 57 bits left after a refill, so one refill a round suffices.
        while (seg - d0 >= 10 && seg - d1 >= 10 && seg - d2 >= 10 && lastCount - d3 >= 10
                && p0 - l0 >= 8 && p1 - l1 >= 8 && p2 - l2 >= 8 && p3 - l3 >= 8) {
            int x;
            x = pair[(int) ((c0 << u0) >>> shift) & CELL_MASK];
            u0 += x & 31;
            d0 += 1 + (x >>> 5);
            x = pair[(int) ((c1 << u1) >>> shift) & CELL_MASK];
            u1 += x & 31;
            d1 += 1 + (x >>> 5);
            x = pair[(int) ((c2 << u2) >>> shift) & CELL_MASK];
            u2 += x & 31;
            d2 += 1 + (x >>> 5);
            x = pair[(int) ((c3 << u3) >>> shift) & CELL_MASK];
            u3 += x & 31;
            d3 += 1 + (x >>> 5);
            x = pair[(int) ((c0 << u0) >>> shift) & CELL_MASK];
            u0 += x & 31;
            d0 += 1 + (x >>> 5);
            x = pair[(int) ((c1 << u1) >>> shift) & CELL_MASK];
            u1 += x & 31;
            d1 += 1 + (x >>> 5);
            x = pair[(int) ((c2 << u2) >>> shift) & CELL_MASK];
            u2 += x & 31;
            d2 += 1 + (x >>> 5);
            x = pair[(int) ((c3 << u3) >>> shift) & CELL_MASK];
            u3 += x & 31;
            d3 += 1 + (x >>> 5);
            x = pair[(int) ((c0 << u0) >>> shift) & CELL_MASK];
            u0 += x & 31;
            d0 += 1 + (x >>> 5);
            x = pair[(int) ((c1 << u1) >>> shift) & CELL_MASK];
            u1 += x & 31;
            d1 += 1 + (x >>> 5);
            x = pair[(int) ((c2 << u2) >>> shift) & CELL_MASK];
            u2 += x & 31;
            d2 += 1 + (x >>> 5);
            x = pair[(int) ((c3 << u3) >>> shift) & CELL_MASK];
            u3 += x & 31;
            d3 += 1 + (x >>> 5);
            x = pair[(int) ((c0 << u0) >>> shift) & CELL_MASK];
            u0 += x & 31;
            d0 += 1 + (x >>> 5);
            x = pair[(int) ((c1 << u1) >>> shift) & CELL_MASK];
            u1 += x & 31;
            d1 += 1 + (x >>> 5);
            x = pair[(int) ((c2 << u2) >>> shift) & CELL_MASK];
            u2 += x & 31;
            d2 += 1 + (x >>> 5);
            x = pair[(int) ((c3 << u3) >>> shift) & CELL_MASK];
            u3 += x & 31;
            d3 += 1 + (x >>> 5);
            x = pair[(int) ((c0 << u0) >>> shift) & CELL_MASK];
            u0 += x & 31;
            d0 += 1 + (x >>> 5);
            x = pair[(int) ((c1 << u1) >>> shift) & CELL_MASK];
            u1 += x & 31;
            d1 += 1 + (x >>> 5);
            x = pair[(int) ((c2 << u2) >>> shift) & CELL_MASK];
            u2 += x & 31;
            d2 += 1 + (x >>> 5);
            x = pair[(int) ((c3 << u3) >>> shift) & CELL_MASK];
            u3 += x & 31;
            d3 += 1 + (x >>> 5);
            p0 -= u0 >>> 3;
            u0 &= 7;
            c0 = (long) LE_LONG_ARRAY.get(buf, p0);
            p1 -= u1 >>> 3;
            u1 &= 7;
            c1 = (long) LE_LONG_ARRAY.get(buf, p1);
            p2 -= u2 >>> 3;
            u2 &= 7;
            c2 = (long) LE_LONG_ARRAY.get(buf, p2);
            p3 -= u3 >>> 3;
            u3 &= 7;
            c3 = (long) LE_LONG_ARRAY.get(buf, p3);
        }
        long[] done = {d0, d1, d2, d3};
        ptr[0] = p0; ptr[1] = p1; ptr[2] = p2; ptr[3] = p3;
        used[0] = u0; used[1] = u1; used[2] = u2; used[3] = u3;
        c[0] = c0; c[1] = c1; c[2] = c2; c[3] = c3;
        for (int k = 0; k < 4; k++) {
            long count = k < 3 ? seg : lastCount;
            long pos = run(buf, nb, shift, lo[k], ptr[k], used[k], c[k], count - done[k]);
            String bad = verdict(pos, k, count);
            if (bad != null) {
                return bad;
            }
        }
        return null;
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
        int[] weights = new int[256];
        int nw = 0;
        long used;
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
            used = 1 + bytes;
        } else {
            nw = fseWeights(in, p + 1, hb, avail - 1, weights);
            if (nw < 0) {
                return -1;
            }
            used = 1 + hb;
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
        // cells in order of increasing weight, symbols in natural order within a weight (RFC 8878 4.2.1.3)
        int[] start = new int[MAX_BITS + 2];
        for (int s = 0; s < nsyms; s++) {
            start[weights[s]]++;
        }
        int acc = 0;
        for (int w = 1; w <= MAX_BITS; w++) {
            int cells = start[w] << (w - 1);
            start[w] = acc;
            acc += cells;
        }
        if (acc != 1 << mb) {
            return -1;
        }
        for (int s = 0; s < nsyms; s++) {
            int w = weights[s];
            if (w == 0) {
                continue;
            }
            int cells = 1 << (w - 1);
            for (int c = 0; c < cells; c++) {
                t.nb[start[w] + c] = (byte) (mb + 1 - w);
            }
            start[w] += cells;
        }
        // The cells are in order of increasing weight, so code lengths never grow along them: the
        // next code is known whole when the first and last cell its known bits allow agree.
        int size = 1 << mb;
        for (int idx = 0; idx < size; idx++) {
            int first = t.nb[idx];
            int entry = first;
            int known = mb - first;
            if (known > 0) {
                int lo = (idx << first) & (size - 1);
                int second = t.nb[lo];
                if (second == t.nb[lo + (1 << first) - 1] && second <= known) {
                    entry = (first + second) | 32;
                }
            }
            t.pair[idx] = (byte) entry;
        }
        t.bits = mb;
        t.valid = true;
        return used;
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
}
