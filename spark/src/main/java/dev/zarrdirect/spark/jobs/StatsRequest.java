// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.loader.LoaderSpec;

import java.io.Serial;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The options of a statistics run, as plain values that travel to the executors, and the loader's
 * spec they stand for (the same one {@code zarr-direct stats} builds: a one-step window over the time
 * range, so every step counts). Each side opens the dataset from it.
 *
 * @param location  the group's location
 * @param backend   the backend to read with
 * @param variables the variables
 * @param channels  the selected channels of some variables
 * @param timeDim   the time dimension by name or index, or null
 * @param timeStart the first step
 * @param timeStop  the step past the last, or -1 for the end of the axis
 */
record StatsRequest(String location, String backend, List<String> variables, Map<String, int[]> channels,
                    String timeDim, long timeStart, long timeStop) implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    StatsRequest {
        variables = List.copyOf(variables);
        channels = new LinkedHashMap<>(channels);
    }

    /** The loader's spec, checked as the loader checks it. */
    LoaderSpec spec() {
        return new LoaderSpec(location, variables, channels, timeDim, 1, 0, 1, 1, false, 0, false, timeStart, timeStop,
                null, 0, 1, Map.of(), PlaneGather.Output.FLOAT32, null, 1);
    }
}
