// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.stats;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zarrdirect.loader.LoaderSpec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Per-channel statistics of the variables of a store over a time range, as {@code zarr-direct stats}
 * writes them and the loader reads them to normalize.
 *
 * <h2>Format</h2>
 * <pre>{@code
 * {"format": "zarr-direct-stats", "version": 1, "store": "/data/era5.zarr", "time_range": [0, 8000],
 *  "variables": {
 *    "t2m": {"channels": null, "mean": [287.9], "std": [15.2], "count": [8305920000], "nan_count": [0]},
 *    "u":   {"channels": [0, 3], "mean": [1.2, 6.8], "std": [9.1, 12.0], "count": [..], "nan_count": [..]}}}
 * }</pre>
 * One entry per channel: {@code channels} lists the source indices along the variable's channel
 * axis that the entries describe, in order, and is null for a variable without channel axis (one
 * entry). {@code std} is the population standard deviation (ddof = 0) of the values that are not
 * NaN, {@code count} how many those are and {@code nan_count} how many NaNs were skipped.
 * {@code time_range} is half-open. A channel with no values has {@code null} mean and std (JSON has
 * no NaN).
 *
 * @param store     the store the statistics are of, as it was given
 * @param timeStart first time index of the range
 * @param timeStop  end of the range (exclusive)
 * @param variables per variable name, in the order computed
 */
public record StatsFile(String store, long timeStart, long timeStop, Map<String, VariableStats> variables) {

    /** The value of {@code "format"}. */
    public static final String FORMAT = "zarr-direct-stats";
    /** The value of {@code "version"} this build writes and reads. */
    public static final int VERSION = 1;

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * The statistics of one variable, one entry per channel.
     *
     * @param channels source indices along the channel axis, or null for a variable without one
     * @param mean     mean per channel (NaN: no values)
     * @param std      population standard deviation per channel (NaN: no values)
     * @param count    values that are not NaN, per channel
     * @param nanCount NaNs skipped, per channel
     */
    public record VariableStats(int[] channels, double[] mean, double[] std, long[] count, long[] nanCount) {

        public VariableStats {
            channels = channels == null ? null : channels.clone();
            mean = mean.clone();
            std = std.clone();
            count = count.clone();
            nanCount = nanCount.clone();
            int n = channels == null ? 1 : channels.length;
            if (mean.length != n || std.length != n || count.length != n || nanCount.length != n) {
                throw new IllegalArgumentException("statistics of " + n + " channel(s) need " + n
                        + " entries each, not mean " + mean.length + ", std " + std.length + ", count " + count.length
                        + ", nan_count " + nanCount.length);
            }
        }

        @Override
        public int[] channels() {
            return channels == null ? null : channels.clone();
        }

        @Override
        public double[] mean() {
            return mean.clone();
        }

        @Override
        public double[] std() {
            return std.clone();
        }

        @Override
        public long[] count() {
            return count.clone();
        }

        @Override
        public long[] nanCount() {
            return nanCount.clone();
        }

        /** Entries, one per channel. */
        public int size() {
            return mean.length;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof VariableStats v && Arrays.equals(v.channels, channels) && Arrays.equals(v.mean, mean)
                    && Arrays.equals(v.std, std) && Arrays.equals(v.count, count) && Arrays.equals(v.nanCount, nanCount);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(channels), Arrays.hashCode(mean), Arrays.hashCode(std),
                    Arrays.hashCode(count), Arrays.hashCode(nanCount));
        }

        @Override
        public String toString() {
            return "VariableStats[channels " + Arrays.toString(channels) + ", mean " + Arrays.toString(mean) + ", std "
                    + Arrays.toString(std) + ", count " + Arrays.toString(count) + ", nan_count "
                    + Arrays.toString(nanCount) + "]";
        }
    }

    public StatsFile {
        Objects.requireNonNull(store, "store");
        if (timeStart < 0 || timeStop < timeStart) {
            throw new IllegalArgumentException("time_range [" + timeStart + ", " + timeStop + ") is negative");
        }
        variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
    }

    /**
     * The normalization of {@code variable}'s channels {@code selectedChannels} (source indices, in
     * output order; null for all the file has, in its order), as the loader takes it.
     *
     * @throws IllegalArgumentException naming the variable and channel, when the file has no statistics
     *                                  for them, or a channel had no values or a standard deviation of
     *                                  0 (normalizing would divide by zero: give that channel a fixed
     *                                  mean and std instead)
     */
    public LoaderSpec.Normalization normalization(String variable, int[] selectedChannels) {
        VariableStats v = variables.get(variable);
        if (v == null) {
            throw new IllegalArgumentException("the statistics of " + describe() + " have no variable \"" + variable
                    + "\"; they have " + variables.keySet() + ". Compute them with: zarr-direct stats " + store
                    + " --variables " + String.join(",", variables.keySet()) + "," + variable);
        }
        int[] positions;
        if (selectedChannels == null) {
            positions = new int[v.size()];
            Arrays.setAll(positions, i -> i);
        } else {
            positions = new int[selectedChannels.length];
            for (int i = 0; i < selectedChannels.length; i++) {
                positions[i] = position(variable, v, selectedChannels[i]);
            }
        }
        double[] mean = new double[positions.length];
        double[] std = new double[positions.length];
        for (int i = 0; i < positions.length; i++) {
            int p = positions[i];
            String channel = v.channels == null ? "variable \"" + variable + "\""
                    : "channel " + v.channels[p] + " of variable \"" + variable + "\"";
            if (v.count[p] == 0) {
                throw new IllegalArgumentException(channel + " has no values in the statistics of " + describe()
                        + " (all " + v.nanCount[p] + " are NaN): give it a fixed mean and std to normalize it");
            }
            if (!(v.std[p] > 0) || !Double.isFinite(v.std[p]) || !Double.isFinite(v.mean[p])) {
                throw new IllegalArgumentException(channel + " has mean " + v.mean[p] + " and standard deviation "
                        + v.std[p] + " in the statistics of " + describe() + (v.std[p] == 0
                        ? " (it is constant over the range)" : "") + "; normalizing would "
                        + (v.std[p] == 0 ? "divide by zero" : "not give finite values")
                        + ": give it a fixed mean and std instead, such as (" + v.mean[p] + ", 1.0)");
            }
            mean[i] = v.mean[p];
            std[i] = v.std[p];
        }
        return new LoaderSpec.Normalization(mean, std);
    }

    private int position(String variable, VariableStats v, int channel) {
        if (v.channels == null) {
            if (channel != 0) {
                throw new IllegalArgumentException("variable \"" + variable + "\" has no channel axis in the statistics"
                        + " of " + describe() + ", so it has channel 0 only, not " + channel);
            }
            return 0;
        }
        for (int p = 0; p < v.channels.length; p++) {
            if (v.channels[p] == channel) {
                return p;
            }
        }
        throw new IllegalArgumentException("the statistics of " + describe() + " have no channel " + channel
                + " of variable \"" + variable + "\"; they cover its channels " + Arrays.toString(v.channels)
                + ". Compute them again with that channel selected");
    }

    private String describe() {
        return store + " over time steps [" + timeStart + ", " + timeStop + ")";
    }

    /** The JSON document, indented. */
    public String toJson() {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("format", FORMAT);
        root.put("version", VERSION);
        root.put("store", store);
        root.putArray("time_range").add(timeStart).add(timeStop);
        ObjectNode vars = root.putObject("variables");
        variables.forEach((name, v) -> {
            ObjectNode o = vars.putObject(name);
            if (v.channels == null) {
                o.putNull("channels");
            } else {
                ArrayNode c = o.putArray("channels");
                for (int ch : v.channels) {
                    c.add(ch);
                }
            }
            doubles(o.putArray("mean"), v.mean);
            doubles(o.putArray("std"), v.std);
            ArrayNode count = o.putArray("count");
            for (long n : v.count) {
                count.add(n);
            }
            ArrayNode nan = o.putArray("nan_count");
            for (long n : v.nanCount) {
                nan.add(n);
            }
        });
        try {
            return MAPPER.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("writing statistics as JSON failed", e);
        }
    }

    private static void doubles(ArrayNode out, double[] values) {
        for (double d : values) {
            if (Double.isNaN(d)) {
                out.addNull();
            } else {
                out.add(d);
            }
        }
    }

    /** Writes {@link #toJson()} to {@code file}, replacing it. */
    public void write(Path file) {
        try {
            Files.writeString(file, toJson(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write statistics to " + file.toAbsolutePath() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads a statistics file.
     *
     * @throws UncheckedIOException     naming the file, when it cannot be read
     * @throws IllegalArgumentException naming the file and the field, when it is not a statistics file of
     *                                  this version
     */
    public static StatsFile read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read statistics file " + file.toAbsolutePath() + ": " + e, e);
        }
        return parse(text, file.toString());
    }

    /**
     * Parses a statistics document.
     *
     * @param source names the document in errors, such as its path
     * @throws IllegalArgumentException naming the source and the field, when it is not a statistics
     *                                  document of this version
     */
    public static StatsFile parse(String json, String source) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(source + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(source + " is not a JSON object, so not a zarr-direct statistics file");
        }
        JsonNode format = root.get("format");
        if (format == null || !FORMAT.equals(format.asText(null))) {
            throw new IllegalArgumentException(source + " is not a zarr-direct statistics file: its \"format\" is "
                    + format + ", not \"" + FORMAT + "\"");
        }
        JsonNode version = root.get("version");
        if (version == null || !version.canConvertToInt() || !version.isIntegralNumber()
                || version.intValue() != VERSION) {
            throw new IllegalArgumentException(source + " is a statistics file of version " + version + "; this build"
                    + " reads version " + VERSION + " (compute the statistics again with this build's zarr-direct stats)");
        }
        JsonNode store = root.get("store");
        if (store == null || !store.isTextual()) {
            throw new IllegalArgumentException(source + ": \"store\" must be a string, not " + store);
        }
        long[] range = longs(root.get("time_range"), source, "time_range");
        if (range == null || range.length != 2) {
            throw new IllegalArgumentException(source + ": \"time_range\" must be [start, stop], not "
                    + root.get("time_range"));
        }
        JsonNode vars = root.get("variables");
        if (vars == null || !vars.isObject()) {
            throw new IllegalArgumentException(source + ": \"variables\" must be an object, not " + vars);
        }
        Map<String, VariableStats> variables = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : vars.properties()) {
            String where = "variables." + e.getKey();
            JsonNode v = e.getValue();
            if (!v.isObject()) {
                throw new IllegalArgumentException(source + ": \"" + where + "\" must be an object, not " + v);
            }
            long[] channels = longs(v.get("channels"), source, where + ".channels");
            try {
                variables.put(e.getKey(), new VariableStats(channels == null ? null : ints(channels, source, where),
                        doubles(required(v, "mean", source, where), source, where + ".mean"),
                        doubles(required(v, "std", source, where), source, where + ".std"),
                        longs(required(v, "count", source, where), source, where + ".count"),
                        longs(required(v, "nan_count", source, where), source, where + ".nan_count")));
            } catch (IllegalArgumentException x) {
                throw x.getMessage().startsWith(source) ? x
                        : new IllegalArgumentException(source + ": \"" + where + "\": " + x.getMessage(), x);
            }
        }
        try {
            return new StatsFile(store.asText(), range[0], range[1], variables);
        } catch (IllegalArgumentException x) {
            throw new IllegalArgumentException(source + ": " + x.getMessage(), x);
        }
    }

    private static JsonNode required(JsonNode object, String field, String source, String where) {
        JsonNode n = object.get(field);
        if (n == null || n.isNull()) {
            throw new IllegalArgumentException(source + ": \"" + where + "\" has no \"" + field + "\"");
        }
        return n;
    }

    /** The array of integers at {@code node}; null for a JSON null or an absent field. */
    private static long[] longs(JsonNode node, String source, String where) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException(source + ": \"" + where + "\" must be an array of integers, not " + node);
        }
        long[] out = new long[node.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode n = node.get(i);
            if (!n.isIntegralNumber() || !n.canConvertToLong()) {
                throw new IllegalArgumentException(source + ": \"" + where + "\"[" + i + "] must be an integer, not " + n);
            }
            out[i] = n.longValue();
        }
        return out;
    }

    private static int[] ints(long[] values, String source, String where) {
        int[] out = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            if (values[i] < 0 || values[i] > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(source + ": \"" + where + ".channels\"[" + i + "] is " + values[i]
                        + ", not a channel index");
            }
            out[i] = (int) values[i];
        }
        return out;
    }

    /** The array of numbers (null for NaN) at {@code node}. */
    private static double[] doubles(JsonNode node, String source, String where) {
        if (!node.isArray()) {
            throw new IllegalArgumentException(source + ": \"" + where + "\" must be an array of numbers, not " + node);
        }
        double[] out = new double[node.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode n = node.get(i);
            if (n.isNull()) {
                out[i] = Double.NaN;
            } else if (n.isNumber()) {
                out[i] = n.doubleValue();
            } else {
                throw new IllegalArgumentException(source + ": \"" + where + "\"[" + i + "] must be a number or null,"
                        + " not " + n);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "StatsFile[" + describe() + ", " + variables + "]";
    }
}
