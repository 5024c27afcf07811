// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.BloscTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Malformed blosc frames: a status, never a write outside dst, scratch or plan, never a crash. Blosc
 * has no checksum, so a flipped literal decodes "successfully" to other bytes; what must hold is
 * that every truncation is rejected and that the result does not depend on the schedule (items per
 * group, groups per grid).
 */
class BloscCorruptionTest {

    /** A few frames covering every codec, both shuffles, split and unsplit, many blocks and memcpyed. */
    private static List<Case> samples() {
        List<Case> s = new ArrayList<>();
        for (String prefix : new String[] {"lz4/L5/shuffle/ts4/bs4096/smooth", "blosclz/L9/bitshuffle/ts2/bs128/runs",
                "zstd/L5/shuffle/ts8/bs16384/smooth", "lz4hc/L9/noshuffle/ts2/bs128/runs", "blosclz/L5/shuffle/ts3/bs1000/text",
                "lz4/L0/", "lz4/L5/bitshuffle/ts4/bs2048/text", "blosclz/L1/shuffle/ts4/bs2048/text", "zstd/L9/bitshuffle/ts2/bs128/runs",
                "zlib/L5/shuffle/ts8/bs4096/smooth", "zlib/L5/bitshuffle/ts3/bs1000/text", "zlib/L9/shuffle/ts4/bs2048/runs"}) {
            s.add(corpus().stream().filter(c -> c.name().startsWith(prefix)).findFirst().orElseThrow(
                    () -> new IllegalStateException("no corpus case " + prefix)));
        }
        return s;
    }

    @Test
    void everyTruncationIsRejected() {
        int cases = 0;
        for (Case c : samples()) {
            List<byte[]> frames = new ArrayList<>();
            int step = Math.max(1, c.frame().length / 400);
            for (int cut = 0; cut < c.frame().length; cut += (cut < 64 ? 1 : step)) {
                frames.add(Arrays.copyOf(c.frame(), cut));
            }
            int[] lens = new int[frames.size()];
            Arrays.fill(lens, c.raw().length);
            Batch b = decode(frames, lens, 5, 3, scratchPerGroup(128 << 10, ALL), ALL);
            assertTrue(b.guardsIntact(), "guards " + c.name());
            for (int i = 0; i < frames.size(); i++) {
                assertNotEquals(0, b.status()[i], c.name() + " truncated to " + frames.get(i).length);
            }
            cases += frames.size();
        }
        System.out.println("blosc truncations: " + cases);
    }

    @Test
    void bitFlipsGiveTheSameResultUnderEverySchedule() {
        Random r = new Random(SEED);
        int cases = 0, rejected = 0;
        for (Case c : samples()) {
            List<byte[]> frames = new ArrayList<>();
            // 80 flipped copies a sample in the full tier (-Pfull), 20 by default (the suite's time budget)
            for (int k = 0; k < ("full".equals(System.getProperty("zd.tier")) ? 80 : 20); k++) {
                byte[] f = c.frame().clone();
                int flips = 1 + r.nextInt(3);
                for (int j = 0; j < flips; j++) {
                    // half of the flips in the header and block offsets, where they change the structure
                    int pos = r.nextBoolean() ? r.nextInt(Math.min(f.length, 16 + 4 * 8)) : r.nextInt(f.length);
                    f[pos] ^= (byte) (1 << r.nextInt(8));
                }
                frames.add(f);
            }
            int[] lens = new int[frames.size()];
            Arrays.fill(lens, c.raw().length);
            long spg = scratchPerGroup(128 << 10, ALL);
            // the serial decoders on one item, against the cooperative executor on groups of 4 and 16 (waves)
            // and of 8 (copy chains resolved), and on groups of 5; and of 36, each batch parsed by items 0-3
            // while items 32-35 execute the batch before
            Batch a = decode(frames, lens, 1, 1, spg, ALL | LZ_THREAD);
            Batch b = decode(frames, lens, 7, 4, spg, ALL);
            Batch d = decode(frames, lens, 3, 16, spg, ALL);
            Batch e = decode(frames, lens, 2, 8, spg, ALL | LZ_RESOLVE);
            Batch g = decode(frames, lens, 3, 5, spg, ALL);
            Batch o = decode(frames, lens, 2, 36, spg, ALL | LZ_OVERLAP);
            assertTrue(a.guardsIntact() && b.guardsIntact() && d.guardsIntact() && e.guardsIntact() && g.guardsIntact()
                    && o.guardsIntact(),
                    "guards " + c.name() + " seed=" + SEED);
            for (int i = 0; i < frames.size(); i++) {
                assertEquals(a.status()[i], b.status()[i], c.name() + " flip " + i + " seed=" + SEED);
                assertEquals(a.status()[i], d.status()[i], c.name() + " flip " + i + " seed=" + SEED);
                assertEquals(a.status()[i], e.status()[i], c.name() + " flip " + i + " seed=" + SEED);
                assertEquals(a.status()[i], g.status()[i], c.name() + " flip " + i + " seed=" + SEED);
                assertEquals(a.status()[i], o.status()[i], c.name() + " flip " + i + " seed=" + SEED);
                if (a.status()[i] == 0) {
                    assertArrayEquals(a.out()[i], b.out()[i], c.name() + " flip " + i + " seed=" + SEED);
                    assertArrayEquals(a.out()[i], d.out()[i], c.name() + " flip " + i + " seed=" + SEED);
                    assertArrayEquals(a.out()[i], e.out()[i], c.name() + " flip " + i + " seed=" + SEED);
                    assertArrayEquals(a.out()[i], g.out()[i], c.name() + " flip " + i + " seed=" + SEED);
                    assertArrayEquals(a.out()[i], o.out()[i], c.name() + " flip " + i + " seed=" + SEED);
                } else {
                    rejected++;
                }
            }
            cases += frames.size();
        }
        System.out.println("blosc bit flips: " + cases + " cases, " + rejected + " rejected");
    }

    /** The same inputs under AddressSanitizer and UBSan, where gcc has them (src/test/c/zd_blosc_fuzz.c). */
    @Test
    void sanitizerFuzzDriverFindsNothing() throws Exception {
        Path dir = Files.createTempDirectory("zd-blosc-fuzz");
        Path exe = dir.resolve("blosc-fuzz");
        try {
            // -O0: gcc builds this in 4 s instead of 19 at -O1 (2-core machine), and the run is as quick
            HostKernels.run(List.of("gcc", "-O0", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                    "-pthread", "-I", HostKernels.C_SRC.toString(),
                    HostKernels.TEST_C.resolve("zd_blosc_fuzz.c").toString(), "-o", exe.toString(), "-lm"), dir);
        } catch (java.io.IOException e) {
            Assumptions.abort("gcc cannot build with -fsanitize=address,undefined here: " + e.getMessage());
        }
        Path corpus = Path.of(BloscCorruptionTest.class.getResource("/blosc/corpus.bin").toURI());
        // by default 6 flipped copies a frame, under a new seed each run (printed); the full tier 24
        boolean full = "full".equals(System.getProperty("zd.tier"));
        long seed = full ? SEED : Sweep.SEED;
        String out = HostKernels.run(List.of(exe.toString(), corpus.toString(), full ? "24" : "6", Long.toString(seed)), dir);
        System.out.print(out);
        assertTrue(out.contains(" 0 failures"), "seed " + seed + " (-Dzd.sweep.seed): " + out);
    }
}
