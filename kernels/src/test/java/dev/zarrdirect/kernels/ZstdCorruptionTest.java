// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import com.github.luben.zstd.Zstd;
import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.ZstdTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Malformed input: a status, never a write outside dst or scratch, never a crash. */
class ZstdCorruptionTest {
    record Sample(String name, byte[] original, byte[] frame) {}

    private static List<Sample> samples;

    /** The frames the corruption tests start from, built once a JVM (the same bytes for every test). */
    static synchronized List<Sample> samples() {
        if (samples == null) samples = List.copyOf(buildSamples());
        return samples;
    }

    private static List<Sample> buildSamples() {
        Random r = new Random(SEED);
        List<Sample> s = new ArrayList<>();
        int i = 0;
        for (String kind : KINDS) {
            byte[] d = data(kind, 20_000 + r.nextInt(200_000), r);
            for (int level : new int[] {-7, 3, 19}) {
                boolean ck = (i++ & 1) == 0;
                s.add(new Sample(kind + "/L" + level + "/ck=" + ck, d, compress(d, level, ck, !ck, false)));
            }
        }
        return s;
    }

    @Test
    void truncatedAtEveryNthByte() {
        int cases = 0;
        for (Sample s : samples()) {
            int step = Math.max(1, s.frame.length / 150);
            for (int cut = 0; cut < s.frame.length; cut += (cut < 64 ? 1 : step)) {
                Decoded d = decode(Arrays.copyOf(s.frame, cut), s.original.length, 1);
                assertTrue(d.guardsIntact(), "guards " + s.name + " cut=" + cut);
                assertNotEquals(0, d.status(), s.name + " truncated at " + cut + " seed=" + SEED);
                cases++;
            }
        }
        System.out.println("zstd truncations: " + cases);
    }

    /**
     * Random bit flips. Where our decoder accepts, zstd-jni must accept the same bytes and
     * produce the same output; where zstd-jni accepts (same size), so must we.
     */
    @Test
    void bitFlipsAgreeWithZstdJni() {
        Random r = new Random(SEED ^ 0xF11BL);
        int cases = 0, rejected = 0, stricter = 0;
        for (Sample s : samples()) {
            for (int k = 0; k < 120; k++) {
                byte[] f = s.frame.clone();
                int flips = 1 + r.nextInt(3);
                for (int j = 0; j < flips; j++) {
                    int pos = r.nextInt(f.length);
                    f[pos] ^= (byte) (1 << r.nextInt(8));
                }
                int ls = (k % 8 == 0) ? 4 : 1;
                Decoded d = decode(f, s.original.length, ls);
                assertTrue(d.guardsIntact(), "guards " + s.name + " flip " + k + " seed=" + SEED);
                byte[] ref = null;
                try {
                    ref = Zstd.decompress(f, s.original.length);
                    if (ref.length != s.original.length) ref = null;
                } catch (RuntimeException e) {
                    ref = null;
                }
                if ((d.status() == 0) != (ref != null)) saveFailure(s.name + "-flip" + k, f, s.original.length);
                if (d.status() == 0) {
                    assertTrue(ref != null, "we accept what zstd-jni rejects: " + s.name + " flip " + k + " seed=" + SEED);
                    assertTrue(Arrays.equals(ref, d.out()), "output differs from zstd-jni: " + s.name + " flip " + k);
                } else if (ref != null && d.status() == ZdStatusCodes.HUFFMAN_STREAM) {
                    // RFC 8878 4.2.2: a Huffman stream must be consumed exactly. zstd's fast
                    // 4-stream loop does not check that; we do (stricter, by design).
                    stricter++;
                } else {
                    rejected++;
                    assertTrue(ref == null, "we reject (status " + d.status() + ") what zstd-jni accepts: " + s.name + " flip " + k
                            + " seed=" + SEED);
                }
                cases++;
            }
        }
        System.out.println("zstd bit flips: " + cases + " cases, " + rejected + " rejected by both, " + stricter
                + " rejected only by us (Huffman stream not consumed exactly)");
    }

    @Test
    void specificCorruptions() {
        byte[] d = data("text", 50_000, new Random(SEED));
        byte[] f = compress(d, 3, true, true, false);
        // dictionary id set (flag 1, id 7): header grows by one byte
        byte[] dict = ZstdTestSupport.concat(Arrays.copyOf(f, 4), ZstdTestSupport.bytes((f[4] & 0xFC) | 1),
                ZstdTestSupport.bytes(7), Arrays.copyOfRange(f, 5, f.length));
        expect(dict, d.length, ZdStatusCodes.DICTIONARY_NOT_SUPPORTED, "dictionary id");
        byte[] g = f.clone();
        g[0] ^= 1;
        expect(g, d.length, ZdStatusCodes.BAD_MAGIC, "bad magic");
        g = f.clone();
        g[4] |= 0x08;
        expect(g, d.length, ZdStatusCodes.RESERVED_BIT, "reserved bit");
        g = f.clone();
        g[f.length - 1] ^= 0x10;
        expect(g, d.length, ZdStatusCodes.CHECKSUM, "checksum byte");
        g = f.clone();
        int p = firstBlock(f, 0);
        g[p] |= 0x06; // block type 3
        expect(g, d.length, ZdStatusCodes.RESERVED_BIT, "reserved block type");
        expect(new byte[0], 0, ZdStatusCodes.NO_FRAME, "empty input");
        expect(f, d.length - 1, ZdStatusCodes.OUTPUT_OVERFLOW, "content size above dst_len");
        byte[] nofcs = compress(d, 3, true, false, false);
        expect(nofcs, d.length - 100, ZdStatusCodes.OUTPUT_OVERFLOW, "no content size, dst too small");
        expect(nofcs, d.length + 1, ZdStatusCodes.OUTPUT_UNDERFLOW, "no content size, dst too large");
        // window log 10 + 31 = 41 > 31
        byte[] big = ZstdTestSupport.concat(ZstdTestSupport.bytes(0x28, 0xB5, 0x2F, 0xFD, 0x00, 31 << 3), ZstdTestSupport.bytes(1, 0, 0));
        expect(big, 0, ZdStatusCodes.WINDOW_TOO_LARGE, "window too large");
    }

    /** Keeps an input that disagrees with zstd-jni under target/zd-failures for replay. */
    static void saveFailure(String name, byte[] frame, int dstLen) {
        try {
            java.nio.file.Path dir = java.nio.file.Path.of("target", "zd-failures");
            java.nio.file.Files.createDirectories(dir);
            java.nio.file.Files.write(dir.resolve(name.replace('/', '_') + ".dst" + dstLen + ".zst"), frame);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void expect(byte[] f, int dstLen, int status, String what) {
        Decoded d = decode(f, dstLen, 1);
        assertTrue(d.guardsIntact(), "guards " + what);
        assertEquals(status, d.status(), what);
    }
}
