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
        String key = CudaZstdCodec.MP_SORT_PROPERTY;
        String before = System.getProperty(key);
        System.setProperty(key, "false");
        try {
            assertArrayEquals(new int[]{0, 1, 2}, MultiPassLaunch.frameOrder(new long[]{30, 10, 20}));
        } finally {
            if (before == null) System.clearProperty(key);
            else System.setProperty(key, before);
        }
    }

    @Test
    void anEmptyBatchHasAnEmptyOrder() {
        assertEquals(0, MultiPassLaunch.frameOrder(new long[0]).length);
    }

    /** The grid of every launch {@code enqueue} queues for {@code n} frames of 2043 slots each, by kernel name. */
    private static java.util.Map<String, Integer> grids(MultiPassLaunch l, int n) {
        java.util.Map<String, Integer> g = new java.util.LinkedHashMap<>();
        l.enqueue((kernel, grid, threads, shared, args) -> g.put(kernel, grid), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n,
                2043L * n, 2043);
        return g;
    }

    @Test
    void theExecutePassTakesTwoGroupsAFrameUpToTheResidentGroups() {
        MultiPassLaunch h200 = new MultiPassLaunch(132, 1024, true, false, true, true);
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
        MultiPassLaunch inPlace = new MultiPassLaunch(132, 512, false, false, false, true);
        assertEquals(300, grids(inPlace, 150).get("zd_zstd_mp_exec"));
        assertEquals(528, grids(inPlace, 600).get("zd_zstd_mp_exec"));

        String key = MultiPassLaunch.EXEC_GROUPS_PER_FRAME_PROPERTY;
        String before = System.getProperty(key);
        System.setProperty(key, "3");
        try {
            assertEquals(48, grids(h200, 16).get("zd_zstd_mp_exec_win"));
            assertEquals(132, grids(h200, 50).get("zd_zstd_mp_exec_win"));
        } finally {
            if (before == null) System.clearProperty(key);
            else System.setProperty(key, before);
        }
    }
}
