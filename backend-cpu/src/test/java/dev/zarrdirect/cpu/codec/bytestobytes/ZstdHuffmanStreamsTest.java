// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static dev.zarrdirect.cpu.Chunks.decode;
import static dev.zarrdirect.cpu.Chunks.trackingBackend;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ZstdHuffmanStreams}: silent on every valid frame libzstd writes (every level, literals of
 * one and four streams, direct and FSE-compressed weights, treeless blocks reusing a table), and
 * the CPU codec fails a frame whose Huffman stream libzstd decodes although it is not consumed
 * exactly (RFC 8878 4.2.2).
 */
class ZstdHuffmanStreamsTest {

    private static final long SEED = 0x25_06;
    private final CpuBackend backend = trackingBackend();

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    @Test
    void everyValidFrameOfEveryLevelPasses() {
        SplittableRandom r = new SplittableRandom(SEED);
        int frames = 0;
        for (int level : new int[]{-5, 1, 3, 6, 9, 15, 19}) {
            for (int n : new int[]{1, 100, 300, 1_500, 20_000, 300_000}) {
                for (byte[] data : new byte[][]{floats(r, n), text(r, n), skewed(r, n)}) {
                    byte[] frame;
                    try (ZstdCompressCtx c = new ZstdCompressCtx()) {
                        c.setLevel(level);
                        frame = c.compress(data);
                    }
                    String bad = ZstdHuffmanStreams.check(MemorySegment.ofArray(frame));
                    assertNull(bad, "level " + level + ", " + n + " bytes: " + bad);
                    frames++;
                }
            }
        }
        assertEquals(7 * 6 * 3, frames);
    }

    @Test
    void aStreamWithBitsLeftOverIsCorruptOnTheCpuThoughLibzstdDecodesIt() {
        SplittableRandom r = new SplittableRandom(SEED);
        byte[] data = floats(r, 20_000);
        byte[] bad = damagedWhereOnlyTheStreamCheckNotices(Zstd.compress(data, 19), data.length, r);
        String why = ZstdHuffmanStreams.check(MemorySegment.ofArray(bad));
        assertTrue(why.contains("Huffman stream"), why);
        CorruptChunkException e = assertThrows(CorruptChunkException.class,
                () -> decode(backend, ZstdCodec.create(Map.of()), bad, data.length, "chunk [7]"));
        assertTrue(e.getMessage().contains("chunk [7]") && e.getMessage().contains("Huffman stream"), e.getMessage());
    }

    /**
     * {@code frame} with one bit flipped where libzstd still decodes it to {@code decodedSize} bytes
     * but {@link ZstdHuffmanStreams#check} finds a stream not consumed exactly: the case the device
     * kernels reported corrupt while the CPU returned bytes. Flips bits at random from {@code r}.
     */
    static byte[] damagedWhereOnlyTheStreamCheckNotices(byte[] frame, int decodedSize, SplittableRandom r) {
        for (int attempt = 0; attempt < 5_000; attempt++) {
            byte[] bad = frame.clone();
            int bit = r.nextInt(8 * bad.length);
            bad[bit / 8] ^= (byte) (1 << (bit % 8));
            try {
                if (Zstd.decompress(new byte[decodedSize], bad) != decodedSize) {
                    continue;
                }
            } catch (ZstdException e) {
                continue;
            }
            if (ZstdHuffmanStreams.check(MemorySegment.ofArray(bad)) != null) {
                return bad;
            }
        }
        throw new AssertionError("no damaged frame of the kind in 5000 bit flips of a " + frame.length
                + "-byte frame (seed " + SEED + ")");
    }

    @Test
    void theFastWalkGivesTheExactWalksVerdictOnEveryDamagedFrame() {
        SplittableRandom r = new SplittableRandom(SEED);
        int frames = 0;
        int flagged = 0;
        for (int level : new int[]{-3, 1, 3, 9, 19}) {
            for (int n : new int[]{700, 5_000, 40_000, 300_000}) {
                for (byte[] data : new byte[][]{floats(r, n), text(r, n), skewed(r, n)}) {
                    byte[] frame;
                    try (ZstdCompressCtx c = new ZstdCompressCtx()) {
                        c.setLevel(level);
                        c.setChecksum(r.nextBoolean());
                        frame = c.compress(data);
                    }
                    // the same frame twice: the second one's first table repeats the last one read
                    byte[] twice = java.util.Arrays.copyOf(frame, 2 * frame.length);
                    System.arraycopy(frame, 0, twice, frame.length, frame.length);
                    for (byte[] base : new byte[][]{frame, twice}) {
                        for (int d = 0; d < 12; d++) {
                            byte[] bad = base.clone();
                            int bit = r.nextInt(8 * bad.length);
                            bad[bit / 8] ^= (byte) (1 << (bit % 8));
                            if (d % 3 == 0) {
                                bad[r.nextInt(bad.length)] = (byte) r.nextInt(256);
                            }
                            String exact = ZstdHuffmanStreams.checkExact(MemorySegment.ofArray(bad));
                            assertEquals(exact, ZstdHuffmanStreams.check(MemorySegment.ofArray(bad)),
                                    "level " + level + ", " + n + " bytes, damage " + d + " (seed " + SEED + ")");
                            frames++;
                            flagged += exact != null ? 1 : 0;
                        }
                    }
                }
            }
        }
        assertEquals(5 * 4 * 3 * 2 * 12, frames);
        assertTrue(flagged > 100, "only " + flagged + " of " + frames + " damaged frames have a stream not consumed exactly");
    }

    @Test
    void fourStreamsConsumedExactlyPassWhateverTheirLengths() {
        // streams 1 to 3 of 100 symbols, stream 4 of 98: all long enough for the fast loop
        assertVerdict(null, frame(fourStreams(List.of(symbols(100, 0), symbols(100, 1), symbols(100, 2), symbols(98, 3)),
                0, 0, 0, 0)));
        // stream 3 of 1-bit codes only: 3 bytes, too short for the fast loop
        assertVerdict(null, frame(fourStreams(List.of(symbols(20, 0), symbols(20, 1), ones(20), symbols(20, 3)), 0, 0, 0, 0)));
        // every stream short
        assertVerdict(null, frame(fourStreams(List.of(ones(6), ones(6), ones(6), ones(5)), 0, 0, 0, 0)));
    }

    @Test
    void eachOfFourStreamsWithBitsLeftOverOrReadPastItsStartIsCorrupt() {
        for (int k = 0; k < 4; k++) {
            // all four long enough for the fast loop; or stream k of 1-bit codes, 6 bytes
            for (int seg : new int[]{100, 40}) {
                List<int[]> s = new ArrayList<>(List.of(symbols(seg, 0), symbols(seg, 1), symbols(seg, 2),
                        symbols(seg - 2, 3)));
                if (seg == 40) {
                    s.set(k, ones(k == 3 ? seg - 2 : seg));
                }
                for (int extra : new int[]{1, 7, 9, 70}) {
                    int[] extras = new int[4];
                    extras[k] = extra;
                    assertVerdict("Huffman stream " + (k + 1) + " ends with " + extra + " of its bits unread",
                            frame(fourStreams(s, extras)));
                }
                int[] cut = new int[4];
                cut[k] = -1; // the last code's lowest bit missing: its lookup reads below the start
                assertVerdict("Huffman stream " + (k + 1) + " of " + (k < 3 ? seg : seg - 2) + " symbols reads past its"
                        + " start", frame(fourStreams(s, cut)));
            }
        }
    }

    @Test
    void aFourthStreamWithNoBytesGivesNoVerdict() {
        byte[] section = fourStreams(List.of(symbols(100, 0), symbols(100, 1), symbols(100, 2), symbols(98, 3)), 0, 0, 3, 0);
        // declare the literals 1 byte smaller than stream 1 to 3 and the jump table leave for stream 4
        int s4 = section.length - 3 - TREE.length - 6 - le16(section, 3 + TREE.length) - le16(section, 5 + TREE.length)
                - le16(section, 7 + TREE.length);
        setCompressedSize(section, section.length - 3 - s4);
        byte[] cut = java.util.Arrays.copyOf(section, section.length - s4);
        assertVerdict(null, frame(cut));
    }

    @Test
    void aStreamEndingInAZeroByteIsCorruptAsOnTheKernels() {
        // libzstd's fast loop takes such a stream (its slow path and the kernels do not)
        for (int k = 0; k < 4; k++) {
            int[] extras = new int[4];
            extras[k] = ZERO_BYTE_ON_TOP;
            assertVerdict("Huffman stream " + (k + 1) + " ends in a zero byte",
                    frame(fourStreams(List.of(symbols(100, 0), symbols(100, 1), symbols(100, 2), symbols(98, 3)), extras)));
        }
        assertVerdict("Huffman stream 1 ends in a zero byte", frame(oneStream(symbols(300, 5), ZERO_BYTE_ON_TOP)));
    }

    @Test
    void oneStreamLiteralsAreCheckedToo() {
        assertVerdict(null, frame(oneStream(symbols(300, 5), 0)));
        assertVerdict("Huffman stream 1 ends with 3 of its bits unread", frame(oneStream(symbols(300, 5), 3)));
        assertVerdict("Huffman stream 1 of 300 symbols reads past its start", frame(oneStream(symbols(300, 5), -1)));
    }

    @Test
    void treelessLiteralsAndRepeatedTablesAreCheckedWithTheTableTheyRepeat() {
        List<int[]> s = List.of(symbols(100, 0), symbols(100, 1), symbols(100, 2), symbols(98, 3));
        byte[] good = fourStreams(s, 0, 0, 0, 0);
        byte[] bad = fourStreams(s, 0, 5, 0, 0);
        // a second block without a table (treeless literals) and a second frame repeating the table
        assertVerdict(null, frame(good, treeless(fourStreams(s, 0, 0, 0, 0))));
        assertVerdict("Huffman stream 2 ends with 5 of its bits unread", frame(good, treeless(bad)));
        byte[] twoFrames = concat(frame(good), frame(bad));
        assertVerdict("Huffman stream 2 ends with 5 of its bits unread", twoFrames);
        assertVerdict(null, concat(frame(good), frame(good)));
        // treeless literals at a frame's start have no table to use: no verdict
        assertVerdict(null, concat(frame(good), frame(treeless(bad))));
    }

    /** Both walks give {@code expected} (a prefix of the message), or both nothing. */
    private static void assertVerdict(String expected, byte[] frames) {
        String exact = ZstdHuffmanStreams.checkExact(MemorySegment.ofArray(frames));
        String fast = ZstdHuffmanStreams.check(MemorySegment.ofArray(frames));
        assertEquals(exact, fast, "fast and exact walks disagree");
        if (expected == null) {
            assertNull(fast);
        } else {
            assertTrue(fast != null && fast.startsWith(expected), "expected " + expected + "..., got " + fast);
        }
    }

    // A hand-made Huffman table: direct weights 3, 2, 1, 1 for symbols 0 to 3, symbol 4 taking the
    // rest (weight 4): codes 01, 001, 0000, 0001 and 1 (RFC 8878 4.2.1).
    private static final byte[] TREE = {(byte) (127 + 4), 0x32, 0x11};
    private static final String[] CODES = {"01", "001", "0000", "0001", "1"};

    /** {@code n} symbols of a seeded mix of all five. */
    private static int[] symbols(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        return r.ints(n, 0, 5).toArray();
    }

    /** {@code n} symbols with the 1-bit code. */
    private static int[] ones(int n) {
        int[] s = new int[n];
        java.util.Arrays.fill(s, 4);
        return s;
    }

    /** For {@link #stream}: a zero byte above the end mark. */
    private static final int ZERO_BYTE_ON_TOP = -2;

    /**
     * A backward bitstream of {@code symbols}: the first symbol's code on top, under the end mark;
     * {@code extra} > 0 adds that many bits below the last code, -1 drops the last code's lowest
     * bit, {@link #ZERO_BYTE_ON_TOP} adds a zero byte above the end mark.
     */
    private static byte[] stream(int[] symbols, int extra) {
        if (extra == ZERO_BYTE_ON_TOP) {
            byte[] s = stream(symbols, 0);
            return java.util.Arrays.copyOf(s, s.length + 1);
        }
        StringBuilder bits = new StringBuilder("1");
        for (int s : symbols) {
            bits.append(CODES[s]);
        }
        if (extra > 0) {
            bits.append("10".repeat(extra).substring(0, extra));
        } else if (extra < 0) {
            bits.setLength(bits.length() - 1);
        }
        while (bits.length() % 8 != 0) {
            bits.insert(0, '0');
        }
        byte[] out = new byte[bits.length() / 8];
        for (int j = 0; j < bits.length(); j++) {
            int pos = bits.length() - 1 - j;
            if (bits.charAt(j) == '1') {
                out[pos >>> 3] |= (byte) (1 << (pos & 7));
            }
        }
        return out;
    }

    private static byte[] fourStreams(List<int[]> symbols, int... extra) {
        byte[][] s = new byte[4][];
        int total = 0;
        for (int k = 0; k < 4; k++) {
            s[k] = stream(symbols.get(k), extra[k]);
            total += s[k].length;
        }
        int seg = symbols.get(0).length;
        int regen = 3 * seg + symbols.get(3).length;
        ByteBuffer b = ByteBuffer.allocate(3 + TREE.length + 6 + total).order(ByteOrder.LITTLE_ENDIAN);
        int csize = TREE.length + 6 + total;
        int h = 2 | 1 << 2 | regen << 4 | csize << 14;
        b.put((byte) h).put((byte) (h >>> 8)).put((byte) (h >>> 16)).put(TREE);
        b.putShort((short) s[0].length).putShort((short) s[1].length).putShort((short) s[2].length);
        for (byte[] x : s) {
            b.put(x);
        }
        return b.array();
    }

    private static byte[] oneStream(int[] symbols, int extra) {
        byte[] s = stream(symbols, extra);
        int csize = TREE.length + s.length;
        int h = 2 | symbols.length << 4 | csize << 14;
        ByteBuffer b = ByteBuffer.allocate(3 + csize);
        b.put((byte) h).put((byte) (h >>> 8)).put((byte) (h >>> 16)).put(TREE).put(s);
        return b.array();
    }

    /** The same section without its table: treeless literals (type 3). */
    private static byte[] treeless(byte[] section) {
        byte[] out = new byte[section.length - TREE.length];
        System.arraycopy(section, 0, out, 0, 3);
        System.arraycopy(section, 3 + TREE.length, out, 3, out.length - 3);
        out[0] = (byte) ((out[0] & ~3) | 3);
        setCompressedSize(out, out.length - 3);
        return out;
    }

    private static void setCompressedSize(byte[] section, int csize) {
        int h = (section[0] & 0xFF) | (section[1] & 0xFF) << 8 | (section[2] & 0xFF) << 16;
        h = (h & ((1 << 14) - 1)) | csize << 14;
        section[0] = (byte) h;
        section[1] = (byte) (h >>> 8);
        section[2] = (byte) (h >>> 16);
    }

    private static int le16(byte[] b, int at) {
        return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8;
    }

    /** A frame of one compressed block per literals section, each with no sequences. */
    private static byte[] frame(byte[]... sections) {
        ByteBuffer b = ByteBuffer.allocate(8 + java.util.Arrays.stream(sections).mapToInt(s -> s.length + 4).sum())
                .order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0xFD2FB528).put((byte) 0x60).putShort((short) 0); // single segment, 2-byte content size
        for (int i = 0; i < sections.length; i++) {
            int h = (i == sections.length - 1 ? 1 : 0) | 2 << 1 | (sections[i].length + 1) << 3;
            b.put((byte) h).put((byte) (h >>> 8)).put((byte) (h >>> 16)).put(sections[i]).put((byte) 0);
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static byte[] floats(SplittableRandom r, int n) {
        ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; b.remaining() >= 4; i++) {
            b.putFloat((float) (280 + 10 * Math.sin(i / 50.0) + r.nextDouble() * 0.01));
        }
        return b.array();
    }

    private static byte[] text(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        String words = "the quick brown fox jumps over the lazy dog while era5 winds blow ";
        for (int i = 0; i < n; i++) {
            b[i] = (byte) words.charAt((i + r.nextInt(3)) % words.length());
        }
        return b;
    }

    /** Few symbols, very uneven: direct weights and long codes. */
    private static byte[] skewed(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            int x = r.nextInt(1 << 12);
            b[i] = (byte) (x < 3000 ? 'a' : x < 3800 ? 'b' : 'c' + Integer.numberOfLeadingZeros(x) % 20);
        }
        return b;
    }
}
