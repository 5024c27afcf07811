// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.dataset;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.NoSuchKeyException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.loader.LoaderSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The samples a {@link LoaderSpec} describes: time windows over the variables of a group, stacked
 * into channels. Everything here is metadata: which arrays, which axes, which channels, which time
 * steps; nothing is read.
 *
 * <h2>Variables and channels</h2>
 * Each variable is an array of the group at the spec's path ({@code t2m}, or a relative path such as
 * {@code atmos/u}) of shape {@code [time, lat, lon]} or {@code [time, channel, lat, lon]}, float32
 * or float64. The last two axes are latitude and longitude. The time axis is found from
 * {@link LoaderSpec#timeDim()}: null takes the dimension named {@code time} (v3
 * {@code dimension_names}, or the v2 {@code _ARRAY_DIMENSIONS} attribute), else axis 0; a name takes
 * that dimension; a decimal integer is the axis itself. In a 4-dimensional array the remaining axis
 * is the channel (or level) axis. All variables must have the same number of time steps and the
 * same latitude × longitude plane. Output channels are the variables in the spec's order, each with
 * its selected channels in the order listed (all by default); a variable without a channel axis is
 * one channel.
 *
 * <h2>Samples</h2>
 * With {@code span = (history + future − 1) · stride + 1}, the sample whose first input step is
 * {@code s} has inputs {@code s, s+stride, …, s+(history−1)·stride} and targets
 * {@code s+history·stride, …, s+(history+future−1)·stride}. Every {@code s} whose span lies in the
 * time range {@code [timeStart, timeStop)} is a sample, so sample {@code i} starts at
 * {@code timeStart + i}, and there are {@code timeStop − timeStart − span + 1} of them.
 *
 * <h2>Ownership</h2>
 * {@link #open(ZarrContext, LoaderSpec)} opens the store at the spec's path and closes it in
 * {@link #close()}; {@link #open(ZarrContext, Store, LoaderSpec)} leaves the store to its caller.
 * Closing twice is harmless. Immutable otherwise, and safe to share between threads.
 */
public final class WindowDataset implements AutoCloseable {

    private final Store store;
    private final boolean ownsStore;
    private final LoaderSpec spec;
    private final List<Variable> variables;
    private final List<String> channelNames;
    private final long timeSteps;
    private final long timeStart;
    private final long timeStop;
    private final long[] cropStart;
    private final int height;
    private final int width;
    private final int sampleCount;
    private final ZarrContext context;
    private boolean closed;

    private WindowDataset(ZarrContext ctx, Store store, boolean ownsStore, LoaderSpec spec) {
        this.context = ctx;
        this.store = store;
        this.ownsStore = ownsStore;
        this.spec = spec;
        ZarrGroup group = openGroup(ctx, store, spec);
        List<Variable> vars = new ArrayList<>();
        List<String> names = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        int next = 0;
        for (String name : spec.variables()) {
            if (!seen.add(name)) {
                throw new IllegalArgumentException("variable \"" + name + "\" is listed twice in " + spec.variables()
                        + "; list it once, with all the channels it should give");
            }
            ZarrArray array = openVariable(group, name);
            DataType type = array.dataType();
            if (!type.equals(DataType.FLOAT32) && !type.equals(DataType.FLOAT64)) {
                throw new IllegalArgumentException("variable \"" + name + "\" (" + array.describe() + ") holds " + type
                        + "; the loader reads float32 and float64 variables only");
            }
            AxisRoles roles = AxisRoles.of(name, array, spec.timeDim());
            int[] channels = selectChannels(name, array, roles, spec.channels().get(name));
            Variable v = new Variable(name, array, roles.time(), roles.channel(), channels, next);
            if (!vars.isEmpty()) {
                checkLinesUp(vars.getFirst(), v);
            }
            vars.add(v);
            for (int k = 0; k < v.channelCount(); k++) {
                names.add(v.channelName(k));
            }
            next += channels.length;
        }
        this.variables = List.copyOf(vars);
        this.channelNames = List.copyOf(names);

        Variable first = variables.getFirst();
        long[] shape = first.array().shape();
        this.timeSteps = shape[first.timeAxis()];
        this.timeStart = spec.timeStart();
        this.timeStop = spec.timeStop() == -1 ? timeSteps : spec.timeStop();
        if (timeStop > timeSteps || timeStart >= timeStop) {
            throw new IllegalArgumentException("time_range [" + timeStart + ", "
                    + (spec.timeStop() == -1 ? "end" : String.valueOf(timeStop)) + ") is not within the time axis of "
                    + timeSteps + " steps of variable \"" + first.name() + "\" (" + first.array().describe() + ")");
        }
        long span = spec.span();
        long length = timeStop - timeStart;
        if (span > length) {
            throw new IllegalArgumentException("no sample fits: a window spans " + span + " time steps ((history "
                    + spec.history() + " + future " + spec.future() + " - 1) * stride " + spec.stride() + " + 1) but"
                    + " time_range [" + timeStart + ", " + timeStop + ") holds only " + length + " of "
                    + first.array().describe() + "; shorten the window or widen the time range");
        }
        long samples = length - span + 1;
        if (samples > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("time_range [" + timeStart + ", " + timeStop + ") holds " + samples
                    + " samples, more than the " + Integer.MAX_VALUE + " one loader can index");
        }
        this.sampleCount = (int) samples;

        long planeH = shape[shape.length - 2];
        long planeW = shape[shape.length - 1];
        long[] crop = spec.crop() == null ? new long[]{0, planeH, 0, planeW} : spec.crop().clone();
        if (crop[1] > planeH || crop[3] > planeW) {
            throw new IllegalArgumentException("crop [" + crop[0] + ", " + crop[1] + ") x [" + crop[2] + ", " + crop[3]
                    + ") lies outside the lat/lon plane [" + planeH + ", " + planeW + "] of variable \"" + first.name()
                    + "\" (" + first.array().describe() + ")");
        }
        if (crop[1] - crop[0] > Integer.MAX_VALUE || crop[3] - crop[2] > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the lat/lon plane [" + planeH + ", " + planeW + "] of "
                    + first.array().describe() + " is too large for the loader: crop it");
        }
        this.cropStart = new long[]{crop[0], crop[2]};
        this.height = (int) (crop[1] - crop[0]);
        this.width = (int) (crop[3] - crop[2]);
    }

    /**
     * Opens the group at {@code spec.path()} (a directory, zip file or URL, as {@link Stores#open}
     * takes it) and the variables in it; {@link #close()} closes the store.
     *
     * @throws IllegalArgumentException naming the variable, array and store, for a variable that is not
     *                                  there, not float32 or float64, of another rank, with a channel out of range, with another
     *                                  number of time steps or another plane than the first, and for a time range, window or crop
     *                                  that does not fit
     */
    public static WindowDataset open(ZarrContext ctx, LoaderSpec spec) {
        Store store = Stores.open(spec.path());
        try {
            return new WindowDataset(ctx, store, true, spec);
        } catch (RuntimeException | Error e) {
            store.close();
            throw e;
        }
    }

    /**
     * As {@link #open(ZarrContext, LoaderSpec)}, on a store the caller has opened and closes;
     * {@code spec.path()} only names it.
     */
    public static WindowDataset open(ZarrContext ctx, Store store, LoaderSpec spec) {
        return new WindowDataset(ctx, Objects.requireNonNull(store, "store"), false, spec);
    }

    private static ZarrGroup openGroup(ZarrContext ctx, Store store, LoaderSpec spec) {
        Object root = Zarr.open(ctx, store, "");
        if (root instanceof ZarrArray a) {
            throw new IllegalArgumentException(spec.path() + " (" + store + ") holds an array of shape "
                    + Shapes.format(a.shape()) + ", not a group; the loader reads variables that are arrays of a group:"
                    + " give the location of the group that holds them");
        }
        return (ZarrGroup) root;
    }

    private static ZarrArray openVariable(ZarrGroup group, String name) {
        Object node;
        try {
            node = group.open(name);
        } catch (NoSuchKeyException e) {
            throw new IllegalArgumentException("no variable \"" + name + "\" in " + group.store() + "; the group has "
                    + members(group), e);
        }
        if (node instanceof ZarrGroup g) {
            throw new IllegalArgumentException("variable \"" + name + "\" is a group in " + group.store()
                    + ", not an array; its members are " + members(g));
        }
        return (ZarrArray) node;
    }

    private static String members(ZarrGroup g) {
        try {
            return g.members().toString();
        } catch (RuntimeException e) {
            return "members that could not be listed (" + e.getMessage() + ")";
        }
    }

    private static int[] selectChannels(String name, ZarrArray array, AxisRoles roles, int[] requested) {
        if (roles.channel() < 0) {
            if (requested != null && !Arrays.equals(requested, new int[]{0})) {
                throw new IllegalArgumentException("channels " + Arrays.toString(requested) + " are selected of variable \""
                        + name + "\", which has no channel axis (" + array.describe() + " has shape "
                        + Shapes.format(array.shape()) + "); it is one channel: drop its selection");
            }
            return new int[]{0};
        }
        long count = array.shape()[roles.channel()];
        if (requested == null) {
            if (count == 0 || count > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("variable \"" + name + "\" has " + count + " channels along axis "
                        + roles.channel() + " of " + array.describe() + "; select some explicitly");
            }
            int[] all = new int[(int) count];
            for (int i = 0; i < all.length; i++) {
                all[i] = i;
            }
            return all;
        }
        if (requested.length == 0) {
            throw new IllegalArgumentException("no channels are selected of variable \"" + name + "\"; leave it out of"
                    + " channels to take all " + count + " of them");
        }
        for (int c : requested) {
            if (c < 0 || c >= count) {
                throw new IllegalArgumentException("channel " + c + " of variable \"" + name + "\" is out of range: "
                        + array.describe() + " has " + count + " channels along axis " + roles.channel()
                        + dimensionName(array, roles.channel()) + ", indices 0 to " + (count - 1));
            }
        }
        return requested.clone();
    }

    private static String dimensionName(ZarrArray array, int axis) {
        List<String> names = AxisRoles.dimensionNames(array);
        return names == null || names.get(axis) == null ? "" : " (" + names.get(axis) + ")";
    }

    private static void checkLinesUp(Variable first, Variable other) {
        long[] a = first.array().shape();
        long[] b = other.array().shape();
        long ta = a[first.timeAxis()];
        long tb = b[other.timeAxis()];
        if (ta != tb) {
            throw new IllegalArgumentException("variables \"" + first.name() + "\" and \"" + other.name() + "\" have "
                    + "different time axes: " + first.array().describe() + " has shape " + Shapes.format(a) + ", "
                    + ta + " steps along axis " + first.timeAxis() + "; " + other.array().describe() + " has shape "
                    + Shapes.format(b) + ", " + tb + " steps along axis " + other.timeAxis());
        }
        long[] pa = Arrays.copyOfRange(a, a.length - 2, a.length);
        long[] pb = Arrays.copyOfRange(b, b.length - 2, b.length);
        if (!Arrays.equals(pa, pb)) {
            throw new IllegalArgumentException("variables \"" + first.name() + "\" and \"" + other.name() + "\" have "
                    + "different lat/lon planes: " + first.array().describe() + " has shape " + Shapes.format(a)
                    + " (plane " + Shapes.format(pa) + "); " + other.array().describe() + " has shape "
                    + Shapes.format(b) + " (plane " + Shapes.format(pb) + ")");
        }
    }

    /** The context the dataset reads with (its backend and worker threads); the caller's, not closed here. */
    public ZarrContext context() {
        return context;
    }

    /** The spec this dataset was opened with. */
    public LoaderSpec spec() {
        return spec;
    }

    /** The store of the group. */
    public Store store() {
        return store;
    }

    /** The variables in output order. */
    public List<Variable> variables() {
        return variables;
    }

    /**
     * The variable named {@code name}.
     *
     * @throws IllegalArgumentException listing the variables there are, if none has that name
     */
    public Variable variable(String name) {
        for (Variable v : variables) {
            if (v.name().equals(name)) {
                return v;
            }
        }
        throw new IllegalArgumentException("no variable \"" + name + "\" in this dataset; it has "
                + variables.stream().map(Variable::name).toList());
    }

    /** Output channels, {@code C}: the selected channels of all variables. */
    public int channels() {
        return channelNames.size();
    }

    /** The name of each output channel: {@code t2m} for a variable without channel axis, else {@code u[3]}. */
    public List<String> channelNames() {
        return channelNames;
    }

    /** Length of the time axis (of every variable). */
    public long timeSteps() {
        return timeSteps;
    }

    /** First time index of the range, inclusive. */
    public long timeStart() {
        return timeStart;
    }

    /** End of the time range, exclusive; the end of the axis when the spec says -1. */
    public long timeStop() {
        return timeStop;
    }

    /** Output rows (latitudes), after the crop. */
    public int height() {
        return height;
    }

    /** Output columns (longitudes), after the crop. */
    public int width() {
        return width;
    }

    /** The first latitude and longitude index of the crop, {@code {y0, x0}}. */
    public long[] cropStart() {
        return cropStart.clone();
    }

    /** Time steps a sample spans, from its first input to its last target. */
    public long span() {
        return spec.span();
    }

    /** Samples in the time range. */
    public int sampleCount() {
        return sampleCount;
    }

    /**
     * The time index of the first input step of sample {@code i}: {@code timeStart + i}.
     *
     * @throws IndexOutOfBoundsException if {@code i} is not in {@code [0, sampleCount())}
     */
    public long sampleStart(int i) {
        if (i < 0 || i >= sampleCount) {
            throw new IndexOutOfBoundsException("sample " + i + " is not in [0, " + sampleCount + "): the time range ["
                    + timeStart + ", " + timeStop + ") holds " + sampleCount + " windows of " + span() + " steps");
        }
        return timeStart + i;
    }

    /** The input time steps of the sample starting at {@code s}: {@code s + k·stride} for {@code k < history}. */
    public long[] inputSteps(long s) {
        return steps(s, 0, spec.history());
    }

    /** The target time steps of the sample starting at {@code s}: {@code s + (history + k)·stride} for {@code k < future}. */
    public long[] targetSteps(long s) {
        return steps(s, spec.history(), spec.future());
    }

    private long[] steps(long s, int from, int count) {
        if (s < timeStart || s >= timeStart + sampleCount) {
            throw new IllegalArgumentException("time index " + s + " does not start a sample: samples start at ["
                    + timeStart + ", " + (timeStart + sampleCount) + ")");
        }
        long[] out = new long[count];
        for (int k = 0; k < count; k++) {
            out[k] = s + (long) (from + k) * spec.stride();
        }
        return out;
    }

    /**
     * The box of {@code v}'s array holding time steps {@code [t0, t1)} and source channels
     * {@code [c0, c1)} over the cropped plane; for a variable without channel axis {@code c0, c1}
     * must be {@code 0, 1}.
     *
     * @throws IllegalArgumentException if the channels are not {@code 0, 1} for a variable without channel axis
     */
    public Selection selection(Variable v, long t0, long t1, int c0, int c1) {
        int rank = v.array().rank();
        long[] start = new long[rank];
        long[] stop = new long[rank];
        start[v.timeAxis()] = t0;
        stop[v.timeAxis()] = t1;
        if (v.hasChannelAxis()) {
            start[v.channelAxis()] = c0;
            stop[v.channelAxis()] = c1;
        } else if (c0 != 0 || c1 != 1) {
            throw new IllegalArgumentException("variable \"" + v.name() + "\" has no channel axis: channels [0, 1)"
                    + " only, not [" + c0 + ", " + c1 + ")");
        }
        start[rank - 2] = cropStart[0];
        stop[rank - 2] = cropStart[0] + height;
        start[rank - 1] = cropStart[1];
        stop[rank - 1] = cropStart[1] + width;
        return new Selection(start, stop);
    }

    /** Closes the store if this dataset opened it; closing twice is harmless. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            if (ownsStore) {
                store.close();
            }
        }
    }

    @Override
    public String toString() {
        return "WindowDataset[" + spec.path() + " " + channelNames + ", time [" + timeStart + ", " + timeStop + ") of "
                + timeSteps + ", " + sampleCount + " samples of " + span() + " steps, " + height + " x " + width + "]";
    }
}
