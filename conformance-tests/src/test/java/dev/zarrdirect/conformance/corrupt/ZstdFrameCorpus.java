// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.corrupt;

import com.github.luben.zstd.ZstdCompressCtx;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded corpus of zstd frames, intact and damaged, over the frame and block types of RFC 8878:
 * raw, RLE and compressed blocks (with and without the content checksum, with and without a
 * declared content size), frames of several blocks, several frames one after another and skippable
 * frames around them. Each intact frame is cut short at random places, has one or three bits
 * flipped (anywhere, or in its first bytes where the headers are), a byte overwritten, or garbage
 * appended. Two frames declare a content size of 1 TiB (decompression bombs). The same seed gives
 * the same corpus.
 */
final class ZstdFrameCorpus {

    /** One input: its encoded bytes, the bytes it was made from (the chunk's expected content) and what was done to it. */
    record Case(String name, byte[] encoded, byte[] original, boolean checksummed, String damage) {
        boolean intact() {
            return damage.equals("intact");
        }

        boolean truncated() {
            return damage.startsWith("truncated");
        }

        boolean bomb() {
            return damage.startsWith("content size");
        }
    }

    private ZstdFrameCorpus() {
    }

    /** The corpus for {@code seed}: {@code perBase} damaged copies of each intact frame, plus the intact ones. */
    static List<Case> build(long seed, int perBase) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Case> bases = bases(r);
        List<Case> out = new ArrayList<>(bases);
        for (Case b : bases) {
            for (int k = 0; k < perBase; k++) {
                out.add(damage(b, r, k));
            }
        }
        // decompression bombs: a few bytes whose header declares 1 TiB, for chunks of 1 and 3000 bytes
        for (int expected : new int[]{1, 3000}) {
            out.add(new Case("1 TiB declared", bomb(1L << 40), new byte[expected], false, "content size 2^40 declared"));
        }
        return out;
    }

    /** A single-segment frame whose header declares {@code declared} bytes, holding one raw block of one zero byte. */
    static byte[] bomb(long declared) {
        ByteBuffer b = ByteBuffer.allocate(4 + 1 + 8 + 3 + 1).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0xFD2FB528).put((byte) 0xE0).putLong(declared);
        int header = (1 << 3) | 1; // raw block of 1 byte, last
        return b.put((byte) header).put((byte) 0).put((byte) 0).put((byte) 0).array();
    }

    /** The intact frames, one of each kind. */
    static List<Case> bases(SplittableRandom r) {
        List<Case> out = new ArrayList<>();
        byte[] random = new byte[3000];
        r.nextBytes(random);
        out.add(intact("raw block", frame(random, 1, false, true), random, false));
        out.add(intact("raw block, checksum", frame(random, 1, true, true), random, true));
        byte[] same = new byte[40_000];
        Arrays.fill(same, (byte) 7);
        out.add(intact("RLE block", frame(same, 3, false, true), same, false));
        byte[] text = text(r, 20_000);
        out.add(intact("compressed block", frame(text, 3, false, true), text, false));
        out.add(intact("compressed block, checksum", frame(text, 3, true, true), text, true));
        out.add(intact("compressed block, no content size", frame(text, 3, true, false), text, true));
        byte[] floats = floats(r, 20_000);
        out.add(intact("compressed floats, level 19", frame(floats, 19, false, true), floats, false));
        byte[] big = concat(text(r, 150_000), floats(r, 60_000), same);
        out.add(intact("several blocks, checksum", frame(big, 1, true, true), big, true));
        out.add(intact("several blocks, no content size", frame(big, 5, false, false), big, false));
        // from 256 KiB the CUDA backend decodes a frame's blocks in parallel (its multi-pass kernel)
        byte[] large = concat(floats(r, 200_000), text(r, 100_000));
        out.add(intact("over 256 KiB", frame(large, 3, false, true), large, false));
        byte[] a = text(r, 5_000);
        byte[] b = floats(r, 4_000);
        out.add(intact("two frames", concat(frame(a, 3, true, true), frame(b, 3, false, true)), concat(a, b), false));
        out.add(intact("skippable frame first", concat(skippable(r, 40), frame(a, 3, false, true)), a, false));
        out.add(intact("skippable frame last", concat(frame(a, 3, true, true), skippable(r, 9)), a, true));
        return out;
    }

    private static Case intact(String name, byte[] encoded, byte[] original, boolean checksummed) {
        return new Case(name, encoded, original, checksummed, "intact");
    }

    private static Case damage(Case base, SplittableRandom r, int k) {
        byte[] e = base.encoded().clone();
        String what;
        switch (k % 7) {
            case 0, 1 -> {
                int cut = r.nextInt(1, e.length);
                if (dropsOnlyTrailingSkippableFrames(e, cut)) {
                    cut--; // what is left would be a whole, valid stream: cut into its last frame instead
                }
                e = Arrays.copyOf(e, cut);
                what = "truncated to " + cut + " bytes";
            }
            case 2 -> {
                int bit = r.nextInt(8 * Math.min(e.length, 24));
                e[bit / 8] ^= (byte) (1 << (bit % 8));
                what = "header bit " + bit + " flipped";
            }
            case 3, 4 -> {
                int bit = r.nextInt(8 * e.length);
                e[bit / 8] ^= (byte) (1 << (bit % 8));
                what = "bit " + bit + " flipped";
            }
            case 5 -> {
                StringBuilder bits = new StringBuilder();
                for (int j = 0; j < 3; j++) {
                    int bit = r.nextInt(8 * e.length);
                    e[bit / 8] ^= (byte) (1 << (bit % 8));
                    bits.append(j == 0 ? "" : ",").append(bit);
                }
                what = "bits " + bits + " flipped";
            }
            default -> {
                if (r.nextBoolean()) {
                    int at = r.nextInt(e.length);
                    int v = r.nextInt(256);
                    e[at] = (byte) v;
                    what = "byte " + at + " set to " + v;
                } else {
                    byte[] junk = new byte[r.nextInt(1, 12)];
                    r.nextBytes(junk);
                    e = concat(e, junk);
                    what = junk.length + " bytes of garbage appended";
                }
            }
        }
        return new Case(base.name(), e, base.original(), base.checksummed(), what);
    }

    static byte[] frame(byte[] data, int level, boolean checksum, boolean contentSize) {
        try (ZstdCompressCtx c = new ZstdCompressCtx()) {
            c.setLevel(level);
            c.setChecksum(checksum);
            c.setContentSize(contentSize);
            return c.compress(data);
        }
    }

    /**
     * Whether {@code e[cut..]} is nothing but whole skippable frames: then {@code e[..cut]} is a
     * complete stream that decodes as the original did, and cutting there damages nothing.
     */
    static boolean dropsOnlyTrailingSkippableFrames(byte[] e, int cut) {
        int at = cut;
        while (at + 8 <= e.length) {
            ByteBuffer b = ByteBuffer.wrap(e, at, 8).order(ByteOrder.LITTLE_ENDIAN);
            if ((b.getInt() & 0xFFFFFFF0) != 0x184D2A50) {
                return false;
            }
            long size = Integer.toUnsignedLong(b.getInt());
            at += 8;
            if (size > e.length - at) {
                return false;
            }
            at += (int) size;
        }
        return at == e.length && at > cut;
    }

    /** A skippable frame (RFC 8878 section 3.1.2) of {@code n} random bytes. */
    static byte[] skippable(SplittableRandom r, int n) {
        ByteBuffer b = ByteBuffer.allocate(8 + n).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x184D2A50 + r.nextInt(16)).putInt(n);
        byte[] junk = new byte[n];
        r.nextBytes(junk);
        return b.put(junk).array();
    }

    /** Words from a small vocabulary: literals, matches and repeat offsets. */
    static byte[] text(SplittableRandom r, int n) {
        String[] words = {"temperature ", "wind ", "u10 ", "v10 ", "2m ", "pressure ", "level ", "0.25 ", "era5 ", "\n"};
        ByteArrayOutputStream out = new ByteArrayOutputStream(n + 16);
        while (out.size() < n) {
            out.writeBytes(words[r.nextInt(words.length)].getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        return Arrays.copyOf(out.toByteArray(), n);
    }

    /** Smooth float32 values with noise in the low bits, as a weather field: Huffman-coded literals. */
    static byte[] floats(SplittableRandom r, int n) {
        ByteBuffer b = ByteBuffer.allocate(n - n % 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; b.remaining() >= 4; i++) {
            b.putFloat((float) (280 + 10 * Math.sin(i / 50.0) + r.nextDouble() * 0.01));
        }
        return b.array();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
