// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.sampling;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EpochSamplerProperties {

    /** Every batch of every rank of one epoch, rank by rank. */
    private static List<List<int[]>> epoch(int n, int batch, boolean dropLast, long seed, int epoch, int world) {
        List<List<int[]>> ranks = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            EpochSampler s = new EpochSampler(n, batch, true, seed, dropLast, r, world);
            List<int[]> batches = new ArrayList<>();
            for (int i = 0; i < s.batches(); i++) {
                batches.add(s.batch(epoch, i));
            }
            ranks.add(batches);
        }
        return ranks;
    }

    @Property(tries = 200)
    void anEpochOrderIsAPermutation(@ForAll @IntRange(max = 2000) int n, @ForAll long seed,
                                    @ForAll @IntRange(max = 1000) int epoch) {
        int[] order = EpochSampler.permutation(n, seed, epoch);
        boolean[] seen = new boolean[n];
        for (int i : order) {
            assertTrue(i >= 0 && i < n && !seen[i], "index " + i + " of " + n);
            seen[i] = true;
        }
        assertEquals(n, order.length);
    }

    @Property(tries = 300)
    void withDropLastRanksGetDisjointSamplesAndFullBatchesOfTheSameCount(
            @ForAll @IntRange(max = 500) int n, @ForAll @IntRange(min = 1, max = 9) int batch,
            @ForAll @IntRange(min = 1, max = 8) int world, @ForAll long seed, @ForAll @IntRange(max = 50) int epoch) {
        List<List<int[]>> ranks = epoch(n, batch, true, seed, epoch, world);
        Set<Integer> seen = new HashSet<>();
        int expectedBatches = n / world / batch;
        for (List<int[]> rank : ranks) {
            assertEquals(expectedBatches, rank.size());
            for (int[] b : rank) {
                assertEquals(batch, b.length);
                for (int i : b) {
                    assertTrue(i >= 0 && i < n);
                    assertTrue(seen.add(i), "sample " + i + " on two ranks or twice");
                }
            }
        }
        // only what cannot fill one more batch on every rank is left out
        assertEquals(n / (world * batch) * world * batch, seen.size());
    }

    @Property(tries = 300)
    void withoutDropLastRanksCoverEverySampleWithLessThanOneSamplePerRankRepeated(
            @ForAll @IntRange(min = 1, max = 500) int n, @ForAll @IntRange(min = 1, max = 9) int batch,
            @ForAll @IntRange(min = 1, max = 8) int world, @ForAll long seed, @ForAll @IntRange(max = 50) int epoch) {
        List<List<int[]>> ranks = epoch(n, batch, false, seed, epoch, world);
        int perRank = (n + world - 1) / world;
        int expectedBatches = (perRank + batch - 1) / batch;
        Map<Integer, Integer> times = new HashMap<>();
        for (List<int[]> rank : ranks) {
            assertEquals(expectedBatches, rank.size());
            int total = 0;
            for (int k = 0; k < rank.size(); k++) {
                int[] b = rank.get(k);
                assertEquals(k < rank.size() - 1 ? batch : perRank - batch * (expectedBatches - 1), b.length);
                total += b.length;
                for (int i : b) {
                    times.merge(i, 1, Integer::sum);
                }
            }
            assertEquals(perRank, total);
        }
        assertEquals(n, times.size());
        int repeats = perRank * world - n;
        assertTrue(repeats < world);
        assertEquals(repeats, times.values().stream().mapToInt(t -> t - 1).sum());
    }

    @Property(tries = 100)
    void aBatchIsTheSameWhicheverBatchesWereAskedBefore(
            @ForAll @IntRange(min = 1, max = 300) int n, @ForAll @IntRange(min = 1, max = 9) int batch,
            @ForAll @IntRange(min = 1, max = 4) int world, @ForAll long seed, @ForAll boolean dropLast,
            @ForAll @IntRange(max = 20) int epoch) {
        int rank = Math.floorMod(seed, world);
        EpochSampler fresh = new EpochSampler(n, batch, true, seed, dropLast, rank, world);
        EpochSampler used = new EpochSampler(n, batch, true, seed, dropLast, rank, world);
        for (int i = 0; i < used.batches(); i++) {
            used.batch(epoch + 1, i);
        }
        for (int i = fresh.batches() - 1; i >= 0; i--) {
            assertArrayEquals(fresh.batch(epoch, i), used.batch(epoch, i));
        }
    }
}
