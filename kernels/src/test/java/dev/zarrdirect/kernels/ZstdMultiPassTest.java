// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.ZstdTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The multi-pass, block-parallel decoder (zd_zstd_mp.h), host build: the whole corpus must
 * decode through it (not through its single-pass fallback) to zstd-jni's bytes, and corrupt
 * input must get exactly the single-pass status without a write outside dst or scratch.
 */
class ZstdMultiPassTest {
    static final int MODE_RUN = 1, MODE_FALLBACK = 2;
    /** ZD_MP_HDR_BYTES and sizeof(zd_mp_block) in zd_zstd_mp.h: a chunk's scratch starts with its block table */
    static final int ZD_MP_HDR_BYTES = 64, MP_BLOCK_BYTES = 152;

    record Result(int[] status, int[] mode, byte[][] out, boolean guardsIntact) {}

    /**
     * ZD_MPX_F_SAME_ROUND, ZD_MPX_F_CG, ZD_MPX_F_JUMP, ZD_MPX_F_DEFER, ZD_HOST_MPX_WINDOW,
     * ZD_HOST_MP_PAIRS in zd_zstd_mp.h / zd_host.c; SEQ and SEQ_64 set pass 2's seq_min (bits
     * 16-31) to 1 and 64.
     */
    static final int SAME_ROUND = 1, CG = 2, JUMP = 4, DEFER = 16, WINDOW = 0x100, PAIRS = 0x200, SEQ = 1 << 16,
            SEQ_64 = 64 << 16;

    /**
     * How the execute pass runs: {@code flags} (WINDOW: blocks built in a local window, as the
     * CUDA zd_zstd_mp_exec_win kernel does, else in place; JUMP: short batches by pointer
     * jumping, else in rounds; SAME_ROUND; CG; DEFER (with WINDOW): blocks do not wait for
     * earlier ones, whose bytes pass 3b copies afterwards, as zd_zstd_mp_exec_defer and
     * zd_zstd_mp_resolve do; PAIRS: pass 2 decodes two blocks a 32-item group, as
     * the CUDA zd_zstd_mp_entropy_pairs kernel does; SEQ: pass 2 decodes literals only, and pass
     * 2b each block's sequences by one item, as zd_zstd_mp_sequences does; SEQ_64: the same for
     * blocks of at least 64 sequences, pass 2 decodes the others) and how many groups
     * run it at once, each on its own threads, waiting for each other's blocks as on a GPU.
     */
    record Exec(int flags, int groups) {
        static final Exec DEFAULT = new Exec(WINDOW | JUMP | CG | SEQ_64, 1); // as the CUDA codec runs

        @Override
        public String toString() {
            return ((flags & WINDOW) != 0 ? "window" : "in place") + ((flags & JUMP) != 0 ? "+jump" : "")
                    + ((flags & DEFER) != 0 ? "+defer" : "")
                    + ((flags & SAME_ROUND) != 0 ? "+same-round" : "") + ((flags & PAIRS) != 0 ? ", entropy in pairs" : "")
                    + ((flags >>> 16) != 0 ? ", sequences in pass 2b from " + (flags >>> 16) : ", sequences in pass 2")
                    + ", " + groups + " group(s)";
        }
    }

    /** Decodes the frames in one batch (all passes) with guards around dst and every scratch area. */
    static Result decodeMp(List<byte[]> frames, int[] dstLens, int localSize, Exec exec) {
        HostKernels hk = HostKernels.get();
        int n = frames.size();
        try (Arena arena = Arena.ofConfined()) {
            long srcTotal = 0, dstTotal = 0, scrTotal = 0, slots = 0;
            long[] so = new long[n], dof = new long[n], sco = new long[n], sb = new long[n + 1];
            for (int i = 0; i < n; i++) {
                so[i] = srcTotal;
                srcTotal += frames.get(i).length;
                dof[i] = dstTotal + GUARD;
                dstTotal += dstLens[i] + GUARD;
                sco[i] = scrTotal + GUARD;
                scrTotal += GUARD + (((long) hk.zstdMpScratchBytes.invokeExact((long) dstLens[i], (long) frames.get(i).length) + 7) & ~7L);
                sb[i] = slots;
                slots += (long) hk.zstdMpSlots.invokeExact((long) dstLens[i], (long) frames.get(i).length);
            }
            sb[n] = slots;
            dstTotal += GUARD;
            scrTotal += GUARD;
            MemorySegment src = arena.allocate(Math.max(1, srcTotal), 16);
            MemorySegment dst = arena.allocate(dstTotal, 16).fill(POISON);
            MemorySegment scr = arena.allocate(scrTotal, 16).fill(POISON);
            MemorySegment soS = arena.allocate(8L * n, 8), ssS = arena.allocate(8L * n, 8);
            MemorySegment doS = arena.allocate(8L * n, 8), dsS = arena.allocate(8L * n, 8);
            MemorySegment scoS = arena.allocate(8L * n, 8), sbS = arena.allocate(8L * (n + 1), 8);
            MemorySegment status = arena.allocate(4L * n, 4).fill((byte) 0x7F);
            MemorySegment modes = arena.allocate(4L * n, 4);
            for (int i = 0; i < n; i++) {
                byte[] f = frames.get(i);
                MemorySegment.copy(f, 0, src, ValueLayout.JAVA_BYTE, so[i], f.length);
                soS.setAtIndex(ValueLayout.JAVA_LONG, i, so[i]);
                ssS.setAtIndex(ValueLayout.JAVA_LONG, i, f.length);
                doS.setAtIndex(ValueLayout.JAVA_LONG, i, dof[i]);
                dsS.setAtIndex(ValueLayout.JAVA_LONG, i, dstLens[i]);
                scoS.setAtIndex(ValueLayout.JAVA_LONG, i, sco[i]);
                sbS.setAtIndex(ValueLayout.JAVA_LONG, i, sb[i]);
            }
            sbS.setAtIndex(ValueLayout.JAVA_LONG, n, sb[n]);
            int rc = (int) hk.zstdMpDecodeBatch.invokeExact(src, soS, ssS, dst, doS, dsS, scr, scoS, sbS, status, n,
                    localSize, modes, exec.flags(), exec.groups());
            assertEquals(0, rc);
            boolean ok = true;
            int[] st = new int[n], md = new int[n];
            byte[][] out = new byte[n][];
            for (int i = 0; i < n; i++) {
                st[i] = status.getAtIndex(ValueLayout.JAVA_INT, i);
                md[i] = modes.getAtIndex(ValueLayout.JAVA_INT, i);
                out[i] = dst.asSlice(dof[i], dstLens[i]).toArray(ValueLayout.JAVA_BYTE);
                ok &= poisoned(dst, dof[i] - GUARD, GUARD);
                long need = (long) hk.zstdMpScratchBytes.invokeExact((long) dstLens[i], (long) frames.get(i).length);
                ok &= poisoned(scr, sco[i] - GUARD, GUARD) && poisoned(scr, sco[i] + need, ((need + 7) & ~7L) - need + GUARD);
            }
            ok &= poisoned(dst, dstTotal - GUARD, GUARD);
            return new Result(st, md, out, ok);
        } catch (Throwable t) {
            if (t instanceof AssertionError ae) throw ae;
            throw new IllegalStateException(t);
        }
    }

    static Result decodeMp(List<byte[]> frames, int[] dstLens, int localSize) {
        return decodeMp(frames, dstLens, localSize, Exec.DEFAULT);
    }

    static Result decodeMp(byte[] frame, int dstLen, int localSize) {
        return decodeMp(List.of(frame), new int[] {dstLen}, localSize);
    }

    @BeforeAll
    static void corpus() {
        ZstdCorpusTest.buildCorpus();
    }

    @Test
    void wholeCorpusDecodesThroughTheMultiPassPath() {
        int n = 0, fallback = 0;
        List<String> fellBack = new ArrayList<>();
        // batches of a few frames: several chunks share the passes' grids
        List<ZstdCorpusTest.Case> cs = ZstdCorpusTest.corpus;
        for (int from = 0; from < cs.size(); from += 7) {
            List<ZstdCorpusTest.Case> part = cs.subList(from, Math.min(cs.size(), from + 7));
            List<byte[]> frames = part.stream().map(ZstdCorpusTest.Case::frame).toList();
            int[] lens = part.stream().mapToInt(c -> c.original().length).toArray();
            // every way of building a block (in place, in a window, deferred) and of decoding sequences
            Exec exec = switch (from / 7 % 3) {
                case 0 -> Exec.DEFAULT;
                case 1 -> new Exec(CG, 1);
                default -> new Exec(Exec.DEFAULT.flags() | DEFER, 1);
            };
            Result r = decodeMp(frames, lens, 1, exec);
            assertTrue(r.guardsIntact(), "guards, batch from " + part.get(0).name());
            for (int i = 0; i < part.size(); i++) {
                ZstdCorpusTest.Case c = part.get(i);
                assertEquals(0, r.status()[i], "status " + c.name() + " seed=" + SEED);
                assertArrayEquals(c.original(), r.out()[i], "bytes " + c.name() + " seed=" + SEED);
                if (r.mode()[i] != MODE_RUN) {
                    fallback++;
                    fellBack.add(c.name());
                }
                n++;
            }
        }
        System.out.printf("zstd multi-pass corpus: %d frames, %d fell back %s%n", n, fallback, fellBack);
        assertEquals(List.of(), fellBack, "every corpus frame is one zstd frame: none may need the fallback");
    }

    /**
     * Frames of 100 KB to 1.1 MB through every way of running the execute pass, in groups of 4 and
     * 32 items. The default suite: each way of running it (an Exec and a group size) on
     * {@value #GROUP_FRAMES_A_WAY} of the 12 frames, every frame at least once (17 ways).
     */
    @Test
    void groupsOfSeveralItems() throws Throwable {
        Sweep.sampled("zstd multi-pass groups", () -> groupsOfSeveralItems(Sweep.sample(GROUP_FRAMES_A_WAY, 0x6E0L)));
    }

    /** Frames each way of {@link #groupsOfSeveralItems()} decodes in the default suite (two took 41 s on 2 cores). */
    static final int GROUP_FRAMES_A_WAY = 1;

    /** The full tier: every frame every way (180 decodes). */
    @Test
    @Tag(Sweep.FULL)
    void groupsOfSeveralItemsFullSweep() {
        groupsOfSeveralItems(Sweep.ALL);
    }

    static void groupsOfSeveralItems(Sweep.Selection sel) {
        List<ZstdCorpusTest.Case> cs = ZstdCorpusTest.corpus.stream()
                .filter(c -> c.original().length >= 100_000 && c.original().length <= 1_100_000).limit(12).toList();
        // pairs (32 items only) see frames of 1 to 9 blocks: odd counts leave a half idle
        List<Exec> execs = new ArrayList<>();
        List<Integer> localSizes = new ArrayList<>();
        for (Exec exec : new Exec[] {Exec.DEFAULT, new Exec(WINDOW | CG, 1), new Exec(CG | SEQ, 1),
                new Exec(Exec.DEFAULT.flags() | PAIRS, 1), new Exec(WINDOW | JUMP | CG | PAIRS | SEQ, 1),
                new Exec(WINDOW | JUMP | CG | PAIRS, 1), new Exec(Exec.DEFAULT.flags() | DEFER, 1),
                new Exec(WINDOW | CG | DEFER, 1), new Exec(WINDOW | JUMP | SAME_ROUND | CG | DEFER, 1)}) {
            for (int ls : (exec.flags() & PAIRS) != 0 ? new int[] {32} : new int[] {4, 32}) {
                execs.add(exec);
                localSizes.add(ls);
            }
        }
        List<List<Integer>> dealt = sel.deal(execs.size(), cs.size());
        int decodes = 0;
        for (int k = 0; k < execs.size(); k++) {
            Exec exec = execs.get(k);
            int ls = localSizes.get(k);
            for (int ci : dealt.get(k)) {
                ZstdCorpusTest.Case c = cs.get(ci);
                String what = c.name() + " local=" + ls + " " + exec;
                Result r = decodeMp(List.of(c.frame()), new int[] {c.original().length}, ls, exec);
                assertTrue(r.guardsIntact(), "guards " + what);
                assertEquals(0, r.status()[0], "status " + what);
                assertEquals(MODE_RUN, r.mode()[0], "fell back: " + what);
                assertArrayEquals(c.original(), r.out()[0], "bytes " + what);
                decodes++;
            }
        }
        System.out.println("zstd multi-pass groups (" + sel.describe() + "): " + decodes + " decodes of "
                + execs.size() * cs.size() + " (" + cs.size() + " frames, " + execs.size() + " ways)");
    }

    /**
     * Several groups execute the blocks of the same frames at once, as on a GPU: a block whose
     * matches reach into earlier blocks waits for them, whichever group runs them. Frames of 1 MiB
     * (and a 256 KiB ERA5-like field), every way of building a block, groups of 16 items. The
     * default suite: {@value #CONCURRENT_WAYS} of the 8 ways, each on one of the 5 frames, picked
     * by the sweep's seed (every way on every frame took 140 s of a 2-core machine's suite, every
     * way on one frame 38 s).
     */
    @Test
    void concurrentGroupsShareTheBlocksOfAFrame() throws Throwable {
        Sweep.sampled("zstd multi-pass concurrent groups",
                () -> concurrentGroupsShareTheBlocksOfAFrame(Sweep.sample(CONCURRENT_WAYS, 0xC0C0L), Sweep.sample(1, 0xC0C1L)));
    }

    /** The full tier: every frame every way. */
    @Test
    @Tag(Sweep.FULL)
    void concurrentGroupsShareTheBlocksOfAFrameFullSweep() {
        concurrentGroupsShareTheBlocksOfAFrame(Sweep.ALL, Sweep.ALL);
    }

    /** Ways of {@link #concurrentGroupsShareTheBlocksOfAFrame()} the default suite runs, one frame each. */
    static final int CONCURRENT_WAYS = 4;

    /** Runs the ways {@code waySel} deals (of the 8), each on the frames {@code frameSel} deals it. */
    static void concurrentGroupsShareTheBlocksOfAFrame(Sweep.Selection waySel, Sweep.Selection frameSel) {
        Random rnd = new Random(SEED ^ 0x51C0L);
        List<byte[]> frames = new ArrayList<>();
        List<byte[]> originals = new ArrayList<>();
        // floats at level 1 have blocks of literals only (the window variant once lost a barrier there);
        // the field has short literal runs (each item copies its own sequence's literals)
        String[] kinds = {"floats", "floats", "text", "mixture", "field"};
        int[] levels = {1, 3, 1, 3, 3};
        for (int k = 0; k < kinds.length; k++) {
            // the field's blocks hold ~9000 sequences each: two blocks keep the emulated groups quick
            int size = kinds[k].equals("field") ? (1 << 18) - rnd.nextInt(5000) : (1 << 20) - rnd.nextInt(5000);
            byte[] d = data(kinds[k], size, rnd);
            originals.add(d);
            frames.add(compress(d, levels[k], true, true, false));
        }
        Exec[] execs = {new Exec(WINDOW | JUMP | SAME_ROUND | CG, 4), new Exec(WINDOW | CG, 3),
                new Exec(JUMP | CG, 4), new Exec(SAME_ROUND, 2), new Exec(WINDOW | JUMP | CG | PAIRS, 2),
                new Exec(WINDOW | JUMP | CG | PAIRS | SEQ, 2), new Exec(WINDOW | JUMP | CG | DEFER | SEQ, 4),
                new Exec(WINDOW | SAME_ROUND | CG | DEFER, 3)};
        List<List<Integer>> dealt = frameSel.deal(execs.length, frames.size());
        // one configuration dealt its ways: CONCURRENT_WAYS distinct ones of the 8 (all of them, ALL)
        List<Integer> ways = waySel.deal(1, execs.length).getFirst();
        List<String> wrong = new ArrayList<>();
        int decodes = 0;
        for (int k : ways) {
            Exec exec = execs[k];
            List<Integer> mine = dealt.get(k);
            List<byte[]> fs = mine.stream().map(frames::get).toList();
            int[] lens = mine.stream().mapToInt(i -> originals.get(i).length).toArray();
            Result r = decodeMp(fs, lens, (exec.flags() & PAIRS) != 0 ? 32 : 16, exec);
            if (!r.guardsIntact()) wrong.add("guards, " + exec);
            for (int j = 0; j < mine.size(); j++) {
                int i = mine.get(j);
                // the frames carry checksums: wrong bytes from the execute pass show as a fallback
                if (r.status()[j] != 0 || r.mode()[j] != MODE_RUN || !Arrays.equals(originals.get(i), r.out()[j]))
                    wrong.add("frame " + i + " (" + kinds[i] + ", " + exec + "): status " + r.status()[j] + ", mode " + r.mode()[j]);
            }
            decodes += mine.size();
        }
        System.out.println("zstd multi-pass concurrent groups (" + waySel.describe() + "): " + decodes + " decodes of "
                + execs.length * frames.size());
        assertEquals(List.of(), wrong, "seed=" + SEED);
    }

    /**
     * Adds to {@code out} the frame cut at every length below {@code everyByte}, then at about
     * {@code cuts} lengths spread over the rest, then {@code flipped} copies with 1-3 random bits
     * flipped; each case's stratum is {@code name} and the kind of corruption (cut below
     * {@code everyByte}, cut further on, 1, 2 or 3 bits flipped).
     */
    static void addCorruptions(List<Sweep.Case> out, String name, byte[] frame, int everyByte, int cuts, int flipped, Random r) {
        int step = Math.max(1, frame.length / cuts);
        for (int cut = 0; cut < frame.length; cut += (cut < everyByte ? 1 : step)) {
            out.add(new Sweep.Case(name + (cut < everyByte ? ", cut in the first " + everyByte + " bytes" : ", cut further on"),
                    Arrays.copyOf(frame, cut)));
        }
        for (int k = 0; k < flipped; k++) {
            byte[] f = frame.clone();
            int flips = 1 + r.nextInt(3);
            for (int j = 0; j < flips; j++) f[r.nextInt(f.length)] ^= (byte) (1 << r.nextInt(8));
            out.add(new Sweep.Case(name + ", " + flips + " bit(s) flipped", f));
        }
    }

    /** The default suite: a sample of {@link #truncationsAndBitFlips}'s cases, a few of every frame and kind of corruption. */
    @Test
    void truncationsAndBitFlipsGetTheSingleBatchStatus() throws Throwable {
        Sweep.sampled("zstd multi-pass corruptions", () -> truncationsAndBitFlips(Sweep.sample(SAMPLE_PER_STRATUM, 0x3B17L)));
    }

    /** The full tier: every case (13136). */
    @Test
    @Tag(Sweep.FULL)
    void truncationsAndBitFlipsGetTheSingleBatchStatusFullSweep() {
        truncationsAndBitFlips(Sweep.ALL);
    }

    /** Cases a stratum in the default suite's samples. */
    static final int SAMPLE_PER_STRATUM = 2;

    /**
     * Every frame of the corruption samples, truncated and with bits flipped, through the
     * multi-pass decoder in four ways of running it: the same status as the single-pass decoder,
     * the same bytes where that succeeds, no write outside dst or scratch.
     */
    static void truncationsAndBitFlips(Sweep.Selection sel) {
        Random r = new Random(SEED ^ 0x3B17L);
        int cases = 0, viaMp = 0, all = 0;
        for (ZstdCorruptionTest.Sample s : ZstdCorruptionTest.samples()) {
            List<Sweep.Case> built = new ArrayList<>();
            addCorruptions(built, s.name(), s.frame(), 24, 60, 80, r);
            List<Sweep.Case> picked = sel.of(built);
            all += built.size();
            List<byte[]> frames = picked.stream().map(Sweep.Case::frame).toList();
            int[] lens = new int[frames.size()];
            Arrays.fill(lens, s.original().length);
            // the single-pass decoder's answer, once a frame (it does not depend on how the multi-pass one runs)
            Decoded[] single = new Decoded[frames.size()];
            for (int i = 0; i < frames.size(); i++) single[i] = decode(frames.get(i), s.original().length, 1);
            // sequences in pass 2b (as the CUDA codec decodes by default) and in pass 2
            for (Exec exec : new Exec[] {Exec.DEFAULT, new Exec(WINDOW | JUMP | CG, 1),
                    new Exec(WINDOW | JUMP | CG | SEQ, 1), new Exec(Exec.DEFAULT.flags() | DEFER, 1)}) {
                Result mp = decodeMp(frames, lens, 1, exec);
                assertTrue(mp.guardsIntact(), "guards " + s.name() + " " + exec);
                for (int i = 0; i < frames.size(); i++) {
                    Decoded d = single[i];
                    String what = s.name() + " case " + built.indexOf(picked.get(i)) + " (" + picked.get(i).stratum() + ")";
                    assertEquals(d.status(), mp.status()[i], "status " + what + " " + exec + " seed=" + SEED);
                    if (d.status() == 0) assertArrayEquals(d.out(), mp.out()[i], "bytes " + what);
                    if (mp.mode()[i] == MODE_RUN) viaMp++;
                    cases++;
                }
            }
        }
        System.out.println("zstd multi-pass corruptions (" + sel.describe() + "): " + cases + " cases of " + 4 * all + ", "
                + viaMp + " decoded by the multi-pass path");
    }

    /**
     * Pass 1 shares a frame's blocks among its items once item 0 has walked the block headers, then
     * item 0 links what each block inherits. Whatever the item count, the block table must be the
     * same bytes, and a corruption that only one item sees must still send the frame to the
     * single-pass decoder: compared here on truncated and bit-flipped frames, 1 item against 2, 4,
     * 32 and 64 (more items than pass 1 uses). The default suite: a sample, a few cases of every
     * frame and kind of corruption (and every intact frame).
     */
    @Test
    void scanBuildsTheSameBlockTableWhateverItsItemCount() throws Throwable {
        Sweep.sampled("zstd multi-pass scan", () -> scanSweep(Sweep.sample(SAMPLE_PER_STRATUM, 0x5CA1L)));
    }

    /** The full tier: every case (3577). */
    @Test
    @Tag(Sweep.FULL)
    void scanBuildsTheSameBlockTableWhateverItsItemCountFullSweep() throws Throwable {
        scanSweep(Sweep.ALL);
    }

    static void scanSweep(Sweep.Selection sel) throws Throwable {
        HostKernels hk = HostKernels.get();
        Random r = new Random(SEED ^ 0x5CA1L);
        int cases = 0, run = 0, all = 0;
        List<String> wrong = new ArrayList<>();
        for (ZstdCorruptionTest.Sample s : ZstdCorruptionTest.samples()) {
            List<Sweep.Case> built = new ArrayList<>();
            built.add(new Sweep.Case(s.name() + ", intact", s.frame()));
            addCorruptions(built, s.name(), s.frame(), 12, 40, 120, r);
            List<Sweep.Case> picked = sel.of(built);
            all += built.size();
            int dstLen = s.original().length;
            for (Sweep.Case c : picked) {
                byte[] f = c.frame();
                String what = s.name() + " case " + built.indexOf(c) + " (" + c.stratum() + ")";
                long need = (long) hk.zstdMpScratchBytes.invokeExact((long) dstLen, (long) f.length);
                long table = (long) ZD_MP_HDR_BYTES + (long) hk.zstdMpSlots.invokeExact((long) dstLen, (long) f.length) * MP_BLOCK_BYTES;
                byte[] expected = null;
                int expectedMode = 0;
                for (int items : new int[] {1, 2, 4, 32, 64}) {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment src = arena.allocate(Math.max(1, f.length), 16);
                        MemorySegment.copy(f, 0, src, ValueLayout.JAVA_BYTE, 0, f.length);
                        MemorySegment scr = arena.allocate(need, 16).fill(POISON);
                        int mode = (int) hk.zstdMpScan.invokeExact(src, (long) f.length, (long) dstLen, scr, items);
                        byte[] got = scr.asSlice(0, table).toArray(ValueLayout.JAVA_BYTE);
                        if (items == 1) {
                            expected = got;
                            expectedMode = mode;
                            if (mode == MODE_RUN) run++;
                            if (mode == 0) wrong.add(what + ": the group did not run");
                        } else if (mode != expectedMode || (mode == MODE_RUN && !Arrays.equals(expected, got))) {
                            wrong.add(what + ", " + items + " items: mode " + mode + " (1 item: "
                                    + expectedMode + ")" + (mode == expectedMode ? ", another block table" : ""));
                        }
                    }
                }
                cases++;
            }
        }
        assertEquals(List.of(), wrong, "seed=" + SEED);
        assertTrue(run > 0, "no case took the multi-pass path");
        System.out.println("zstd multi-pass scan (" + sel.describe() + "): " + cases + " frames of " + all + ", " + run
                + " with a block table, same with 2-64 items");
    }

    @Test
    void wrongDstLenAndMultiFrameInputFallBack() {
        byte[] d = data("text", 300_000, new Random(SEED));
        byte[] f = compress(d, 3, true, false, false);
        // no content size: dst too large -> underflow; too small -> overflow (same as single-pass)
        for (int len : new int[] {d.length + 1, d.length - 1, d.length + 200_000}) {
            Result r = decodeMp(f, len, 1);
            assertTrue(r.guardsIntact());
            assertEquals(decode(f, len, 1).status(), r.status()[0], "dst " + len);
            assertNotEquals(0, r.status()[0]);
        }
        byte[] two = ZstdTestSupport.concat(f, f);
        Result r = decodeMp(two, 2 * d.length, 1);
        assertEquals(0, r.status()[0]);
        assertEquals(MODE_FALLBACK, r.mode()[0]);
        assertArrayEquals(ZstdTestSupport.concat(d, d), r.out()[0]);
    }
}
