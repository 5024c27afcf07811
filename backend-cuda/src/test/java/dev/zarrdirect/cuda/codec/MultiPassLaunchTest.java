// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.*;

class MultiPassLaunchTest {

    @Test
    void framesGoOutSmallestEncodedFirstAndTiesKeepTheirOrder() {
        long[] sizes = {870_000, 2_150_000, 2_330_000, 470_000, 2_150_000, 730_000};
        int[] order = MultiPassLaunch.frameOrder(sizes);
        assertArrayEquals(new int[]{3, 5, 0, 1, 4, 2}, order);
        // a permutation: every frame exactly once, so every frame's status is reported
        assertArrayEquals(new int[]{0, 1, 2, 3, 4, 5}, Arrays.stream(order).sorted().toArray());
    }

    @Test
    void sortingTurnedOffKeepsTheBatchOrder() {
        assertArrayEquals(new int[]{0, 1, 2}, MultiPassLaunch.frameOrder(new long[]{30, 10, 20}, false));
        assertArrayEquals(new int[]{1, 2, 0}, MultiPassLaunch.frameOrder(new long[]{30, 10, 20}, true));
    }

    @Test
    void anEmptyBatchHasAnEmptyOrder() {
        assertEquals(0, MultiPassLaunch.frameOrder(new long[0]).length);
    }

    /** The grid of every launch {@code enqueue} queues for {@code n} frames of 2043 slots each, by kernel name. */
    private static java.util.Map<String, Integer> grids(MultiPassLaunch l, int n) {
        java.util.Map<String, Integer> g = new java.util.LinkedHashMap<>();
        l.enqueue((kernel, grid, threads, shared, args) -> g.put(kernel, grid), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n,
                2043L * n, 2043, 32L * n, 0, 0);
        return g;
    }

    @Test
    void theExecutePassTakesTwoGroupsAFrameUpToTheResidentGroups() {
        MultiPassLaunch h200 = new MultiPassLaunch(132, 1024, true, false, true, true, MultiPassLaunch.Sequences.OFF, 0);
        // a small batch leaves the other multiprocessors to the batches decoding beside it
        assertEquals(32, grids(h200, 16).get("zd_zstd_mp_exec_win"));
        assertEquals(132, grids(h200, 66).get("zd_zstd_mp_exec_win"));
        assertEquals(132, grids(h200, 128).get("zd_zstd_mp_exec_win"));
        // the other launches: one group a frame, and the entropy grid four times the resident groups
        assertEquals(java.util.List.of("zd_zstd_mp_scan", "zd_zstd_mp_entropy_pairs", "zd_zstd_mp_link",
                "zd_zstd_mp_exec_win", "zd_zstd_mp_finish"), java.util.List.copyOf(grids(h200, 16).keySet()));
        assertEquals(16, grids(h200, 16).get("zd_zstd_mp_finish"));
        assertEquals(4 * 17 * 132, grids(h200, 16).get("zd_zstd_mp_entropy_pairs"));
        // without the window, four 512-thread groups fit a multiprocessor (2048 threads)
        MultiPassLaunch inPlace = new MultiPassLaunch(132, 512, false, false, false, true, MultiPassLaunch.Sequences.OFF, 0);
        assertEquals(300, grids(inPlace, 150).get("zd_zstd_mp_exec"));
        assertEquals(528, grids(inPlace, 600).get("zd_zstd_mp_exec"));

        MultiPassLaunch three = new MultiPassLaunch(132, 1024, true, false, true, true, MultiPassLaunch.Sequences.OFF, 0,
                4, 3, -1, true, 8);
        assertEquals(48, grids(three, 16).get("zd_zstd_mp_exec_win"));
        assertEquals(132, grids(three, 50).get("zd_zstd_mp_exec_win"));
    }

    @Test
    void theSequencePassFillsAMultiprocessorsSharedMemory() {
        // H200: 233,472 bytes a multiprocessor, 232,448 a group, 2048 threads
        MultiPassLaunch.Sequences four = MultiPassLaunch.Sequences.fit(1024, 4, 0, 233_472, 2048, 232_448, 1024);
        // one group: 82 items (368 + 82 x 2820 = 231,608 bytes), 21 warps of four
        assertEquals(new MultiPassLaunch.Sequences(1024, 4, 82, 1), four);
        assertEquals(672, four.threads());
        assertEquals(231_608, four.sharedBytes());
        // one item a warp: 32 a group (1024 threads), two groups before the threads run out
        assertEquals(new MultiPassLaunch.Sequences(1024, 1, 32, 2),
                MultiPassLaunch.Sequences.fit(1024, 1, 0, 233_472, 2048, 232_448, 1024));
        // registers for 896 threads a group: 28 items of one lane in one group, two (56) within
        // 2048 threads, but 16 groups of 4 make 64
        assertEquals(new MultiPassLaunch.Sequences(1024, 1, 4, 16),
                MultiPassLaunch.Sequences.fit(1024, 1, 0, 233_472, 2048, 232_448, 896));
        assertEquals(new MultiPassLaunch.Sequences(1024, 1, 28, 1),
                MultiPassLaunch.Sequences.fit(1024, 1, 28, 233_472, 1024, 232_448, 896));
        // at most 16 items a group: groups of 16, five of them
        assertEquals(new MultiPassLaunch.Sequences(1024, 8, 16, 5),
                MultiPassLaunch.Sequences.fit(1024, 8, 16, 233_472, 2048, 232_448, 1024));
        // A100: 167,936 a multiprocessor
        assertEquals(59, MultiPassLaunch.Sequences.fit(1024, 4, 0, 167_936, 2048, 166_912, 1024).itemsPerGroup());
        assertThrows(IllegalArgumentException.class, () -> MultiPassLaunch.Sequences.fit(1024, 4, 0, 2000, 2048, 2000, 1024));
        assertThrows(IllegalArgumentException.class, () -> new MultiPassLaunch.Sequences(1024, 3, 8, 1));
        assertThrows(IllegalArgumentException.class, () -> new MultiPassLaunch.Sequences(1024, 1, 33, 1));
        assertThrows(IllegalArgumentException.class, () -> new MultiPassLaunch.Sequences(-1, 4, 8, 1));
    }

    @Test
    void theSequencePassFollowsTheEntropyPass() {
        MultiPassLaunch.Sequences seq = new MultiPassLaunch.Sequences(1024, 4, 82, 1);
        MultiPassLaunch l = new MultiPassLaunch(132, 1024, true, false, true, true, seq, 0);
        java.util.List<String> order = new java.util.ArrayList<>();
        java.util.Map<String, int[]> shape = new java.util.HashMap<>();
        l.enqueue((kernel, grid, threads, shared, args) -> {
            order.add(kernel);
            shape.put(kernel, new int[] {grid, threads, shared});
        }, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 160, 2043L * 160, 2043, 4489, 0, 0);
        assertEquals(java.util.List.of("zd_zstd_mp_scan", "zd_zstd_mp_entropy_pairs", "zd_zstd_mp_sequences",
                "zd_zstd_mp_link", "zd_zstd_mp_exec_win", "zd_zstd_mp_finish"), order);
        // 4489 blocks at least: 55 groups of 82 items, not one a multiprocessor
        assertArrayEquals(new int[] {55, 672, 231_608}, shape.get("zd_zstd_mp_sequences"));
        // 4488 blocks start at once in the entropy pass's pairs (17 groups a multiprocessor): no pass
        order.clear();
        l.enqueue((kernel, grid, threads, shared, args) -> order.add(kernel), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 160,
                2043L * 160, 2043, 4488, 0, 0);
        assertEquals(java.util.List.of("zd_zstd_mp_scan", "zd_zstd_mp_entropy_pairs", "zd_zstd_mp_link",
                "zd_zstd_mp_exec_win", "zd_zstd_mp_finish"), order);
        assertEquals(32, MultiPassLaunch.minBlocks(4_152_960));
        assertEquals(1, MultiPassLaunch.minBlocks(0));
        assertEquals(2, MultiPassLaunch.minBlocks((128 << 10) + 1));
        shape.clear();
        l.enqueue((kernel, grid, threads, shared, args) -> shape.put(kernel, new int[] {grid, threads, shared}),
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 512, 2043L * 512, 2043, 32L * 512, 0, 0);
        assertEquals(132, shape.get("zd_zstd_mp_sequences")[0]);
    }

    @Test
    void deferredExecutionRunsEveryBlockAtOnceThenResolvesAFrameAGroup() {
        // from 64 blocks a frame (8 MiB): the 66 MB ERA5 frames defer, the 4 MB sharded ones not
        MultiPassLaunch l = new MultiPassLaunch(132, 1024, true, false, true, true, MultiPassLaunch.Sequences.OFF, 64);
        assertTrue(l.defers(66_447_360));
        assertTrue(l.defers(64L << 17));
        assertFalse(l.defers(63L << 17));
        assertFalse(l.defers(4_152_960));
        assertFalse(l.defers(1L << 32), "a ref is a u32 position in its frame");
        assertFalse(new MultiPassLaunch(132, 1024, true, false, true, true, MultiPassLaunch.Sequences.OFF, 0)
                .defers(66_447_360), "0: never");
        assertEquals(4 * 66_447_360L, MultiPassLaunch.refBytes(66_447_360));
        java.util.List<String> order = new java.util.ArrayList<>();
        java.util.Map<String, int[]> shape = new java.util.HashMap<>();
        l.enqueue((kernel, grid, threads, shared, args) -> {
            order.add(kernel);
            shape.put(kernel, new int[] {grid, threads, shared});
        }, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 2043L * 32, 2043, 507L * 32, 1L << 40, 4096);
        assertEquals(java.util.List.of("zd_zstd_mp_scan", "zd_zstd_mp_entropy_pairs", "zd_zstd_mp_link",
                "zd_zstd_mp_exec_defer", "zd_zstd_mp_resolve", "zd_zstd_mp_finish"), order);
        // no block waits for another: every multiprocessor, not two groups a frame (64)
        assertArrayEquals(new int[] {132, 1024, MultiPassLaunch.DEFER_SHARED_BYTES}, shape.get("zd_zstd_mp_exec_defer"));
        assertEquals(230_400, MultiPassLaunch.DEFER_SHARED_BYTES);
        // persistent, a group a multiprocessor; 32 frames: four slices a block
        assertArrayEquals(new int[] {132, 1024, 0}, shape.get("zd_zstd_mp_resolve"));
        assertEquals(1, MultiPassLaunch.resolveParts(132, 132));
        assertEquals(1, MultiPassLaunch.resolveParts(518, 132));
        assertEquals(2, MultiPassLaunch.resolveParts(66, 132));
        assertEquals(4, MultiPassLaunch.resolveParts(33, 132));
        assertEquals(8, MultiPassLaunch.resolveParts(16, 132));
        assertEquals(8, MultiPassLaunch.resolveParts(1, 132));
    }

    /** The {@code extern "C" __global__} entries of the kernel sources the kernels jar carries beside its fatbin. */
    private static java.util.Set<String> kernelEntries() throws java.io.IOException {
        java.util.Set<String> names = new java.util.TreeSet<>();
        java.util.regex.Pattern entry = java.util.regex.Pattern.compile(
                "extern \"C\" __global__ void\\s+(?:__launch_bounds__\\([^)]*\\)\\s+)?(\\w+)\\s*\\(");
        for (String f : new String[] {"zd_zstd_mp.cu", "zd_zstd.cu", "zd_bytes.cu"}) {
            try (java.io.InputStream in = MultiPassLaunchTest.class.getClassLoader()
                    .getResourceAsStream("dev/zarrdirect/kernels/cuda/" + f)) {
                assertNotNull(in, "the kernels jar carries cuda/" + f);
                java.util.regex.Matcher m = entry.matcher(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
                while (m.find()) names.add(m.group(1));
            }
        }
        return names;
    }

    /**
     * Every kernel {@code enqueue} launches, in every way it can run, is an entry of the sources
     * the fatbin is built from: an entry lost from a source (as zd_zstd_mp_finish once was, by an
     * edit) otherwise shows only on a GPU, as a launch that finds no function.
     */
    @Test
    void everyLaunchedKernelIsAnEntryOfTheKernelSources() throws java.io.IOException {
        java.util.Set<String> entries = kernelEntries();
        assertTrue(entries.containsAll(java.util.List.of("zd_zstd_mp_scan", "zd_zstd_decode_batch")), entries.toString());
        java.util.Set<String> launched = new java.util.TreeSet<>();
        MultiPassLaunch.Sequences seq = new MultiPassLaunch.Sequences(64, 8, 16, 5);
        for (boolean window : new boolean[] {true, false}) {
            for (boolean pairs : new boolean[] {true, false}) {
                for (long defer : new long[] {0, 1}) {
                    MultiPassLaunch l = new MultiPassLaunch(132, window ? 1024 : 512, window, false, window, pairs, seq,
                            window ? defer : 0);
                    l.enqueue((kernel, grid, threads, shared, args) -> launched.add(kernel), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                            32, 2043L * 32, 2043, 5000, defer > 0 && window ? 1L << 40 : 0, 0);
                }
            }
        }
        assertEquals(java.util.Set.of("zd_zstd_mp_scan", "zd_zstd_mp_entropy", "zd_zstd_mp_entropy_pairs",
                "zd_zstd_mp_sequences", "zd_zstd_mp_link", "zd_zstd_mp_exec", "zd_zstd_mp_exec_win",
                "zd_zstd_mp_exec_defer", "zd_zstd_mp_resolve", "zd_zstd_mp_finish"), launched);
        java.util.Set<String> missing = new java.util.TreeSet<>(launched);
        missing.removeAll(entries);
        assertEquals(java.util.Set.of(), missing, "launched but not in the kernel sources");
    }
}
