// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BloscBlockSizesTest {

    @Test
    void aFirstPassTakesTheLargestOfTheDefaultTheMetadataAndWhatWasLearned() {
        BloscBlockSizes s = new BloscBlockSizes();
        assertEquals(0, s.learned());
        assertEquals(BloscBlockSizes.DEFAULT, s.firstPass(0));
        assertEquals(BloscBlockSizes.DEFAULT, s.firstPass(64 << 10));
        assertEquals(1 << 20, s.firstPass(1 << 20));
        s.outgrown(512 << 10);
        assertEquals(512 << 10, s.learned());
        assertEquals(512 << 10, s.firstPass(0));
        assertEquals(1 << 20, s.firstPass(1 << 20));
    }

    @Test
    void whatIsLearnedNeverShrinksAndStopsAtTheLargestLearned() {
        BloscBlockSizes s = new BloscBlockSizes();
        s.outgrown(2 << 20);
        s.outgrown(512 << 10);
        assertEquals(2 << 20, s.learned());
        s.outgrown(64L << 20); // a hostile header: the first pass of every later batch must not ask for it
        assertEquals(BloscBlockSizes.LARGEST_LEARNED, s.learned());
        assertEquals(BloscBlockSizes.LARGEST_LEARNED, s.firstPass(0));
    }

    @Test
    void concurrentBatchesLearnTheLargestAnyOfThemMet() throws Exception {
        BloscBlockSizes s = new BloscBlockSizes();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    for (int k = 1; k <= 1000; k++) {
                        s.outgrown((long) (k * 4 + id) << 10);
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        assertEquals((1000L * 4 + 3) << 10, s.learned());
    }

    @Test
    void fewBlocksCountsEveryChunksBlocksRoundedUpAgainstEightAUnit() {
        long mb66 = 66_447_360;
        // a 4-step read of an ERA5-like store: 4 x 127 blocks of 512 KiB, on an H100's 132 SMs
        assertTrue(BloscBlockSizes.fewBlocks(new long[]{mb66, mb66, mb66, mb66}, 512 << 10, 132));
        // 1,024 chunks of 1 MiB in 256 KiB blocks: 4,096 blocks
        long[] many = new long[1024];
        java.util.Arrays.fill(many, 1 << 20);
        assertFalse(BloscBlockSizes.fewBlocks(many, 256 << 10, 132));
        // the edge: 8 a unit is not few; a partial block counts whole
        assertFalse(BloscBlockSizes.fewBlocks(new long[]{16L << 20}, 1 << 20, 2));
        assertTrue(BloscBlockSizes.fewBlocks(new long[]{15L << 20}, 1 << 20, 2));
        assertFalse(BloscBlockSizes.fewBlocks(new long[]{(15L << 20) + 1}, 1 << 20, 2));
        assertTrue(BloscBlockSizes.fewBlocks(new long[0], 1 << 20, 2));
    }
}
