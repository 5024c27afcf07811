// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.sampling;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EpochSamplerTest {

    @Test
    void splitMix64GivesTheReferenceOutputsForStateZero() {
        // The first outputs of SplitMix64 from state 0, as published with the reference implementation.
        SplitMix64 r = new SplitMix64(0);
        assertEquals(0xE220A8397B1DCDAFL, r.nextLong());
        assertEquals(0x6E789E6AA1B965F4L, r.nextLong());
        assertEquals(0x06C45D188009454FL, r.nextLong());
    }

    @Test
    void permutationsEqualThoseThePythonOfTheJavadocComputes() {
        // Computed with the Python function in EpochSampler's javadoc (arbitrary-precision integers, no JVM).
        assertArrayEquals(new int[]{4, 9, 2, 5, 1, 7, 6, 0, 3, 8}, EpochSampler.permutation(10, 0, 0));
        assertArrayEquals(new int[]{9, 4, 0, 5, 2, 1, 6, 8, 3, 7}, EpochSampler.permutation(10, 0, 1));
        assertArrayEquals(new int[]{0, 3, 5, 7, 9, 8, 2, 1, 4, 6}, EpochSampler.permutation(10, 42, 0));
        assertArrayEquals(new int[]{2, 7, 12, 5, 0, 1, 15, 8, 4, 9, 11, 3, 14, 6, 13, 10},
                EpochSampler.permutation(16, -1, 7));
        assertArrayEquals(new int[]{0}, EpochSampler.permutation(1, 5, 3));
        assertArrayEquals(new int[0], EpochSampler.permutation(0, 5, 3));
    }

    @Test
    void theSameSeedAndEpochGiveTheSameOrderAndAnotherEpochOrSeedAnotherOne() {
        EpochSampler a = new EpochSampler(1000, 8, true, 7, true, 0, 1);
        EpochSampler b = new EpochSampler(1000, 8, true, 7, true, 0, 1);
        assertArrayEquals(a.epochOrder(3), b.epochOrder(3));
        assertArrayEquals(a.batch(3, 17), b.batch(3, 17));
        assertFalse(Arrays.equals(a.epochOrder(3), a.epochOrder(4)));
        assertFalse(Arrays.equals(a.epochOrder(3), new EpochSampler(1000, 8, true, 8, true, 0, 1).epochOrder(3)));
    }

    @Test
    void withoutShuffleEveryEpochIsInIndexOrder() {
        EpochSampler s = new EpochSampler(5, 2, false, 99, false, 0, 1);
        assertArrayEquals(new int[]{0, 1, 2, 3, 4}, s.epochOrder(0));
        assertArrayEquals(new int[]{0, 1, 2, 3, 4}, s.epochOrder(9));
        assertArrayEquals(new int[]{4}, s.batch(9, 2));
    }

    @Test
    void withoutDropLastTheOrderWrapsAroundAsTorchsDistributedSamplerPadsIt() {
        // torch: indices 0..9 padded to 12 with [0, 1]; rank 1 takes indices[1:12:4] = [1, 5, 9].
        EpochSampler s = new EpochSampler(10, 2, false, 0, false, 1, 4);
        assertEquals(3, s.samplesPerRank());
        assertEquals(2, s.batches());
        assertArrayEquals(new int[]{1, 5}, s.batch(0, 0));
        assertArrayEquals(new int[]{9}, s.batch(0, 1));
        EpochSampler last = new EpochSampler(10, 2, false, 0, false, 3, 4);
        assertArrayEquals(new int[]{3, 7}, last.batch(0, 0));
        assertArrayEquals(new int[]{1}, last.batch(0, 1));
    }

    @Test
    void withDropLastTheTailThatCannotFillABatchOnEveryRankIsLeftOut() {
        // 10 samples over 3 ranks: 3 each (sample order[9] is dropped), one batch of 2 each.
        int[] order = EpochSampler.permutation(10, 5, 2);
        for (int r = 0; r < 3; r++) {
            EpochSampler s = new EpochSampler(10, 2, true, 5, true, r, 3);
            assertEquals(3, s.samplesPerRank());
            assertEquals(1, s.batches());
            assertArrayEquals(new int[]{order[r], order[r + 3]}, s.batch(2, 0));
        }
    }

    @Test
    void resumingAtABatchYieldsTheBatchesOfTheUninterruptedRun() {
        EpochSampler run = new EpochSampler(103, 4, true, 11, false, 1, 3);
        List<int[]> uninterrupted = new ArrayList<>();
        for (int epoch = 0; epoch < 2; epoch++) {
            for (int i = 0; i < run.batches(); i++) {
                uninterrupted.add(run.batch(epoch, i));
            }
        }
        // A new process resumes at epoch 1, batch 5, after having computed nothing.
        EpochSampler resumed = new EpochSampler(103, 4, true, 11, false, 1, 3);
        int k = 5;
        for (int i = k; i < resumed.batches(); i++) {
            assertArrayEquals(uninterrupted.get(run.batches() + i), resumed.batch(1, i), "batch " + i);
        }
    }

    @Test
    void aBatchOutsideTheEpochNamesHowManyThereAre() {
        EpochSampler s = new EpochSampler(10, 4, false, 0, true, 0, 1);
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> s.batch(0, 2));
        assertEquals("batch 2 of epoch 0 on rank 0 of 1: there are 2 batches per epoch (10 samples, batch_size 4,"
                + " drop_last)", e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> s.batch(0, -1));
        IllegalArgumentException neg = assertThrows(IllegalArgumentException.class, () -> s.batch(-1, 0));
        assertEquals("epoch must be 0 or more, not -1", neg.getMessage());
    }

    @Test
    void argumentsOutOfRangeAreRejectedWithTheirValues() {
        assertEquals("rank 2 is not in [0, 2)", assertThrows(IllegalArgumentException.class,
                () -> new EpochSampler(10, 1, false, 0, false, 2, 2)).getMessage());
        assertEquals("batch_size must be at least 1, not 0", assertThrows(IllegalArgumentException.class,
                () -> new EpochSampler(10, 0, false, 0, false, 0, 1)).getMessage());
        assertEquals("world_size must be at least 1, not 0", assertThrows(IllegalArgumentException.class,
                () -> new EpochSampler(10, 1, false, 0, false, 0, 0)).getMessage());
        assertEquals("samples must be 0 or more, not -3", assertThrows(IllegalArgumentException.class,
                () -> new EpochSampler(-3, 1, false, 0, false, 0, 1)).getMessage());
    }

    @Test
    void fewerSamplesThanRanksGiveNoBatchesWithDropLastAndOnePaddedBatchWithout() {
        assertEquals(0, new EpochSampler(3, 1, true, 0, true, 0, 4).batches());
        EpochSampler padded = new EpochSampler(3, 2, true, 0, false, 3, 4);
        assertEquals(1, padded.batches());
        assertArrayEquals(new int[]{padded.epochOrder(0)[0]}, padded.batch(0, 0));
        assertTrue(padded.toString().contains("1 batches of 1 samples per epoch"), padded.toString());
    }
}
