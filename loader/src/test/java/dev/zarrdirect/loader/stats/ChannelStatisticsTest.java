// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.stats;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.store.memory.MemoryStore;
import dev.zarrdirect.loader.LoaderSpec;
import dev.zarrdirect.loader.TestGroups;
import dev.zarrdirect.loader.dataset.WindowDataset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChannelStatisticsTest {

    private static final long SEED = 20240611L;
    private static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 1);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    private static final List<String> TLL = List.of("time", "lat", "lon");
    private static final List<String> TCLL = List.of("time", "channel", "lat", "lon");

    /** Values of an array of {@code shape} in C order: {@code offset + scale * uniform(-1, 1)}, a share of them NaN. */
    private static double[] random(long[] shape, double offset, double scale, double nanShare, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] v = new double[Math.toIntExact(dev.zarrdirect.api.Tensor.elementCount(shape))];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextDouble() < nanShare ? Double.NaN : offset + scale * r.nextDouble(-1, 1);
        }
        return v;
    }

    private static TestGroups.Values of(double[] values, long[] shape) {
        return index -> {
            long flat = 0;
            for (int d = 0; d < shape.length; d++) {
                flat = flat * shape[d] + index[d];
            }
            return values[(int) flat];
        };
    }

    /** Population mean and std, count and NaNs of one channel by plain two-pass double arithmetic. */
    private record Expected(double mean, double std, long count, long nans) {
    }

    /**
     * The reference statistics of channel {@code c} of {@code values}, an array of shape
     * {@code [T, C, H, W]} (C = 1 for a 3-d array), over steps [t0, t1) and rows [y0, y1), columns [x0, x1).
     */
    private static Expected expected(double[] values, long[] shape4, boolean f32, int c, int t0, int t1, int y0,
                                     int y1, int x0, int x1) {
        List<Double> seen = new ArrayList<>();
        long nans = 0;
        int cs = (int) shape4[1];
        int h = (int) shape4[2];
        int w = (int) shape4[3];
        for (int t = t0; t < t1; t++) {
            for (int y = y0; y < y1; y++) {
                for (int x = x0; x < x1; x++) {
                    double v = values[((t * cs + c) * h + y) * w + x];
                    v = f32 ? (double) (float) v : v;
                    if (Double.isNaN(v)) {
                        nans++;
                    } else {
                        seen.add(v);
                    }
                }
            }
        }
        double sum = 0;
        for (double v : seen) {
            sum += v;
        }
        double mean = sum / seen.size();
        double sq = 0;
        for (double v : seen) {
            sq += (v - mean) * (v - mean);
        }
        return new Expected(mean, Math.sqrt(sq / seen.size()), seen.size(), nans);
    }

    private static void assertClose(double expected, double actual, double relative, String what) {
        assertTrue(Math.abs(expected - actual) <= relative * Math.abs(expected),
                what + ": expected " + expected + ", got " + actual + " (seed " + SEED + ")");
    }

    private static void assertMatches(Expected e, StatsFile.VariableStats s, int entry, double relative, String what) {
        assertClose(e.mean(), s.mean()[entry], relative, what + " mean");
        assertClose(e.std(), s.std()[entry], relative, what + " std");
        assertEquals(e.count(), s.count()[entry], what + " count");
        assertEquals(e.nans(), s.nanCount()[entry], what + " nan_count");
    }

    private static LoaderSpec spec(List<String> variables, Map<String, int[]> channels, long t0, long t1, long[] crop) {
        return new LoaderSpec("memory:test", variables, channels, null, 1, 0, 1, 1, false, 0, false, t0, t1, crop, 0, 1,
                Map.of(), PlaneGather.Output.FLOAT32, null, 1);
    }

    @Test
    void meansAndStandardDeviationsEqualPlainDoubleArithmeticOnRandomDataWithNaNs() {
        long[] uShape = {12, 3, 5, 7};
        long[] tShape = {12, 5, 7};
        double[] u = random(uShape, 3, 10, 0.1, SEED);
        double[] t2m = random(tShape, 280, 20, 0.05, SEED + 1);
        MemoryStore store = new MemoryStore();
        Zarr.createGroup(store, "", Map.of());
        // channels 0 and 1 share a chunk along the channel axis, time chunks of 2
        TestGroups.v3(store, "u", DataType.FLOAT32, uShape, new long[]{2, 2, 5, 7}, TCLL, of(u, uShape));
        TestGroups.v3(store, "t2m", DataType.FLOAT64, tShape, new long[]{5, 5, 7}, TLL, of(t2m, tShape));
        long[] crop = {1, 4, 2, 7};
        LoaderSpec spec = spec(List.of("u", "t2m"), Map.of("u", new int[]{2, 0}), 2, 11, crop);
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec)) {
            // a budget of 2 float32 planes forces many reads; the default reads each block at once
            for (long budget : new long[]{2 * 3 * 5 * 4, ChannelStatistics.DEFAULT_READ_BYTES}) {
                StatsFile stats = ChannelStatistics.compute(ds, budget, StatsListener.NONE);
                assertEquals("memory:test", stats.store());
                assertEquals(2, stats.timeStart());
                assertEquals(11, stats.timeStop());
                assertEquals(List.of("u", "t2m"), List.copyOf(stats.variables().keySet()));
                StatsFile.VariableStats us = stats.variables().get("u");
                assertArrayEquals(new int[]{0, 2}, us.channels());
                assertMatches(expected(u, uShape, true, 0, 2, 11, 1, 4, 2, 7), us, 0, 1e-12, "u[0] budget " + budget);
                assertMatches(expected(u, uShape, true, 2, 2, 11, 1, 4, 2, 7), us, 1, 1e-12, "u[2] budget " + budget);
                StatsFile.VariableStats ts = stats.variables().get("t2m");
                assertEquals(null, ts.channels());
                assertMatches(expected(t2m, new long[]{12, 1, 5, 7}, false, 0, 2, 11, 1, 4, 2, 7), ts, 0, 1e-12,
                        "t2m budget " + budget);
            }
        }
    }

    @Test
    void channelsSummarisedOnManyThreadsGiveTheSameBitsAsOnOne() {
        long[] shape = {9, 7, 6, 5};
        double[] v = random(shape, 250, 40, 0.02, SEED + 9);
        MemoryStore store = new MemoryStore();
        Zarr.createGroup(store, "", Map.of());
        TestGroups.v3(store, "v", DataType.FLOAT32, shape, new long[]{2, 3, 6, 5}, TCLL, of(v, shape));
        LoaderSpec spec = spec(List.of("v"), Map.of(), 0, -1, null);
        StatsFile.VariableStats one;
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec)) {
            one = ChannelStatistics.compute(ds, 3 * 7 * 6 * 5 * 4, StatsListener.NONE).variables().get("v");
        }
        try (ZarrContext many = ZarrContext.open("cpu", 4); WindowDataset ds = WindowDataset.open(many, store, spec)) {
            StatsFile.VariableStats four = ChannelStatistics.compute(ds, 3 * 7 * 6 * 5 * 4, StatsListener.NONE)
                    .variables().get("v");
            assertArrayEquals(one.mean(), four.mean(), 0.0, "means, bit for bit");
            assertArrayEquals(one.std(), four.std(), 0.0, "stds, bit for bit");
            assertArrayEquals(one.count(), four.count());
            assertArrayEquals(one.nanCount(), four.nanCount());
        }
        for (int c = 0; c < 7; c++) {
            assertMatches(expected(v, shape, true, c, 0, 9, 0, 6, 0, 5), one, c, 1e-12, "v[" + c + "]");
        }
    }

    @Test
    void dataFarFromZeroKeepsItsSmallVariance() {
        // float32 near 1e4 with noise of 1e-2, and float64 near 1e8 with noise of 1: E[x²] − E[x]² would
        // lose every digit of these variances.
        long[] fShape = {30, 1, 6, 6};
        long[] dShape = {30, 6, 6};
        double[] f = random(fShape, 1e4, 1e-2, 0, SEED + 2);
        double[] d = random(dShape, 1e8, 1, 0, SEED + 3);
        MemoryStore store = new MemoryStore();
        Zarr.createGroup(store, "", Map.of());
        TestGroups.v3(store, "sp", DataType.FLOAT32, fShape, new long[]{4, 1, 6, 6}, TCLL, of(f, fShape));
        TestGroups.v3(store, "z", DataType.FLOAT64, dShape, new long[]{3, 6, 6}, TLL, of(d, dShape));
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("sp", "z"), Map.of(), 0, -1, null))) {
            StatsFile stats = ChannelStatistics.compute(ds, 6 * 6 * 8 * 2, StatsListener.NONE);
            Expected fe = expected(f, fShape, true, 0, 0, 30, 0, 6, 0, 6);
            Expected de = expected(d, new long[]{30, 1, 6, 6}, false, 0, 0, 30, 0, 6, 0, 6);
            assertMatches(fe, stats.variables().get("sp"), 0, 1e-9, "sp");
            assertMatches(de, stats.variables().get("z"), 0, 1e-9, "z");
            assertClose(1 / Math.sqrt(3), de.std(), 0.05, "the noise of z");
        }
    }

    @Test
    void aChannelOfChunksNeverWrittenCountsOnlyNaNs() {
        MemoryStore store = new MemoryStore();
        Zarr.createGroup(store, "", Map.of());
        TestGroups.v3Unwritten(store, "sst", DataType.FLOAT32, new long[]{5, 2, 3}, new long[]{1, 2, 3}, TLL);
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("sst"), Map.of(), 1, 4, null))) {
            StatsFile.VariableStats s = ChannelStatistics.compute(ds, StatsListener.NONE).variables().get("sst");
            assertEquals(0, s.count()[0]);
            assertEquals(3 * 2 * 3, s.nanCount()[0]);
            assertTrue(Double.isNaN(s.mean()[0]));
            assertTrue(Double.isNaN(s.std()[0]));
        }
    }

    @Test
    void progressCountsStepsOfEveryVariableUpToTheTotal() {
        MemoryStore store = new MemoryStore();
        Zarr.createGroup(store, "", Map.of());
        TestGroups.v3(store, "a", DataType.FLOAT32, new long[]{8, 2, 2}, new long[]{2, 2, 2}, TLL, i -> i[0]);
        TestGroups.v3(store, "b", DataType.FLOAT32, new long[]{8, 2, 2, 2}, new long[]{1, 2, 2, 2}, TCLL, i -> i[1]);
        List<long[]> calls = new ArrayList<>();
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("a", "b"), Map.of(), 1, 8, null))) {
            StatsFile stats = ChannelStatistics.compute(ds, 2 * 2 * 4 * 2, (done, total, bytes) -> calls.add(new long[]{done, total, bytes}));
            assertEquals(4, stats.variables().get("a").mean()[0], 1e-12);
            assertArrayEquals(new double[]{0, 1}, stats.variables().get("b").mean());
            assertArrayEquals(new double[]{0, 0}, stats.variables().get("b").std());
        }
        long[] last = calls.getLast();
        assertEquals(14, last[0]);
        assertEquals(14, last[1]);
        // 7 steps of 4 float32 values of a, and 7 steps of 2 channels of 4 float32 values of b
        assertEquals(7 * 16 + 7 * 32, last[2]);
        for (int i = 1; i < calls.size(); i++) {
            assertTrue(calls.get(i)[0] > calls.get(i - 1)[0] && calls.get(i)[2] > calls.get(i - 1)[2]);
        }
        // a: budget of 2 steps, blocks aligned to its time chunks of 2: [1,2) [2,4) [4,6) [6,8)
        assertArrayEquals(new long[]{1, 3, 5, 7}, calls.subList(0, 4).stream().mapToLong(c -> c[0]).toArray());
    }

    @Test
    void channelsAreReadTogetherWhenAdjacentOrInOneChunkUpToTheBudget() {
        List<int[]> groups = ChannelStatistics.channelGroups(new int[]{0, 1, 2, 5, 7, 9, 16}, 8, 4);
        assertEquals("[[0, 3], [5, 8], [9, 10], [16, 17]]",
                groups.stream().map(java.util.Arrays::toString).toList().toString());
        assertEquals("[[0, 2], [2, 3], [5, 6]]", ChannelStatistics.channelGroups(new int[]{0, 1, 2, 5}, 1, 2).stream()
                .map(java.util.Arrays::toString).toList().toString());
    }
}
