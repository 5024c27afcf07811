// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.BloscTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Every frame of the c-blosc corpus decodes to its raw bytes through the host build of the blosc kernels. */
class BloscKernelTest {

    private static int[] lengths(List<Case> cases) {
        return cases.stream().mapToInt(c -> c.raw().length).toArray();
    }

    @ParameterizedTest(name = "{0} groups of {1} items, mode {2}")
    // every entry's mode (9 every compressor, 1 zstd, 8 zlib, 0 lz, with the lz variants 2, 4 and 16: 16 parses
    // beside the copies where the group has items past 32, 25 the same with every compressor), groups of 1 to
    // 64 items, grids smaller and larger than the corpus's units (suite time: each row decodes the corpus)
    @CsvSource({"1, 1, 9", "3, 4, 9", "7, 32, 9", "2, 3, 0", "64, 1, 0", "5, 8, 0", "3, 4, 11", "2, 3, 2", "4, 8, 4",
        "3, 2, 13", "2, 32, 13", "2, 32, 1", "5, 7, 0", "4, 64, 9", "2, 5, 8", "2, 36, 16", "3, 64, 25"})
    void wholeCorpusInOneBatchDecodesToTheRawBytes(int groups, int items, int mode) throws Throwable {
        // groups of 32 or more emulated items cost most of the suite's time on 2 cores (the row of
        // 4 x 64 alone 37 s): by default they decode a sample, every compressor and shuffle in it
        if (items >= 32 && !"full".equals(System.getProperty("zd.tier"))) {
            Sweep.sampled("blosc corpus, " + groups + "x" + items + " mode " + mode,
                    () -> decodeAndCheck(sample(Sweep.sample(WIDE_SAMPLE_PER_STRATUM, 0xB105CL + 31L * items + mode)),
                            groups, items, mode));
        } else {
            decodeAndCheck(corpus(), groups, items, mode);
        }
    }

    /** Frames of each compressor and shuffle mode that a row of wide groups decodes in the default suite. */
    static final int WIDE_SAMPLE_PER_STRATUM = 4;

    /** The corpus cases {@code sel} picks, in strata of compressor and shuffle mode. */
    private static List<Case> sample(Sweep.Selection sel) {
        List<Sweep.Case> all = new java.util.ArrayList<>();
        for (Case c : corpus()) {
            all.add(new Sweep.Case(c.codec() + "/" + (c.flags() & 0x05) + "/" + c.memcpyed(), c.frame()));
        }
        java.util.Set<byte[]> picked = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Sweep.Case c : sel.of(all)) {
            picked.add(c.frame());
        }
        return corpus().stream().filter(c -> picked.contains(c.frame())).toList();
    }

    private static void decodeAndCheck(List<Case> cases, int groups, int items, int mode) {
        List<byte[]> frames = cases.stream().map(Case::frame).toList();
        Batch b = decode(frames, lengths(cases), groups, items, scratchPerGroup(1 << 20, mode), mode);
        assertEquals(0, b.rc());
        assertTrue(b.guardsIntact(), "a write outside dst, scratch or plan");
        int decoded = 0;
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            int want = c.expectedStatus();
            if (c.mayBeUnsupportedUnder(mode) && b.status()[i] == ZdStatusCodes.BLOSC_CODEC_UNSUPPORTED) continue;
            assertEquals(want, b.status()[i], c.name());
            if (want == 0) {
                assertArrayEquals(c.raw(), b.out()[i], c.name());
                decoded++;
            }
        }
        System.out.println("blosc corpus: " + decoded + " of " + cases.size() + " frames decoded (" + groups + "x"
                + items + ", mode " + mode + ")");
    }

    @Test
    void zstdFramesNeedTheZstdEntry() {
        for (Case c : corpus()) {
            if (c.codec() != 4 || c.memcpyed() || !c.name().contains("/98309")) continue;
            Batch b = decodeOne(c.frame(), c.raw().length, 2, 4, 0);
            assertEquals(ZdStatusCodes.BLOSC_CODEC_UNSUPPORTED, b.status()[0], c.name());
            assertTrue(b.guardsIntact());
        }
    }

    /** What the codecs' second pass relies on: the lz and zstd entries refuse zlib frames, the entry for every compressor decodes them. */
    @Test
    void zlibFramesNeedTheEntryForEveryCompressor() {
        int seen = 0;
        for (Case c : corpus()) {
            if (c.codec() != 3 || c.memcpyed() || !c.name().contains("/98309")) continue;
            for (int mode : new int[] {0, ZSTD, LZ_THREAD}) {
                Batch b = decodeOne(c.frame(), c.raw().length, 2, 4, mode);
                assertEquals(ZdStatusCodes.BLOSC_CODEC_UNSUPPORTED, b.status()[0], c.name() + " mode " + mode);
                assertTrue(b.guardsIntact());
            }
            Batch b = decodeOne(c.frame(), c.raw().length, 2, 64, ALL);
            assertEquals(0, b.status()[0], c.name());
            assertArrayEquals(c.raw(), b.out()[0], c.name());
            seen++;
        }
        assertTrue(seen >= 6, "zlib frames of 98309 bytes in the corpus: " + seen);
    }

    /**
     * An entry without a frame's decoder says so before it counts scratch: were it to say "block too
     * large" (the zstd decoder's scratch counted in), the codecs would retry the frame with more
     * scratch in the same entry, and fail it.
     */
    @Test
    void aFrameWithoutItsDecoderIsUnsupportedWhateverTheScratch() {
        int seen = 0;
        for (Case c : corpus()) {
            if (c.memcpyed() || c.raw().length == 0 || (c.codec() != 3 && c.codec() != 4)) continue;
            int mode = c.codec() == 4 ? ZLIB : ZSTD; // the entry with the other decoder only
            Batch b = decode(List.of(c.frame()), new int[] {c.raw().length}, 2, 4, 256, mode);
            assertEquals(ZdStatusCodes.BLOSC_CODEC_UNSUPPORTED, b.status()[0], c.name() + " mode " + mode);
            assertTrue(b.guardsIntact(), c.name());
            b = decode(List.of(c.frame()), new int[] {c.raw().length}, 2, 4, 256, 0);
            assertEquals(ZdStatusCodes.BLOSC_CODEC_UNSUPPORTED, b.status()[0], c.name() + " lz entry");
            seen++;
        }
        assertTrue(seen > 40, "zstd and zlib frames in the corpus: " + seen);
    }

    @Test
    void shuffledBlockLargerThanScratchIsACallerError() {
        int seen = 0;
        for (Case c : corpus()) {
            int ts = c.frame()[3] & 0xFF;
            boolean shuffledBlock = (c.flags() & 0x01) != 0 && ts > 1
                    || (c.flags() & 0x04) != 0 && (c.blocksize() / ts) % 8 == 0;
            if (c.memcpyed() || c.blocksize() <= 1024 || !shuffledBlock) continue;
            Batch b = decode(List.of(c.frame()), new int[] {c.raw().length}, 2, 2, 256, ALL);
            assertEquals(ZdStatusCodes.BLOSC_BLOCK_TOO_LARGE, b.status()[0], c.name());
            assertTrue(b.guardsIntact(), c.name());
            seen++;
        }
        assertTrue(seen > 10);
    }

    @Test
    void unshuffledBlocksNeedNoScratch() {
        for (Case c : corpus()) {
            if (c.memcpyed() || (c.flags() & 0x05) != 0 || c.codec() > 1) continue;
            Batch b = decode(List.of(c.frame()), new int[] {c.raw().length}, 3, 2, 0, LZ_THREAD);
            assertEquals(0, b.status()[0], c.name());
            assertArrayEquals(c.raw(), b.out()[0], c.name());
        }
    }

    @Test
    void headerErrorsGiveTheirStatusAndLeaveTheOtherChunksAlone() {
        Case good = corpus().stream().filter(c -> c.name().startsWith("lz4/L5/shuffle/ts4")).findFirst().orElseThrow();
        byte[] f = good.frame();
        int n = good.raw().length;
        List<byte[]> frames = new ArrayList<>();
        List<Integer> lens = new ArrayList<>();
        List<Integer> want = new ArrayList<>();
        frames.add(f); lens.add(n); want.add(0);
        frames.add(Arrays.copyOf(f, 15)); lens.add(n); want.add(ZdStatusCodes.TRUNCATED);
        frames.add(Arrays.copyOf(f, f.length - 1)); lens.add(n); want.add(ZdStatusCodes.TRUNCATED);
        frames.add(f); lens.add(n - 1); want.add(ZdStatusCodes.BLOSC_NBYTES);
        byte[] g = f.clone(); g[0] = 0; frames.add(g); lens.add(n); want.add(ZdStatusCodes.BLOSC_HEADER);
        g = f.clone(); g[0] = 3; frames.add(g); lens.add(n); want.add(ZdStatusCodes.BLOSC_VERSION_UNSUPPORTED);
        g = f.clone(); g[3] = 0; frames.add(g); lens.add(n); want.add(ZdStatusCodes.BLOSC_HEADER);
        g = f.clone(); g[2] |= 0x04; frames.add(g); lens.add(n); want.add(ZdStatusCodes.BLOSC_HEADER);
        g = f.clone(); g[2] = (byte) ((g[2] & 0x1F) | (2 << 5)); frames.add(g); lens.add(n);
        want.add(ZdStatusCodes.BLOSC_CODEC_UNSUPPORTED);
        g = f.clone(); g[8] = g[9] = g[10] = g[11] = 0; frames.add(g); lens.add(n); want.add(ZdStatusCodes.BLOSC_HEADER);
        g = f.clone(); g[16] = 3; g[17] = g[18] = g[19] = 0; frames.add(g); lens.add(n);
        want.add(ZdStatusCodes.BLOSC_BLOCK_OFFSET);
        g = f.clone(); g[2] |= 0x02; frames.add(g); lens.add(n); want.add(ZdStatusCodes.BLOSC_HEADER);
        frames.add(f); lens.add(n); want.add(0);
        Batch b = decode(frames, lens.stream().mapToInt(Integer::intValue).toArray(), 4, 4,
                scratchPerGroup(1 << 20, ZSTD), ZSTD);
        assertTrue(b.guardsIntact());
        for (int i = 0; i < frames.size(); i++) {
            assertEquals((int) want.get(i), b.status()[i], "chunk " + i);
        }
        assertArrayEquals(good.raw(), b.out()[0]);
        assertArrayEquals(good.raw(), b.out()[frames.size() - 1]);
    }

    @Test
    void emptyBatchIsFine() {
        Batch b = decode(List.of(), new int[0], 2, 4, 64, ZSTD);
        assertEquals(0, b.rc());
        assertTrue(b.guardsIntact());
    }
}
