// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader;

import dev.zarrdirect.api.backend.PlaneGather;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything that defines what a loader delivers: which variables and channels, which time windows,
 * in which order on which rank, normalized how, as what type. The same fields, under the same
 * snake_case names, are what the Python {@code ZarrLoader} sends the loader server
 * (see {@code docs/loader-protocol.md}).
 *
 * @param path       the store (a directory, zip file or URL) whose root group holds the variables;
 *                   a variable is an array path relative to that root
 * @param variables  the arrays, in channel order
 * @param channels   per variable, the indices along its channel axis to take, in order; a variable
 *                   absent here contributes all its channels (a variable without a channel axis is one)
 * @param timeDim    the time axis: a dimension name, a decimal index, or null to look for a
 *                   dimension named {@code time} (then axis 0)
 * @param history    input steps per sample (≥ 1)
 * @param future     target steps per sample (≥ 0)
 * @param stride     time steps between consecutive steps of a sample (≥ 1)
 * @param batchSize  samples per batch
 * @param shuffle    whether each epoch has its own permutation
 * @param seed       the permutation's seed
 * @param dropLast   whether a last partial batch is dropped
 * @param timeStart  first time index of the range (inclusive)
 * @param timeStop   end of the range (exclusive); -1 for the end of the axis
 * @param crop       null, or {@code {y0, y1, x0, x1}} half-open on the last two axes
 * @param rank       this rank
 * @param worldSize  number of ranks
 * @param normalize  per variable, one mean/std pair per selected channel; empty for none
 * @param dtype      the output element type
 * @param nanValue   null to keep NaNs, or the value (in output units) that replaces them
 * @param prefetch   batches assembled ahead of the consumer
 */
public record LoaderSpec(String path, List<String> variables, Map<String, int[]> channels, String timeDim,
                         int history, int future, int stride, int batchSize, boolean shuffle, long seed,
                         boolean dropLast, long timeStart, long timeStop, long[] crop, int rank, int worldSize,
                         Map<String, Normalization> normalize, PlaneGather.Output dtype, Float nanValue,
                         int prefetch) {

    /** Mean and standard deviation, one each per selected channel of a variable. */
    public record Normalization(double[] mean, double[] std) {
        public Normalization {
            if (mean.length != std.length) {
                throw new IllegalArgumentException(mean.length + " means but " + std.length + " standard deviations");
            }
            for (double s : std) {
                if (!(s > 0) || !Double.isFinite(s)) {
                    throw new IllegalArgumentException("a standard deviation must be positive and finite, not " + s);
                }
            }
        }
    }

    public LoaderSpec {
        Objects.requireNonNull(path, "path");
        variables = List.copyOf(variables);
        if (variables.isEmpty()) {
            throw new IllegalArgumentException("a loader needs at least one variable");
        }
        channels = Map.copyOf(channels == null ? Map.of() : channels);
        for (String v : channels.keySet()) {
            if (!variables.contains(v)) {
                throw new IllegalArgumentException("channels are given for '" + v + "', which is not one of the variables "
                        + variables);
            }
        }
        normalize = normalize == null ? Map.of() : Map.copyOf(normalize);
        require(history >= 1, "history must be at least 1, not " + history);
        require(future >= 0, "future must be 0 or more, not " + future);
        require(stride >= 1, "stride must be at least 1, not " + stride);
        require(batchSize >= 1, "batch_size must be at least 1, not " + batchSize);
        require(worldSize >= 1, "world_size must be at least 1, not " + worldSize);
        require(rank >= 0 && rank < worldSize, "rank " + rank + " is not in [0, " + worldSize + ")");
        require(prefetch >= 1, "prefetch must be at least 1, not " + prefetch);
        require(timeStart >= 0 && (timeStop == -1 || timeStop > timeStart),
                "time_range [" + timeStart + ", " + timeStop + ") is empty or negative");
        require(crop == null || (crop.length == 4 && crop[0] >= 0 && crop[1] > crop[0] && crop[2] >= 0 && crop[3] > crop[2]),
                "crop must be (y0, y1, x0, x1) with y0 < y1 and x0 < x1");
        Objects.requireNonNull(dtype, "dtype");
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Steps a sample spans on the time axis, from its first input to its last target. */
    public long span() {
        return (long) (history + future - 1) * stride + 1;
    }

    /** A spec with defaults: all channels, whole time axis, batch 1, no shuffle, one rank, float32. */
    public static LoaderSpec of(String path, List<String> variables, int history, int future) {
        return new LoaderSpec(path, variables, new LinkedHashMap<>(), null, history, future, 1, 1, false, 0, false,
                0, -1, null, 0, 1, Map.of(), PlaneGather.Output.FLOAT32, null, 2);
    }
}
