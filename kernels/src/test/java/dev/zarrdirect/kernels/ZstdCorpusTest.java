// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.github.luben.zstd.Zstd;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.ZstdTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Decodes frames produced by zstd-jni (the reference) with the host build of the portable decoder. */
class ZstdCorpusTest {
    record Case(String name, byte[] original, byte[] frame) {}

    static final int[] LEVELS = {-7, 1, 3, 9, 19, 22};
    static final int[] SMALL_SIZES = {0, 1, 5, 100, 4095, 65535, 131071, 131072, 131073};
    static List<Case> corpus;

    /** Builds the corpus once a JVM (ZstdMultiPassTest shares it; the same frames whichever class asks first). */
    @BeforeAll
    static synchronized void buildCorpus() {
        if (corpus != null) return;
        Random r = new Random(SEED);
        List<Case> cs = new ArrayList<>();
        int i = 0;
        for (String kind : KINDS) {
            for (int size : SMALL_SIZES) {
                byte[] d = data(kind, size, r);
                for (int level : LEVELS) {
                    boolean checksum = (i & 1) == 0, contentSize = (i & 2) == 0;
                    i++;
                    cs.add(new Case(kind + "/" + size + "/L" + level + "/ck=" + checksum + "/cs=" + contentSize, d,
                            compress(d, level, checksum, contentSize, false)));
                }
            }
            byte[] mid = data(kind, 1_000_003 + r.nextInt(50_000), r);
            for (int level : new int[] {-7, 1, 3, 9, 19}) {
                boolean ldm = level >= 9;
                cs.add(new Case(kind + "/" + mid.length + "/L" + level + "/ldm=" + ldm, mid,
                        compress(mid, level, level != 3, level != 9, ldm)));
            }
            byte[] big = data(kind, 8 << 20, r);
            for (int level : new int[] {1, 3}) {
                cs.add(new Case(kind + "/8MiB/L" + level, big, compress(big, level, level == 3, level == 1, level == 3)));
            }
        }
        byte[] big = data("mixture", 8 << 20, r);
        cs.add(new Case("mixture/8MiB/L19/ldm", big, compress(big, 19, true, true, true)));
        byte[] mid = data("text", 1 << 20, r);
        cs.add(new Case("text/1MiB/L22/ldm", mid, compress(mid, 22, true, false, true)));
        corpus = cs;
    }

    @Test
    void everyFrameDecodesLikeZstdJni() {
        Map<String, Integer> cov = newCoverage();
        int n = 0;
        long bytes = 0;
        for (Case c : corpus) {
            assertArrayEquals(c.original, Zstd.decompress(c.frame, c.original.length), "zstd-jni sanity " + c.name);
            Decoded d = decode(c.frame, c.original.length, 1);
            assertTrue(d.guardsIntact(), "guards " + c.name + " seed=" + SEED);
            assertEquals(0, d.status(), "status " + c.name + " seed=" + SEED);
            assertArrayEquals(c.original, d.out(), "bytes " + c.name + " seed=" + SEED);
            tally(c.frame, cov);
            n++;
            bytes += c.original.length;
        }
        System.out.printf("zstd corpus: %d frames, %d decoded bytes, coverage %s%n", n, bytes, cov);
        for (String k : List.of("block.raw", "block.rle", "block.compressed", "literals.raw",
                "literals.compressed.1_stream", "literals.compressed.4_streams", "literals.treeless.4_streams",
                "huffman.weights_direct", "huffman.weights_fse", "nseq.1_byte", "nseq.2_bytes", "seq.ll_predefined",
                "seq.ll_fse", "seq.ll_repeat", "seq.of_predefined", "seq.of_fse", "seq.of_repeat", "seq.ml_fse",
                "seq.ml_repeat", "seq.ml_predefined", "frame.checksum", "frame.no_checksum", "frame.single_segment",
                "frame.window_descriptor", "frame.fcs_bytes_0", "frame.fcs_bytes_1", "frame.fcs_bytes_2",
                "frame.fcs_bytes_4")) {
            assertTrue(cov.containsKey(k), "corpus does not exercise " + k + ": " + cov);
        }
    }

    /**
     * Several frames per launch, work-groups of 1, 4 and 32 emulated work-items. Groups of one item
     * take every frame; the emulated groups of 4 and 32 (40 s of a 2-core machine's suite) take
     * a third of theirs by default, picked by {@link Sweep#SEED}, and all in the full tier.
     */
    @Test
    void batchWithSeveralGroupSizes() throws Throwable {
        boolean full = "full".equals(System.getProperty("zd.tier"));
        Sweep.sampled("zstd corpus batch", () -> batchWithSeveralGroupSizes(full));
    }

    private static void batchWithSeveralGroupSizes(boolean full) {
        HostKernels hk = HostKernels.get();
        java.util.Random pick = new java.util.Random(Sweep.SEED ^ 0xBA7CL);
        for (int localSize : new int[] {1, 4, 32}) {
            List<Case> cs = corpus.stream()
                    .filter(c -> c.original.length <= (localSize == 1 ? Integer.MAX_VALUE : localSize == 4 ? 1_100_000 : 140_000))
                    .filter(c -> full || localSize == 1 || pick.nextInt(3) == 0)
                    .toList();
            int n = cs.size();
            long srcTotal = cs.stream().mapToLong(c -> c.frame.length).sum();
            long dstTotal = cs.stream().mapToLong(c -> c.original.length).sum();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment src = arena.allocate(Math.max(1, srcTotal), 16);
                MemorySegment dst = arena.allocate(Math.max(1, dstTotal), 16).fill(POISON);
                MemorySegment so = arena.allocate(8L * n, 8), ss = arena.allocate(8L * n, 8);
                MemorySegment dof = arena.allocate(8L * n, 8), ds = arena.allocate(8L * n, 8);
                MemorySegment scratch = arena.allocate(hk.scratchPerFrame * n, 16);
                MemorySegment status = arena.allocate(4L * n, 4).fill((byte) 0x7F);
                long sp = 0, dp = 0;
                for (int i = 0; i < n; i++) {
                    Case c = cs.get(i);
                    MemorySegment.copy(c.frame, 0, src, ValueLayout.JAVA_BYTE, sp, c.frame.length);
                    so.setAtIndex(ValueLayout.JAVA_LONG, i, sp);
                    ss.setAtIndex(ValueLayout.JAVA_LONG, i, c.frame.length);
                    dof.setAtIndex(ValueLayout.JAVA_LONG, i, dp);
                    ds.setAtIndex(ValueLayout.JAVA_LONG, i, c.original.length);
                    sp += c.frame.length;
                    dp += c.original.length;
                }
                int rc = (int) hk.zstdDecodeBatch.invokeExact(src, so, ss, dst, dof, ds, scratch, hk.scratchPerFrame,
                        status, n, localSize);
                assertEquals(0, rc);
                for (int i = 0; i < n; i++) {
                    Case c = cs.get(i);
                    assertEquals(0, status.getAtIndex(ValueLayout.JAVA_INT, i), "status " + c.name + " local=" + localSize);
                    byte[] got = dst.asSlice(dof.getAtIndex(ValueLayout.JAVA_LONG, i), c.original.length)
                            .toArray(ValueLayout.JAVA_BYTE);
                    assertTrue(Arrays.equals(c.original, got), "bytes " + c.name + " local=" + localSize);
                }
                System.out.printf("zstd batch: %d frames with local size %d%n", n, localSize);
            } catch (Throwable t) {
                if (t instanceof AssertionError ae) throw ae;
                throw new IllegalStateException(t);
            }
        }
    }
}
