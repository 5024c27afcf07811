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
}
