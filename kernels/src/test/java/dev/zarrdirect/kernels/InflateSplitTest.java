// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.zip.Deflater;

import static dev.zarrdirect.kernels.InflateTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * inflate/zd_inflate_split.h on the host build, driven by {@link HostInflateSplit} as the backends
 * drive it (an InflateSplitPlan's records and rounds, find on one item a group): streams written by
 * java.util.zip decode split to their exact bytes, in many segments where the data has dynamic or
 * stored blocks; segments that run out of cells are decoded
 * again; and on damaged streams the split path never accepts what the serial decoder would not:
 * where it says OK, the serial decoder says OK with the same bytes.
 */
class InflateSplitTest {

    private static final int SERIAL = ZdStatusCodes.INFLATE_SPLIT_SERIAL;

    record Split(int status, byte[] out, int chain, int mid, int retried, long[] lengths) {}

    static Split split(byte[] stream, int dstLen, int format, long range, long cells, int localSize) {
        return split(stream, dstLen, format, range, cells, localSize, segs -> { });
    }

    static Split split(byte[] stream, int dstLen, int format, long range, long cells, int localSize,
                       java.util.function.Consumer<MemorySegment> afterSync) {
        HostInflateSplit.Result r = HostInflateSplit.decode(stream, dstLen, format, range, cells, localSize,
                InflateSplitPlan.syncs(range), afterSync);
        return new Split(r.status(), r.out(), r.chain(), r.mid(), r.retried(), r.lengths());
    }

    /** Bytes of 16 values at random. */
    static byte[] nibbles(int n, Random r) {
        byte[] d = new byte[n];
        for (int i = 0; i < n; i++) {
            d[i] = (byte) r.nextInt(16);
        }
        return d;
    }

    /** Float words of a smooth field with noisy low bits, as ERA5-like chunks are; zeros in [z0, z1) of the words. */
    static byte[] field(int n, Random r, int z0, int z1) {
        MemorySegment s = MemorySegment.ofArray(new byte[n]);
        for (int i = 0; i < n / 4; i++) {
            int w = Float.floatToRawIntBits(280f + (float) Math.sin(i / 2000.0) * 20f) ^ r.nextInt(1 << 12);
            s.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, i >= z0 && i < z1 ? 0 : w);
        }
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    static long cells(long range, long encoded, long decoded) {
        return Math.min(decoded, (long) Math.ceil(2.0 * range * decoded / encoded) + 32768);
    }

    /**
     * The find's first test of a bit position, as RFC 1951 3.2.7 reads a header: BTYPE 2, HLIT and
     * HDIST at most 29, and HCLEN + 4 code length code lengths (three bits each, from bit 17) whose
     * Kraft sum is exactly one (here in 128ths).
     */
    static int quickReference(long v, long hi) {
        if (((v >>> 1) & 3) != 2 || ((v >>> 3) & 31) > 29 || ((v >>> 8) & 31) > 29) {
            return 0;
        }
        int hclen = (int) ((v >>> 13) & 15) + 4, kraft = 0;
        for (int i = 0; i < hclen; i++) {
            int at = 17 + 3 * i;
            long bits = at < 64 ? (v >>> at) | (at > 61 ? hi << (64 - at) : 0) : hi >>> (at - 64);
            int len = (int) (bits & 7);
            kraft += len == 0 ? 0 : 128 >> len;
        }
        return kraft == 128 ? 1 : 0;
    }

    @Test
    void theFindsFirstTestAgreesWithTheHeaderRulesOnRandomAndCompleteCodes() {
        Random r = new Random(SEED + 6);
        int passed = 0;
        for (int i = 0; i < 200_000; i++) {
            long v = r.nextLong(), hi = r.nextLong();
            if (i % 2 == 1) { // BTYPE 2 and HLIT, HDIST in range: the Kraft test decides
                v = (v & ~(0x3FFL << 1)) | (2L << 1) | ((long) r.nextInt(30) << 3) | ((long) r.nextInt(30) << 8);
            }
            if (i % 3 == 0) { // a complete code length code among zeros: lengths {1, 1}, {1, 2, 2}, or {2, 2, 2, 3, 3}
                int hclen = (int) ((v >>> 13) & 15) + 4;
                int[][] sets = {{1, 1}, {1, 2, 2}, {2, 2, 2, 3, 3}};
                int[] set = sets[r.nextInt(sets.length)];
                long fields = 0;
                java.util.List<Integer> at = new java.util.ArrayList<>();
                for (int k = 0; k < hclen; k++) {
                    at.add(k);
                }
                java.util.Collections.shuffle(at, r);
                for (int k = 0; k < set.length && k < hclen; k++) {
                    fields |= (long) set[k] << (3 * at.get(k));
                }
                if (r.nextBoolean() && hclen < 19) { // a length past HCLEN must not count
                    fields |= (long) (1 + r.nextInt(7)) << (3 * (hclen + r.nextInt(19 - hclen)));
                }
                v = (v & ((1L << 17) - 1)) | (fields << 17);
                hi = (hi & ~((1L << 10) - 1)) | (fields >>> 47);
            }
            int want = quickReference(v, hi);
            passed += want;
            assertEquals(want, HostKernels.get().infsQuick(v, hi),
                    String.format("v %016x hi %016x", v, hi));
        }
        assertTrue(passed > 10_000, passed + " headers passed");
    }

    @Test
    void everyFormatAndLevelDecodesSplitToTheWrittenBytes() {
        Random r = new Random(SEED);
        int n = 256 << 10;
        for (int format : new int[]{RAW, ZLIB, GZIP}) {
            for (int level : new int[]{1, 6, 9}) {
                byte[] d = field(n, r, -1, -1);
                byte[] s = encode(format, d, level, Deflater.DEFAULT_STRATEGY);
                long range = 4 << 10;
                Split x = split(s, n, format, range, cells(range, s.length, n), 2);
                String what = FORMATS[format] + " level " + level;
                assertEquals(ZdStatusCodes.OK, x.status(), what);
                assertArrayEquals(d, x.out(), what);
                assertTrue(x.chain() > 4, what + ": the stream should split into many segments, not " + x.chain());
            }
        }
    }

    @Test
    void storedBlocksStartSegmentsAndOtherStreamsDecodeWhole() {
        Random r = new Random(SEED + 1);
        for (String kind : new String[]{"random", "zeros", "far"}) {
            for (int level : new int[]{0, 1}) {
                byte[] d = data(kind, 300_000, r);
                byte[] s = encode(ZLIB, d, level, Deflater.DEFAULT_STRATEGY);
                Split x = split(s, d.length, ZLIB, 8192, cells(8192, s.length, d.length), 2);
                String what = kind + " level " + level;
                assertEquals(ZdStatusCodes.OK, x.status(), what);
                assertArrayEquals(d, x.out(), what);
                if (kind.equals("random")) {
                    // nothing but stored blocks (zlib cuts them every 16 or 64 KiB): each a start
                    assertTrue(x.chain() >= 4, what + ": stored blocks should start segments, chain " + x.chain());
                }
            }
        }
        byte[] tiny = encode(GZIP, "hello, hello, hello".getBytes(), 6, Deflater.DEFAULT_STRATEGY);
        Split x = split(tiny, 19, GZIP, 4, 64, 1);
        assertEquals(ZdStatusCodes.OK, x.status());
        assertEquals("hello, hello, hello", new String(x.out()));
    }

    /** The bytes of int16 values shuffled into two planes: smooth high bytes, then noise. */
    static byte[] shuffledInt16(int n, Random r) {
        byte[] d = new byte[n];
        for (int i = 0; i < n / 2; i++) {
            int v = (int) (8000 * Math.sin(i / 3000.0)) + r.nextInt(256);
            d[i] = (byte) (v >> 8);
            d[n / 2 + i] = (byte) v;
        }
        return d;
    }

    @Test
    void aStreamHalfDynamicHalfStoredSplitsInBothHalves() {
        Random r = new Random(SEED + 4);
        int n = 1 << 20;
        for (int format : new int[]{ZLIB, GZIP}) {
            byte[] d = shuffledInt16(n, r);
            byte[] s = encode(format, d, 1, Deflater.DEFAULT_STRATEGY);
            long range = 8 << 10;
            Split x = split(s, n, format, range, cells(range, s.length, n), 2);
            assertEquals(ZdStatusCodes.OK, x.status(), FORMATS[format]);
            assertArrayEquals(d, x.out(), FORMATS[format]);
            // the noise plane alone is 512 KiB of stored blocks
            assertTrue(x.chain() > 8 + 12, FORMATS[format] + ": both halves should split, chain " + x.chain());
        }
    }

    /** Deflate bits, first bit lowest, as RFC 1951 packs them. */
    static final class Bits {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int acc, n;

        void put(int v, int bits) {
            for (int i = 0; i < bits; i++) {
                acc |= ((v >> i) & 1) << n;
                if (++n == 8) {
                    out.write(acc);
                    acc = 0;
                    n = 0;
                }
            }
        }

        /** A Huffman code: its bits go most significant first. */
        void code(int c, int bits) {
            for (int i = bits - 1; i >= 0; i--) put((c >> i) & 1, 1);
        }

        void fixedBlock(byte[] lits) {
            put(0, 1);
            put(1, 2);
            for (byte b : lits) {
                int v = b & 0xFF; // literals 0..143 are 8-bit codes from 0x30, 144..255 9-bit ones from 0x190
                if (v < 144) code(0x30 + v, 8);
                else code(0x190 + v - 144, 9);
            }
            code(0, 7);                             // end of block: seven zero bits
        }

        void storedBlock(byte[] data, boolean last) {
            put(last ? 1 : 0, 1);
            put(0, 2);
            if (n > 0) put(0, 8 - n);
            put(data.length, 16);
            put(~data.length & 0xFFFF, 16);
            for (byte b : data) put(b & 0xFF, 8);
        }
    }

    @Test
    void aStoredStartAfterZeroBitsMeetsTheSegmentBeforeAnywhereInThem() {
        // A fixed block ends in seven zero bits (its end-of-block code), so the stored block after
        // it starts somewhere in a run of zeros that the find cannot place exactly; the segment
        // before must be taken as meeting it wherever in the run it stopped.
        Random r = new Random(SEED + 5);
        Bits b = new Bits();
        java.io.ByteArrayOutputStream want = new java.io.ByteArrayOutputStream();
        int triples = 24;
        for (int t = 0; t < triples; t++) {
            byte[] lits = new byte[1 + r.nextInt(40)];
            for (int i = 0; i < lits.length; i++) lits[i] = (byte) ('a' + r.nextInt(26));
            if (t % 2 == 1) {
                // three 9-bit literals: the block then ends 5 bits into a byte, the stored header
                // fills it, no padding: the end-of-block code's first bit is the run's first
                lits = java.util.Arrays.copyOf(lits, lits.length + 3);
                java.util.Arrays.fill(lits, lits.length - 3, lits.length, (byte) 200);
            }
            b.fixedBlock(lits);
            want.writeBytes(lits);
            for (int k = 0; k < 2; k++) {
                byte[] raw = new byte[2000 + r.nextInt(3000)];
                r.nextBytes(raw);
                b.storedBlock(raw, false);
                want.writeBytes(raw);
            }
        }
        b.fixedBlock("end".getBytes());
        want.writeBytes("end".getBytes());
        byte[] tail = new byte[1500];
        r.nextBytes(tail);
        b.storedBlock(tail, true);
        want.writeBytes(tail);
        if (b.n > 0) b.put(0, 8 - b.n);
        byte[] s = b.out.toByteArray();
        byte[] d = want.toByteArray();
        assertArrayEquals(d, InflateTestSupport.reference(s, d.length, RAW), "the hand-written stream is valid deflate");
        Split x = split(s, d.length, RAW, 1024, cells(1024, s.length, d.length), 2);
        assertEquals(ZdStatusCodes.OK, x.status());
        assertArrayEquals(d, x.out());
        // every triple's first stored block (followed by a stored one) is a start, and the final one
        assertTrue(x.chain() >= triples, "chain " + x.chain());
        // met where they stopped, at the block boundary: a decoder that stopped at the end-of-block
        // code's start (a symbol in the run) would have each of them decoded again
        assertEquals(0, x.retried(), "segments decoded again");
    }

    /** Raw deflate of {@code d}, left open (no final block) and byte-aligned by a sync flush: another part may follow. */
    static byte[] openRawPart(byte[] d, int level) {
        Deflater z = new Deflater(level, true);
        try {
            z.setInput(d);
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[1 << 16];
            int k;
            do {
                k = z.deflate(buf, 0, buf.length, Deflater.SYNC_FLUSH);
                out.write(buf, 0, k);
            } while (k == buf.length);
            return out.toByteArray();
        } finally {
            z.end();
        }
    }

    @Test
    void aFalseStartInsideAStoredBlockIsMendedAndTheStreamVerifies() {
        // a stored block carries the first bytes of another deflate stream, a dynamic block header
        // that passes every check of the find; a range starts on it, so the find takes it for a
        // block start. The segment before runs through the stored block and stops past it: the plan
        // (the backends' rule) starts the false segment again where that one stopped
        Random r = new Random(SEED + 7);
        byte[] a = data("text", 40_000, r), b = data("text", 20_000, r), c = data("text", 40_000, r);
        byte[] part1 = openRawPart(a, 6), fake = deflate(b, 9, Deflater.DEFAULT_STRATEGY, true);
        byte[] part3 = deflate(c, 6, Deflater.DEFAULT_STRATEGY, true);
        assertEquals(2, (fake[0] >> 1) & 3, "the fake bytes start with a dynamic block");
        int range = 4096;
        int off = Math.floorMod(-(part1.length + 5), range); // the fake header at a range's first byte
        byte[] payload = new byte[off + 600 + 3 * range];
        System.arraycopy(fake, 0, payload, off, 600);
        Bits stored = new Bits(); // part1 ends on a byte boundary: the block's bits start at bit 0
        stored.storedBlock(payload, false);
        java.io.ByteArrayOutputStream st = new java.io.ByteArrayOutputStream();
        st.writeBytes(part1);
        st.writeBytes(stored.out.toByteArray());
        st.writeBytes(part3);
        byte[] s = st.toByteArray();
        java.io.ByteArrayOutputStream want = new java.io.ByteArrayOutputStream();
        want.writeBytes(a);
        want.writeBytes(payload);
        want.writeBytes(c);
        byte[] d = want.toByteArray();
        assertArrayEquals(d, InflateTestSupport.reference(s, d.length, RAW), "the hand-made stream is valid deflate");
        Split x = split(s, d.length, RAW, range, cells(range, s.length, d.length), 2);
        assertEquals(ZdStatusCodes.OK, x.status());
        assertArrayEquals(d, x.out());
        assertTrue(x.retried() >= 1, "the false start should have been decoded again: " + x.retried());
    }

    @Test
    void rangesInsideABlockStartAtTheFirstSymbolPastTheirStart() {
        Random r = new Random(SEED + 5);
        int n = 512 << 10;
        for (int format : new int[]{RAW, ZLIB, GZIP}) {
            for (int level : new int[]{0, 1, 6, 9}) {
                // level 0 here: Huffman codes alone over 16 byte values, literals of 4-bit codes only,
                // which a decoder reads two at a lookup: one that did so across a stop would step over it
                byte[] d = level > 0 ? field(n, r, -1, -1) : nibbles(n, r);
                byte[] s = encode(format, d, Math.max(1, level), level == 0 ? Deflater.HUFFMAN_ONLY : Deflater.DEFAULT_STRATEGY);
                long range = 2 << 10;
                Split x = split(s, n, format, range, cells(range, s.length, n), 2);
                String what = FORMATS[format] + (level == 0 ? " Huffman only" : " level " + level);
                assertEquals(ZdStatusCodes.OK, x.status(), what);
                assertArrayEquals(d, x.out(), what);
                long ranges = InflateSplitPlan.ranges(s.length, range);
                if (level > 0) {
                    // without starts inside blocks, about one segment a block (some 14 KB encoded)
                    assertTrue(x.chain() >= ranges * 9 / 10, what + ": " + x.chain() + " segments of " + ranges + " ranges");
                    assertTrue(x.mid() > ranges / 2, what + ": " + x.mid() + " started inside a block");
                    // each segment stopped exactly at the symbol the next one's sync found: no mending
                    assertEquals(0, x.retried(), what);
                } else {
                    // codes of nearly one length fall into step slowly: fewer starts, and the odd
                    // chance agreement of both sync decoders on a wrong bit, mended (a decoder that
                    // read two literals across its stop mended 35 here)
                    assertTrue(x.chain() > ranges / 2, what + ": " + x.chain() + " segments of " + ranges + " ranges");
                    assertTrue(x.retried() <= 3, what + ": " + x.retried() + " segments decoded again");
                }
            }
        }
    }

    @Test
    void aWrongStartInsideABlockIsMendedFromWhereTheSegmentBeforeStopped() {
        Random r = new Random(SEED + 6);
        int n = 256 << 10;
        byte[] d = field(n, r, -1, -1);
        byte[] s = encode(ZLIB, d, 6, Deflater.DEFAULT_STRATEGY);
        long range = 2 << 10;
        long seg = KernelContract.ZD_INFS_SEG_BYTES;
        // the first start the sync found inside a block moved one bit on, or read with the tables
        // of a header one bit off, or both
        for (int damage = 1; damage <= 3; damage++) {
            int dmg = damage;
            long[] damaged = {-1};
            Split x = split(s, n, ZLIB, range, cells(range, s.length, n), 2, segs -> {
                for (int k = 0; k < InflateSplitPlan.ranges(s.length, range); k++) {
                    long rec = seg * k;
                    if ((segs.get(ValueLayout.JAVA_INT, rec + KernelContract.ZD_INFS_SEG_FLAGS_AT) & KernelContract.ZD_INFS_F_MID) != 0) {
                        if ((dmg & 1) != 0) {
                            segs.set(ValueLayout.JAVA_LONG, rec + KernelContract.ZD_INFS_SEG_START_AT,
                                    segs.get(ValueLayout.JAVA_LONG, rec + KernelContract.ZD_INFS_SEG_START_AT) + 1);
                        }
                        if ((dmg & 2) != 0) {
                            segs.set(ValueLayout.JAVA_LONG, rec + KernelContract.ZD_INFS_SEG_TABLES_AT,
                                    segs.get(ValueLayout.JAVA_LONG, rec + KernelContract.ZD_INFS_SEG_TABLES_AT) + 1);
                        }
                        damaged[0] = k;
                        break;
                    }
                }
            });
            String what = "damage " + damage + " at range " + damaged[0];
            assertTrue(damaged[0] > 0, "the sync should have found a start inside a block");
            assertEquals(ZdStatusCodes.OK, x.status(), what);
            assertArrayEquals(d, x.out(), what);
            assertTrue(x.retried() > 0, what + ": the damaged segment should have been decoded again");
        }
    }

    @Test
    void segmentsThatRunOutOfCellsAreDecodedAgain() {
        Random r = new Random(SEED + 2);
        int n = 1 << 20;
        byte[] d = field(n, r, n / 16, n / 8); // 256 KiB of zeros: a segment there decodes to far more than its share
        byte[] s = encode(ZLIB, d, 6, Deflater.DEFAULT_STRATEGY);
        long range = 16 << 10;
        Split x = split(s, n, ZLIB, range, cells(range, s.length, n), 2);
        assertEquals(ZdStatusCodes.OK, x.status());
        assertArrayEquals(d, x.out());
        assertTrue(x.retried() > 0, "the zeros should have overflowed a segment's cells");
        Split tight = split(s, n, ZLIB, range, 1000, 2); // every segment runs out
        assertEquals(ZdStatusCodes.OK, tight.status());
        assertArrayEquals(d, tight.out());
        // a segment that stops soon after its start (before a range that starts inside its block) fits
        assertEquals(java.util.Arrays.stream(tight.lengths()).filter(len -> len > 1000).count(), tight.retried(),
                "every segment of the chain with more bytes than its cells was decoded again");
        assertTrue(tight.retried() > tight.chain() / 2, tight.retried() + " of " + tight.chain());
    }

    @Test
    void onDamagedStreamsTheSplitPathOnlyAcceptsWhatTheSerialDecoderAccepts() {
        Random r = new Random(SEED + 3);
        int n = 100_000;
        int accepted = 0, serial = 0;
        for (int variant = 0; variant < 6; variant++) {
            int format = variant % 3;
            // a field in dynamic blocks, or shuffled int16 whose noise plane is stored blocks
            byte[] d = variant < 3 ? field(n, r, n / 20, n / 10) : shuffledInt16(n, r);
            byte[] clean = encode(format, d, variant < 3 ? 6 : 1, Deflater.DEFAULT_STRATEGY);
            for (int t = 0; t < 8; t++) {
                byte[] s = clean.clone();
                int bit = r.nextInt(8 * s.length);
                s[bit >> 3] ^= (byte) (1 << (bit & 7));
                if (t % 4 == 0) {
                    s = java.util.Arrays.copyOf(s, r.nextInt(s.length)); // truncated too
                }
                Split x = split(s, n, format, 4096, cells(4096, clean.length, n), 2);
                Decoded ref = InflateTestSupport.decode(s, n, format, 2);
                String what = FORMATS[format] + " bit " + bit + " length " + s.length;
                if (x.status() == ZdStatusCodes.OK) {
                    accepted++;
                    assertEquals(ZdStatusCodes.OK, ref.status(), what + ": split accepted what the serial decoder rejects");
                    assertArrayEquals(ref.out(), x.out(), what);
                } else {
                    serial++;
                    assertEquals(SERIAL, x.status(), what);
                }
            }
        }
        assertTrue(serial > 0, "damage should have sent some streams to the serial decoder");
        assertEquals(48, accepted + serial);
    }
}
