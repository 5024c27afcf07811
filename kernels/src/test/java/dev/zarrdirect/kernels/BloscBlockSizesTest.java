// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
