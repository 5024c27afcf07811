// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import com.github.luben.zstd.Zstd;
import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.ZstdTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Frames assembled byte by byte: every header form and the block/literals/sequence modes zstd-jni rarely emits. */
class ZstdHandBuiltFramesTest {
    static final byte[] MAGIC = bytes(0x28, 0xB5, 0x2F, 0xFD);

    static byte[] blockHeader(boolean last, int type, int size) {
        int v = (last ? 1 : 0) | (type << 1) | (size << 3);
        return bytes(v & 255, (v >> 8) & 255, (v >> 16) & 255);
    }

    static byte[] raw(boolean last, byte[] content) {
        return concat(blockHeader(last, 0, content.length), content);
    }

    static byte[] rle(boolean last, int b, int n) {
        return concat(blockHeader(last, 1, n), bytes(b));
    }

    static byte[] compressed(boolean last, byte[] content) {
        return concat(blockHeader(last, 2, content.length), content);
    }

    /** Header with a window descriptor (window 1 MiB) and no content size. */
    static byte[] headerWindow() {
        return concat(MAGIC, bytes(0x00, (20 - 10) << 3));
    }

    static void assertDecodes(byte[] frame, byte[] expected, String what) {
        for (int ls : new int[] {1, 3}) {
            Decoded d = decode(frame, expected.length, ls);
            assertTrue(d.guardsIntact(), "guards " + what);
            assertEquals(0, d.status(), "status " + what + " local=" + ls);
            assertArrayEquals(expected, d.out(), what);
        }
        assertArrayEquals(expected, Zstd.decompress(frame, expected.length), "zstd-jni agrees on " + what);
    }

    static void assertStatus(byte[] frame, int dstLen, int expectedStatus, String what) {
        Decoded d = decode(frame, dstLen, 1);
        assertTrue(d.guardsIntact(), "guards " + what);
        assertEquals(expectedStatus, d.status(), what);
    }

    @Test
    void rawAndRleBlocks() {
        byte[] a = "hello, zarr".getBytes();
        byte[] expected = concat(a, new byte[] {7, 7, 7, 7, 7}, a);
        assertDecodes(concat(headerWindow(), raw(false, a), rle(false, 7, 5), raw(true, a)), expected, "raw+rle+raw");
        byte[] rleFirst = new byte[1000];
        Arrays.fill(rleFirst, (byte) 'z');
        assertDecodes(concat(headerWindow(), rle(true, 'z', 1000)), rleFirst, "single RLE block");
        assertDecodes(concat(headerWindow(), raw(true, new byte[0])), new byte[0], "empty raw block");
    }

    @Test
    void everyHeaderForm() {
        byte[] a = new byte[300];
        new Random(1).nextBytes(a);
        byte[] body = raw(true, a);
        // single segment, FCS 2 bytes (value - 256)
        assertDecodes(concat(MAGIC, bytes(0x60, 300 - 256, 0), body), a, "single segment FCS2");
        // FCS 4 bytes + window descriptor + dictionary id field present but 0 (1, 2, 4 bytes)
        assertDecodes(concat(MAGIC, bytes(0x81, 0x50, 0, 44, 1, 0, 0), body), a, "FCS4 DID1=0");
        assertDecodes(concat(MAGIC, bytes(0x82, 0x50, 0, 0, 44, 1, 0, 0), body), a, "FCS4 DID2=0");
        assertDecodes(concat(MAGIC, bytes(0xC3, 0x50, 0, 0, 0, 0, 44, 1, 0, 0, 0, 0, 0, 0), body), a, "FCS8 DID4=0");
        // single segment, FCS 1 byte
        byte[] s = Arrays.copyOf(a, 200);
        assertDecodes(concat(MAGIC, bytes(0x20, 200), raw(true, s)), s, "single segment FCS1");
    }

    @Test
    void compressedBlocksWithoutSequences() {
        byte[] hello = "hello".getBytes();
        // raw literals (1-byte header, size 5) and 0 sequences (1-byte form)
        byte[] lits = concat(bytes(5 << 3), hello, bytes(0));
        assertDecodes(concat(headerWindow(), compressed(true, lits)), hello, "raw literals, no sequences");
        // empty compressed block: no literals, no sequences; then a raw block
        assertDecodes(concat(headerWindow(), compressed(false, bytes(0, 0)), raw(true, hello)), hello, "empty compressed block");
        // zero sequences in the 2-byte form
        assertDecodes(concat(headerWindow(), compressed(true, concat(bytes(5 << 3), hello, bytes(0x80, 0)))), hello,
                "nseq=0 in 2-byte form");
        // RLE literals (2-byte header, 1000 x 'q') and no sequences
        byte[] q = new byte[1000];
        Arrays.fill(q, (byte) 'q');
        int v = 1 | (1 << 2) | (1000 << 4);
        assertDecodes(concat(headerWindow(), compressed(true, bytes(v & 255, v >> 8, 'q', 0))), q, "RLE literals");
        // raw literals with the 3-byte size header
        int w = (3 << 2) | (5 << 4);
        assertDecodes(concat(headerWindow(), compressed(true, concat(bytes(w & 255, (w >> 8) & 255, w >> 16), hello, bytes(0)))),
                hello, "raw literals, 3-byte header");
    }

    /** RLE mode for all three codes, so the sequence bitstream holds only extra bits. */
    static byte[] rleSequenceBlock(int ofCode, int ofBitsByte) {
        byte[] abcd = "abcd".getBytes();
        return compressed(true, concat(bytes(4 << 3), abcd, // raw literals "abcd"
                bytes(1, 0b01010100, 4, ofCode, 0), // 1 sequence; LL, OF, ML in RLE mode: LL code 4, OF code, ML code 0 (len 3)
                bytes(ofBitsByte)));
    }

    @Test
    void rleSequenceModesAndOffsets() {
        // OF code 2, extra bits 0b10 -> Offset_Value 6 -> offset 3; stream byte 0b110 (end mark at bit 2)
        assertDecodes(concat(headerWindow(), rleSequenceBlock(2, 0b110)), "abcdbcd".getBytes(), "RLE modes, offset 3");
        // repeat offset 1 (initial value 1) with LL != 0: OF code 0 reads no bit; stream byte 0x01
        assertDecodes(concat(headerWindow(), rleSequenceBlock(0, 0x01)), "abcdddd".getBytes(), "repeat offset 1");
        // OF code 5 with extra bits 0 -> offset 29 > 4 bytes of output
        assertStatus(concat(headerWindow(), rleSequenceBlock(5, 0x20)), 7, ZdStatusCodes.OFFSET_BEFORE_START, "offset before start");
        // Repeat mode in the first block: there is no table to repeat
        byte[] rep = compressed(true, concat(bytes(4 << 3), "abcd".getBytes(), bytes(1, 0xFC, 0x01)));
        assertStatus(concat(headerWindow(), rep), 7, ZdStatusCodes.FSE_TABLE, "repeat mode without table");
    }

    @Test
    void skippableAndConcatenatedFrames() {
        Random r = new Random(SEED);
        byte[] a = data("text", 70_000, r), b = data("floats", 50_000, r);
        byte[] fa = compress(a, 3, true, true, false), fb = compress(b, 19, false, false, false);
        byte[] skip = concat(bytes(0x53, 0x2A, 0x4D, 0x18, 5, 0, 0, 0), bytes(1, 2, 3, 4, 5));
        byte[] emptySkip = bytes(0x5F, 0x2A, 0x4D, 0x18, 0, 0, 0, 0);
        assertDecodes(concat(skip, fa, emptySkip, fb, skip), concat(a, b), "skippable + two frames");
        assertDecodes(concat(fa, fa), concat(a, a), "same frame twice");
        // an RLE first block spliced in front of zstd-jni's compressed blocks (no content size)
        byte[] fc = compress(b, 9, false, false, false);
        byte[] spliced = concat(headerWindow(), rle(false, 0x42, 4096), Arrays.copyOfRange(fc, firstBlock(fc, 0), fc.length));
        byte[] prefix = new byte[4096];
        Arrays.fill(prefix, (byte) 0x42);
        assertDecodes(spliced, concat(prefix, b), "RLE first block then compressed blocks");
    }

    @Test
    void exactly128KiBCompressedBlock() {
        // Find data on which zstd-jni emits one compressed block holding all 128 KiB.
        byte[] d = null, f = null;
        Random r = new Random(SEED);
        search:
        for (String kind : new String[] {"text", "pattern", "floats", "mixture", "binary"}) {
            for (int level : new int[] {19, 9, 3, 1}) {
                byte[] dd = data(kind, 128 * 1024, r);
                byte[] ff = compress(dd, level, true, true, false);
                int p = firstBlock(ff, 0);
                int bh = le(ff, p, 3);
                if ((bh & 1) == 1 && ((bh >> 1) & 3) == 2) {
                    d = dd;
                    f = ff;
                    break search;
                }
            }
        }
        assertNotNull(f, "no single 128 KiB compressed block found");
        Map<String, Integer> cov = new HashMap<>();
        tally(f, cov);
        assertEquals(1, cov.get("block.compressed"));
        assertDecodes(f, d, "128 KiB compressed block");
        // same block, declared output one byte short / long
        assertStatus(f, d.length - 1, ZdStatusCodes.OUTPUT_OVERFLOW, "dst one byte short");
        assertStatus(f, d.length + 1, ZdStatusCodes.OUTPUT_UNDERFLOW, "dst one byte long");
    }
}
