// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.Codecs;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.loader.dataset.WindowDataset;
import dev.zarrdirect.loader.stats.ChannelStatistics;
import dev.zarrdirect.loader.stats.StatsFile;
import dev.zarrdirect.loader.stats.StatsListener;
import dev.zarrdirect.spark.LocalSpark;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SparkStatsTest {

    private static final long SEED = 20261127L;

    @TempDir
    static Path dir;
    static Path group;

    /**
     * {@code t2m} float32 [20, 6, 8] in time chunks of 4, {@code u} float64 [20, 3, 6, 8] in chunks of
     * [5, 1, 6, 8]: values near 10^4 with noise of 1, so a lost digit shows, and a share of NaNs.
     */
    @BeforeAll
    static void writeGroup() {
        group = dir.resolve("g.zarr");
        SplittableRandom r = new SplittableRandom(SEED);
        try (Store s = FileSystemStore.create(group); ZarrGroup g = Zarr.createGroup(s, "", Map.of())) {
            write(g, "t2m", DataType.FLOAT32, new long[]{20, 6, 8}, new long[]{4, 6, 8}, r,
                    List.of("time", "latitude", "longitude"));
            write(g, "u", DataType.FLOAT64, new long[]{20, 3, 6, 8}, new long[]{5, 1, 6, 8}, r,
                    List.of("time", "level", "latitude", "longitude"));
        }
    }

    private static void write(ZarrGroup g, String name, DataType type, long[] shape, long[] chunks, SplittableRandom r,
                              List<String> dims) {
        ArrayMetadata md = ArrayMetadata.builder(shape, type).chunks(chunks).compressors(Codecs.zstd(1))
                .fillValue(Double.NaN).dimensionNames(dims.toArray(new String[0])).build();
        try (ZarrArray a = g.createArray(name, md); Tensor t = Tensor.allocateHost(type, shape)) {
            for (long i = 0; i < t.elementCount(); i++) {
                double v = r.nextDouble() < 0.03 ? Double.NaN : 10_000 + r.nextDouble(-1, 1);
                if (type.equals(DataType.FLOAT32)) {
                    t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v);
                } else {
                    t.segment().setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
                }
            }
            a.write(t);
        }
    }

    private static int run(StringWriter out, StringWriter err, String... args) {
        return ZarrDirectSpark.run(LocalSpark.session(), new PrintWriter(out), new PrintWriter(err), args);
    }

    /** What zarr-direct stats computes on one machine for the same options. */
    private static StatsFile singleMachine(StatsRequest request) {
        try (ZarrContext ctx = ZarrContext.open("cpu"); WindowDataset ds = WindowDataset.open(ctx, request.spec())) {
            return ChannelStatistics.compute(ds, StatsListener.NONE);
        }
    }

    @Test
    void distributedStatisticsEqualTheSingleMachineOnesWithinRounding() {
        Path output = dir.resolve("stats.json");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = run(out, err, "stats", group.toString(), "--variables", "t2m,u", "--channels", "u=2,0", "--time-range", "3:17",
                "-o", output.toString(), "--task-bytes", "2000");
        assertEquals(0, code, err.toString());
        StatsFile spark = StatsFile.read(output);
        StatsFile single = singleMachine(new StatsRequest(group.toString(), "cpu", List.of("t2m", "u"),
                Map.of("u", new int[]{2, 0}), null, 3, 17));
        assertEquals(single.timeStart(), spark.timeStart());
        assertEquals(single.timeStop(), spark.timeStop());
        assertEquals(single.variables().keySet(), spark.variables().keySet());
        single.variables().forEach((name, expected) -> {
            StatsFile.VariableStats actual = spark.variables().get(name);
            assertArrayEquals(expected.channels(), actual.channels(), name);
            assertArrayEquals(expected.count(), actual.count(), name);
            assertArrayEquals(expected.nanCount(), actual.nanCount(), name);
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.mean()[i], actual.mean()[i], 1e-9 * Math.abs(expected.mean()[i]), name + " mean " + i);
                assertEquals(expected.std()[i], actual.std()[i], 1e-9 * expected.std()[i], name + " std " + i);
            }
        });
        assertTrue(out.toString().contains("u[2]"), out.toString());
        java.util.regex.Matcher tasks = java.util.regex.Pattern.compile("in (\\d+) task\\(s\\)").matcher(out.toString());
        assertTrue(tasks.find(), out.toString());
        // t2m: steps 3..17 in time chunks of 4 (one plane of 192 bytes fits 2000 bytes ten times): 4 blocks;
        // u: channels 0 and 2 sit in chunks of their own, so 2 groups per block
        assertTrue(Integer.parseInt(tasks.group(1)) >= 8, out.toString());
    }

    @Test
    void aBadTimeRangeIsAUsageErrorWithTheCliMessage() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = run(out, err, "stats", group.toString(), "--variables", "t2m", "--time-range", "9:2");
        assertEquals(2, code);
        assertTrue(err.toString().contains("--time-range \"9:2\" is not A:B"), err.toString());
    }

    @Test
    void anUnknownVariableIsAUsageErrorNamingWhatTheGroupHas() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = run(out, err, "stats", group.toString(), "--variables", "t2m,v");
        assertEquals(2, code);
        assertTrue(err.toString().contains("no variable \"v\""), err.toString());
    }
}
