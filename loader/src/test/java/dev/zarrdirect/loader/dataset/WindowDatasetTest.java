// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.dataset;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.core.store.memory.MemoryStore;
import dev.zarrdirect.loader.LoaderSpec;
import dev.zarrdirect.loader.TestGroups;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WindowDatasetTest {

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
    private static final List<String> TLEVLL = List.of("time", "level", "lat", "lon");

    /** A group with t2m [10, 4, 6] and u [10, 3, 4, 6], float32, named dimensions. */
    private static MemoryStore era5() {
        MemoryStore store = new MemoryStore();
        Zarr.createGroup(store, "", Map.of());
        TestGroups.v3(store, "t2m", DataType.FLOAT32, new long[]{10, 4, 6}, new long[]{2, 4, 6}, TLL, i -> 1);
        TestGroups.v3(store, "u", DataType.FLOAT32, new long[]{10, 3, 4, 6}, new long[]{2, 3, 4, 6}, TLEVLL, i -> 2);
        return store;
    }

    /** A spec over {@code variables} with the given window and range, channels from {@code channels}. */
    private static LoaderSpec spec(List<String> variables, Map<String, int[]> channels, String timeDim, int history,
                                   int future, int stride, long timeStart, long timeStop, long[] crop) {
        return new LoaderSpec("memory", variables, channels, timeDim, history, future, stride, 1, false, 0, false,
                timeStart, timeStop, crop, 0, 1, Map.of(), PlaneGather.Output.FLOAT32, null, 1);
    }

    private static LoaderSpec spec(List<String> variables) {
        return spec(variables, Map.of(), null, 1, 0, 1, 0, -1, null);
    }

    private static String error(MemoryStore store, LoaderSpec spec) {
        return assertThrows(IllegalArgumentException.class, () -> WindowDataset.open(ctx, store, spec)).getMessage();
    }

    @Test
    void variablesStackTheirSelectedChannelsInTheOrderGiven() {
        MemoryStore store = era5();
        Map<String, int[]> channels = new LinkedHashMap<>();
        channels.put("u", new int[]{2, 0});
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("u", "t2m"), channels, null, 1, 0, 1, 0, -1, null))) {
            assertEquals(List.of("u[2]", "u[0]", "t2m"), ds.channelNames());
            assertEquals(3, ds.channels());
            Variable u = ds.variables().get(0);
            Variable t2m = ds.variables().get(1);
            assertEquals(new Variable("u", u.array(), 0, 1, new int[]{2, 0}, 0), u);
            assertEquals(new Variable("t2m", t2m.array(), 0, -1, new int[]{0}, 2), t2m);
            assertEquals(DataType.FLOAT32, t2m.dataType());
            assertEquals(2, u.channel(0));
            assertEquals("u[0]", u.channelName(1));
            assertEquals("t2m", t2m.channelName(0));
            assertEquals(10, ds.timeSteps());
            assertEquals(4, ds.height());
            assertEquals(6, ds.width());
            assertArrayEquals(new long[]{0, 0}, ds.cropStart());
            assertEquals(t2m, ds.variable("t2m"));
        }
    }

    @Test
    void aVariableWithoutChannelSelectionGivesAllItsChannels() {
        try (WindowDataset ds = WindowDataset.open(ctx, era5(), spec(List.of("t2m", "u")))) {
            assertEquals(List.of("t2m", "u[0]", "u[1]", "u[2]"), ds.channelNames());
            assertEquals(1, ds.variable("u").firstOutputChannel());
        }
    }

    @Test
    void samplesAreEveryStartWhoseWholeWindowLiesInTheTimeRange() {
        // span (2 + 1 - 1) * 2 + 1 = 5 in [1, 9): starts 1, 2, 3, 4
        try (WindowDataset ds = WindowDataset.open(ctx, era5(), spec(List.of("t2m"), Map.of(), null, 2, 1, 2, 1, 9, null))) {
            assertEquals(5, ds.span());
            assertEquals(4, ds.sampleCount());
            assertEquals(1, ds.sampleStart(0));
            assertEquals(4, ds.sampleStart(3));
            assertArrayEquals(new long[]{4, 6}, ds.inputSteps(4));
            assertArrayEquals(new long[]{8}, ds.targetSteps(4));
            assertEquals("sample 4 is not in [0, 4): the time range [1, 9) holds 4 windows of 5 steps",
                    assertThrows(IndexOutOfBoundsException.class, () -> ds.sampleStart(4)).getMessage());
            assertEquals("time index 5 does not start a sample: samples start at [1, 5)",
                    assertThrows(IllegalArgumentException.class, () -> ds.inputSteps(5)).getMessage());
        }
    }

    @Test
    void theTimeRangeRunsToTheEndOfTheAxisWhenItsStopIsMinusOne() {
        try (WindowDataset ds = WindowDataset.open(ctx, era5(), spec(List.of("t2m"), Map.of(), null, 3, 0, 1, 2, -1, null))) {
            assertEquals(10, ds.timeStop());
            assertEquals(6, ds.sampleCount());
            assertArrayEquals(new long[]{7, 8, 9}, ds.inputSteps(ds.sampleStart(5)));
            assertArrayEquals(new long[0], ds.targetSteps(7));
        }
    }

    @Test
    void theTimeAxisIsTheDimensionNamedTimeWhereverItIs() {
        MemoryStore store = new MemoryStore();
        Zarr.createGroup(store, "", Map.of());
        TestGroups.v3(store, "q", DataType.FLOAT64, new long[]{3, 8, 4, 6}, new long[]{3, 1, 4, 6},
                List.of("level", "time", "lat", "lon"), i -> 0);
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("q")))) {
            Variable q = ds.variable("q");
            assertEquals(1, q.timeAxis());
            assertEquals(0, q.channelAxis());
            assertEquals(8, ds.timeSteps());
            assertEquals(new Selection(new long[]{1, 5, 0, 0}, new long[]{3, 7, 4, 6}), ds.selection(q, 5, 7, 1, 3));
        }
    }

    @Test
    void zarrV2ArraysNameTheirDimensionsInTheArrayDimensionsAttribute() {
        MemoryStore store = new MemoryStore();
        Zarr.createGroupV2(store, "", Map.of());
        TestGroups.v2(store, "u", DataType.FLOAT32, new long[]{2, 7, 4, 6}, new long[]{1, 7, 4, 6},
                List.of("channel", "time", "latitude", "longitude"), i -> 0);
        TestGroups.v2(store, "t2m", DataType.FLOAT64, new long[]{7, 4, 6}, new long[]{7, 4, 6},
                List.of("time", "latitude", "longitude"), i -> 0);
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("u", "t2m")))) {
            assertEquals(1, ds.variable("u").timeAxis());
            assertEquals(0, ds.variable("u").channelAxis());
            assertEquals(DataType.FLOAT64, ds.variable("t2m").dataType());
            assertEquals(List.of("u[0]", "u[1]", "t2m"), ds.channelNames());
        }
    }

    @Test
    void timeDimTakesADimensionNameOrAnAxisIndex() {
        MemoryStore store = new MemoryStore();
        Zarr.createGroup(store, "", Map.of());
        TestGroups.v3(store, "z", DataType.FLOAT32, new long[]{3, 5, 4, 6}, new long[]{3, 5, 4, 6},
                List.of("valid_time", "step", "lat", "lon"), i -> 0);
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("z"), Map.of(), "step", 1, 0, 1, 0, -1, null))) {
            assertEquals(1, ds.variable("z").timeAxis());
            assertEquals(5, ds.timeSteps());
        }
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("z"), Map.of(), "1", 1, 0, 1, 0, -1, null))) {
            assertEquals(1, ds.variable("z").timeAxis());
        }
        // no dimension is called time: axis 0
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("z")))) {
            assertEquals(0, ds.variable("z").timeAxis());
            assertEquals(3, ds.timeSteps());
        }
        assertEquals("variable \"z\" has no dimension named \"time\": the dimensions of array \"/z\" in " + store
                        + " are [valid_time, step, lat, lon]; give one of them or an axis index as time_dim",
                error(store, spec(List.of("z"), Map.of(), "time", 1, 0, 1, 0, -1, null)));
        assertEquals("time_dim 4 is not an axis of variable \"z\": array \"/z\" in " + store
                        + " has rank 4 (dimensions [valid_time, step, lat, lon])",
                error(store, spec(List.of("z"), Map.of(), "4", 1, 0, 1, 0, -1, null)));
        assertTrue(error(store, spec(List.of("z"), Map.of(), "2", 1, 0, 1, 0, -1, null))
                .contains("is axis 2, one of the last two, which must be latitude and longitude"));
    }

    @Test
    void aTimeDimNameNeedsDimensionNames() {
        MemoryStore store = new MemoryStore();
        Zarr.createGroup(store, "", Map.of());
        TestGroups.v3(store, "t2m", DataType.FLOAT32, new long[]{3, 4, 6}, new long[]{3, 4, 6}, null, i -> 0);
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("t2m")))) {
            assertEquals(0, ds.variable("t2m").timeAxis());
        }
        assertEquals("time_dim \"time\" cannot be found in variable \"t2m\": array \"/t2m\" in " + store + " has no"
                        + " dimension names (neither v3 dimension_names nor a v2 _ARRAY_DIMENSIONS attribute); give"
                        + " time_dim as an axis index instead, such as 0",
                error(store, spec(List.of("t2m"), Map.of(), "time", 1, 0, 1, 0, -1, null)));
    }

    @Test
    void anUnknownVariableIsNamedWithTheMembersOfTheGroup() {
        MemoryStore store = era5();
        assertEquals("no variable \"v10\" in " + store + "; the group has [t2m, u]", error(store, spec(List.of("t2m", "v10"))));
    }

    @Test
    void aChannelOutOfRangeNamesTheVariableTheIndexAndTheCount() {
        MemoryStore store = era5();
        assertEquals("channel 3 of variable \"u\" is out of range: array \"/u\" in " + store + " has 3 channels along"
                        + " axis 1 (level), indices 0 to 2",
                error(store, spec(List.of("u"), Map.of("u", new int[]{0, 3}), null, 1, 0, 1, 0, -1, null)));
        assertTrue(error(store, spec(List.of("t2m"), Map.of("t2m", new int[]{1}), null, 1, 0, 1, 0, -1, null))
                .startsWith("channels [1] are selected of variable \"t2m\", which has no channel axis"));
    }

    @Test
    void variablesWhoseTimeOrPlaneDifferAreNamedWithBothShapes() {
        MemoryStore store = era5();
        TestGroups.v3(store, "short", DataType.FLOAT32, new long[]{9, 4, 6}, new long[]{9, 4, 6}, TLL, i -> 0);
        TestGroups.v3(store, "wide", DataType.FLOAT32, new long[]{10, 4, 7}, new long[]{10, 4, 7}, TLL, i -> 0);
        assertEquals("variables \"u\" and \"short\" have different time axes: array \"/u\" in " + store
                        + " has shape [10, 3, 4, 6], 10 steps along axis 0; array \"/short\" in " + store
                        + " has shape [9, 4, 6], 9 steps along axis 0",
                error(store, spec(List.of("u", "short"))));
        assertEquals("variables \"t2m\" and \"wide\" have different lat/lon planes: array \"/t2m\" in " + store
                        + " has shape [10, 4, 6] (plane [4, 6]); array \"/wide\" in " + store
                        + " has shape [10, 4, 7] (plane [4, 7])",
                error(store, spec(List.of("t2m", "wide"))));
    }

    @Test
    void aWindowLongerThanTheTimeRangeSaysBothLengths() {
        MemoryStore store = era5();
        assertEquals("no sample fits: a window spans 7 time steps ((history 2 + future 2 - 1) * stride 2 + 1) but"
                        + " time_range [4, 10) holds only 6 of array \"/t2m\" in " + store
                        + "; shorten the window or widen the time range",
                error(store, spec(List.of("t2m"), Map.of(), null, 2, 2, 2, 4, -1, null)));
    }

    @Test
    void aTimeRangeBeyondTheAxisIsRefused() {
        MemoryStore store = era5();
        assertEquals("time_range [0, 11) is not within the time axis of 10 steps of variable \"t2m\" (array \"/t2m\" in "
                + store + ")", error(store, spec(List.of("t2m"), Map.of(), null, 1, 0, 1, 0, 11, null)));
        assertTrue(error(store, spec(List.of("t2m"), Map.of(), null, 1, 0, 1, 10, -1, null))
                .startsWith("time_range [10, end) is not within the time axis of 10 steps"));
    }

    @Test
    void aCropSelectsPartOfThePlaneAndOneOutsideItIsRefused() {
        MemoryStore store = era5();
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("u"), Map.of(), null, 1, 0, 1, 0, -1,
                new long[]{1, 3, 2, 6}))) {
            assertEquals(2, ds.height());
            assertEquals(4, ds.width());
            assertArrayEquals(new long[]{1, 2}, ds.cropStart());
            assertEquals(new Selection(new long[]{3, 0, 1, 2}, new long[]{5, 3, 3, 6}),
                    ds.selection(ds.variable("u"), 3, 5, 0, 3));
        }
        assertEquals("crop [1, 3) x [2, 7) lies outside the lat/lon plane [4, 6] of variable \"t2m\" (array \"/t2m\" in "
                + store + ")", error(store, spec(List.of("t2m"), Map.of(), null, 1, 0, 1, 0, -1, new long[]{1, 3, 2, 7})));
    }

    @Test
    void onlyFloatVariablesOfRankThreeOrFourAreRead() {
        MemoryStore store = era5();
        TestGroups.v3(store, "mask", DataType.INT16, new long[]{10, 4, 6}, new long[]{10, 4, 6}, TLL, i -> 1);
        TestGroups.v3(store, "orography", DataType.FLOAT32, new long[]{4, 6}, new long[]{4, 6}, null, i -> 1);
        assertEquals("variable \"mask\" (array \"/mask\" in " + store + ") holds int16; the loader reads float32 and"
                + " float64 variables only", error(store, spec(List.of("mask"))));
        assertEquals("variable \"orography\" (array \"/orography\" in " + store + ") has shape [4, 6] of rank 2; the"
                        + " loader reads arrays of rank 3 [time, lat, lon] or 4 [time, channel or level, lat, lon]",
                error(store, spec(List.of("orography"))));
    }

    @Test
    void aVariableListedTwiceOrAGroupIsRefused() {
        MemoryStore store = era5();
        Zarr.createGroup(store, "atmos", Map.of());
        TestGroups.v3(store, "atmos/q", DataType.FLOAT32, new long[]{10, 4, 6}, new long[]{10, 4, 6}, TLL, i -> 1);
        assertTrue(error(store, spec(List.of("t2m", "t2m"))).startsWith("variable \"t2m\" is listed twice"));
        assertEquals("variable \"atmos\" is a group in " + store + ", not an array; its members are [q]",
                error(store, spec(List.of("atmos"))));
        try (WindowDataset ds = WindowDataset.open(ctx, store, spec(List.of("atmos/q", "t2m")))) {
            assertEquals(List.of("atmos/q", "t2m"), ds.channelNames());
        }
    }

    @Test
    void openingByPathOpensTheStoreAndClosingTwiceIsHarmless(@TempDir Path dir) {
        Path root = dir.resolve("era5.zarr");
        try (FileSystemStore store = FileSystemStore.create(root)) {
            Zarr.createGroup(store, "", Map.of());
            TestGroups.v3(store, "t2m", DataType.FLOAT32, new long[]{4, 2, 3}, new long[]{1, 2, 3}, TLL, i -> 1);
        }
        LoaderSpec spec = new LoaderSpec(root.toString(), List.of("t2m"), Map.of(), null, 2, 1, 1, 1, false, 0, false,
                0, -1, null, 0, 1, Map.of(), PlaneGather.Output.FLOAT32, null, 1);
        WindowDataset ds = WindowDataset.open(ctx, spec);
        assertEquals(2, ds.sampleCount());
        assertTrue(ds.store() instanceof FileSystemStore);
        ds.close();
        ds.close();
    }
}
