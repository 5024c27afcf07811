// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.BloscTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Blosc frames built by hand around LZ4 and BloscLZ streams written byte by byte: the format's
 * corners (long lengths, overlapping matches, far BloscLZ distances) decode, and each reject
 * condition gives its status, with the cooperative decoder (groups of 1, 4, 32) and the serial one.
 */
class BloscHandBuiltFramesTest {
    static final int BLOSCLZ = 0, LZ4 = 1;
    static final int[][] SCHEDULES = {{1, 1, 0}, {2, 4, 0}, {3, 32, 0}, {2, 3, LZ_THREAD}, {2, 4, LZ_RESOLVE},
        {4, 5, 0}, {3, 5, 0}, {2, 40, LZ_OVERLAP}, {1, 64, LZ_OVERLAP}, {2, 4, LZ_OVERLAP}};

    /** One block of one stream ("don't split"), typesize 1, no shuffle. A stream as long as nbytes is a raw one. */
    static byte[] frame(int codec, int nbytes, byte[] stream) {
        ByteBuffer b = ByteBuffer.allocate(16 + 4 + 4 + stream.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 2).put((byte) 1).put((byte) (codec << 5 | 0x10)).put((byte) 1);
        b.putInt(nbytes).putInt(Math.max(1, nbytes)).putInt(16 + 4 + 4 + stream.length);
        b.putInt(20).putInt(stream.length).put(stream);
        return b.array();
    }

    static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) b[i] = (byte) v[i];
        return b;
    }

    static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) o.writeBytes(p);
        return o.toByteArray();
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Decodes under every schedule; all must agree on the status (and on the bytes when 0). */
    static Batch decodeAll(byte[] frame, int nbytes) {
        Batch first = null;
        for (int[] s : SCHEDULES) {
            Batch b = decode(List.of(frame), new int[] {nbytes}, s[0], s[1], scratchPerGroup(4096, s[2]), s[2]);
            assertTrue(b.guardsIntact(), "guards, schedule " + Arrays.toString(s));
            if (first == null) first = b;
            assertEquals(first.status()[0], b.status()[0], "schedule " + Arrays.toString(s));
            if (b.status()[0] == 0) assertArrayEquals(first.out()[0], b.out()[0], "schedule " + Arrays.toString(s));
        }
        return first;
    }

    static void expectBytes(int codec, byte[] stream, byte[] want) {
        Batch b = decodeAll(frame(codec, want.length, stream), want.length);
        assertEquals(0, b.status()[0]);
        assertArrayEquals(want, b.out()[0]);
    }

    static void expectStatus(int codec, byte[] stream, int nbytes, int status) {
        assertEquals(status, decodeAll(frame(codec, nbytes, stream), nbytes).status()[0]);
    }

    // ------------------------------------------------------------------ LZ4

    @Test
    void lz4LiteralsOnly() {
        expectBytes(LZ4, cat(bytes(0x50), ascii("hello")), ascii("hello"));
    }

    @Test
    void lz4OverlappingMatchRepeatsItsPattern() {
        // "ab", match offset 2 length 6, then the last literal "x"
        expectBytes(LZ4, cat(bytes(0x22), ascii("ab"), bytes(2, 0), bytes(0x10), ascii("x")), ascii("ababababx"));
    }

    @Test
    void lz4LongLiteralAndMatchLengths() {
        byte[] lit = new byte[15 + 255 + 10];
        for (int i = 0; i < lit.length; i++) lit[i] = (byte) (i * 7);
        byte[] want = new byte[lit.length + 274 + 1];
        System.arraycopy(lit, 0, want, 0, lit.length);
        Arrays.fill(want, lit.length, lit.length + 274, lit[lit.length - 1]);
        want[want.length - 1] = 'q';
        // literal length 15 + 255 + 10; match offset 1, length 4 + 15 + 255 + 0; then "q"
        expectBytes(LZ4, cat(bytes(0xFF, 255, 10), lit, bytes(1, 0, 255, 0), bytes(0x10), ascii("q")), want);
    }

    @Test
    void lz4MatchOffsetZeroIsRejected() {
        expectStatus(LZ4, cat(bytes(0x20), ascii("ab"), bytes(0, 0), bytes(0x10), ascii("x")), 9,
                ZdStatusCodes.OFFSET_BEFORE_START);
    }

    @Test
    void lz4MatchBeforeTheBlockStartIsRejected() {
        expectStatus(LZ4, cat(bytes(0x20), ascii("ab"), bytes(3, 0), bytes(0x10), ascii("x")), 9,
                ZdStatusCodes.OFFSET_BEFORE_START);
    }

    @Test
    void lz4StreamEndingWithAMatchHasNoLastLiterals() {
        expectStatus(LZ4, cat(bytes(0x22), ascii("ab"), bytes(2, 0)), 8, ZdStatusCodes.TRUNCATED);
    }

    @Test
    void lz4OutputMustBeExact() {
        byte[] s = cat(bytes(0x50), ascii("hello"));
        expectStatus(LZ4, s, 7, ZdStatusCodes.OUTPUT_UNDERFLOW); // (6 would make the 6-byte stream a raw one)
        expectStatus(LZ4, s, 4, ZdStatusCodes.OUTPUT_OVERFLOW);
        expectStatus(LZ4, cat(bytes(0x22), ascii("ab"), bytes(2, 0), bytes(0x10), ascii("x")), 8,
                ZdStatusCodes.OUTPUT_OVERFLOW);
    }

    @Test
    void lz4TruncatedLengthExtensionAndOffset() {
        expectStatus(LZ4, bytes(0xF0, 255), 300, ZdStatusCodes.TRUNCATED);
        expectStatus(LZ4, cat(bytes(0x20), ascii("ab"), bytes(2)), 9, ZdStatusCodes.TRUNCATED);
        expectStatus(LZ4, cat(bytes(0x60), ascii("hello")), 7, ZdStatusCodes.TRUNCATED);
    }

    // ------------------------------------------------------------------ BloscLZ

    @Test
    void blosclzFirstControlByteCountsOnlyItsLowBits() {
        expectBytes(BLOSCLZ, cat(bytes(0xE4), ascii("hello")), ascii("hello"));
    }

    @Test
    void blosclzOverlappingMatch() {
        // "ab"; match code 3 (length 6) distance 2; literal "x"
        expectBytes(BLOSCLZ, cat(bytes(1), ascii("ab"), bytes(0x80, 1), bytes(0), ascii("x")), ascii("ababababx"));
    }

    @Test
    void blosclzExtendedLengthAndFarDistance() {
        byte[] lit = new byte[9000];
        for (int i = 0; i < lit.length; i++) lit[i] = (byte) (i * 13 + (i >> 8));
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        for (int i = 0; i < lit.length; i += 32) {
            int run = Math.min(32, lit.length - i);
            s.write(run - 1);
            s.write(lit, i, run);
        }
        // match code 6 + 255 + 4 (length 268), hi 31 lo 255: distance 8192 + far 0x0010
        s.writeBytes(bytes(0xFF, 255, 4, 255, 0x00, 0x10));
        s.writeBytes(bytes(0, 'z'));
        int distance = 8192 + 16, length = 6 + 255 + 4 + 3;
        byte[] want = Arrays.copyOf(lit, lit.length + length + 1);
        for (int i = 0; i < length; i++) want[lit.length + i] = want[lit.length + i - distance];
        want[want.length - 1] = 'z';
        expectBytes(BLOSCLZ, s.toByteArray(), want);
    }

    @Test
    void blosclzRejects() {
        expectStatus(BLOSCLZ, cat(bytes(1), ascii("ab"), bytes(0x80, 1)), 8, ZdStatusCodes.BLOSCLZ);
        expectStatus(BLOSCLZ, cat(bytes(1), ascii("ab"), bytes(0x80, 2), bytes(0), ascii("x")), 9,
                ZdStatusCodes.OFFSET_BEFORE_START);
        expectStatus(BLOSCLZ, cat(bytes(1), ascii("ab"), bytes(0x80, 1), bytes(0), ascii("x")), 8,
                ZdStatusCodes.OUTPUT_OVERFLOW);
        expectStatus(BLOSCLZ, cat(bytes(4), ascii("hello")), 7, ZdStatusCodes.OUTPUT_UNDERFLOW);
        expectStatus(BLOSCLZ, cat(bytes(5), ascii("hello")), 7, ZdStatusCodes.TRUNCATED);
        expectStatus(BLOSCLZ, cat(bytes(1), ascii("ab"), bytes(0xE0, 255)), 300, ZdStatusCodes.TRUNCATED);
    }

    // ------------------------------------------------------------------ frame structure

    @ParameterizedTest
    @ValueSource(ints = {0, -5, 1 << 20})
    void streamSizeNotPositiveOrPastCbytesIsRejected(int csize) {
        byte[] f = frame(LZ4, 5, cat(bytes(0x50), ascii("hello")));
        ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putInt(20, csize);
        assertEquals(ZdStatusCodes.BLOSC_STREAM_SIZE, decodeAll(f, 5).status()[0]);
    }

    @Test
    void splitsThatDoNotDivideTheBlockAreRejected() {
        // typesize 3, blocksize 1000: 3 streams of a 1000-byte block
        ByteBuffer b = ByteBuffer.allocate(16 + 4 + 4 + 1000).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 2).put((byte) 1).put((byte) (LZ4 << 5)).put((byte) 3);
        b.putInt(1000).putInt(1000).putInt(16 + 4 + 4 + 1000).putInt(20).putInt(1000);
        assertEquals(ZdStatusCodes.BLOSC_STREAM_SIZE, decodeAll(b.array(), 1000).status()[0]);
    }

    @Test
    void rawStreamIsCopied() {
        byte[] f = frame(LZ4, 5, ascii("hello")); // csize == decoded size: stored raw
        Batch b = decodeAll(f, 5);
        assertEquals(0, b.status()[0]);
        assertArrayEquals(ascii("hello"), b.out()[0]);
    }

    /**
     * Byte unshuffle on its own: one raw, unsplit, byte-shuffled block per frame, of type sizes with
     * and without the 4 x 4 word transpose (multiples of 4), element counts of every residue mod 4
     * (the transpose needs a multiple of 4) and trailing bytes past the last whole element; the
     * frames share a batch, so their outputs start at differing alignments.
     */
    @Test
    void byteUnshuffleOfEveryTypeSizeAndLength() {
        List<byte[]> frames = new java.util.ArrayList<>();
        List<byte[]> want = new java.util.ArrayList<>();
        java.util.Random r = new java.util.Random(24);
        for (int ts : new int[] {2, 3, 4, 8, 12, 16}) {
            for (int nElem : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 64, 257, 1024, 1027}) {
                for (int extra : new int[] {0, ts > 2 ? ts - 1 : 1}) {
                    int nbytes = nElem * ts + extra;
                    byte[] shuffled = new byte[nbytes];
                    r.nextBytes(shuffled);
                    byte[] plain = new byte[nbytes];
                    for (int j = 0; j < ts; j++) {
                        for (int e = 0; e < nElem; e++) plain[e * ts + j] = shuffled[j * nElem + e];
                    }
                    System.arraycopy(shuffled, nElem * ts, plain, nElem * ts, extra);
                    ByteBuffer b = ByteBuffer.allocate(16 + 4 + 4 + nbytes).order(ByteOrder.LITTLE_ENDIAN);
                    // version 2, byte shuffle, "don't split", lz4 (never run: the stream is raw)
                    b.put((byte) 2).put((byte) 1).put((byte) (LZ4 << 5 | 0x10 | 0x01)).put((byte) ts);
                    b.putInt(nbytes).putInt(nbytes).putInt(16 + 4 + 4 + nbytes);
                    b.putInt(20).putInt(nbytes).put(shuffled);
                    frames.add(b.array());
                    want.add(plain);
                }
            }
        }
        int[] lens = want.stream().mapToInt(w -> w.length).toArray();
        for (int[] s : new int[][] {{1, 1}, {3, 4}, {2, 32}}) {
            Batch b = decode(frames, lens, s[0], s[1], scratchPerGroup(1 << 16, 0), 0);
            assertTrue(b.guardsIntact(), "guards, schedule " + Arrays.toString(s));
            for (int i = 0; i < frames.size(); i++) {
                assertEquals(0, b.status()[i], "frame " + i);
                assertArrayEquals(want.get(i), b.out()[i], "frame " + i + ", type size " + frames.get(i)[3]);
            }
        }
    }
}
