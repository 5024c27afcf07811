// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import dev.zarrdirect.loader.stats.ChannelMoments;
import dev.zarrdirect.loader.dataset.Variable;
import dev.zarrdirect.loader.dataset.WindowDataset;
import dev.zarrdirect.loader.stats.StatsFile;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts a statistics run into tasks on the driver, from metadata alone: per variable, its covered
 * channels (distinct, sorted) in groups that are adjacent or share a chunk along the channel axis
 * (so a chunk holding many channels is decoded once per time block), and time blocks that are whole
 * multiples of the time chunk, aligned to chunk boundaries, of at most {@code taskBytes} a read —
 * smaller when that would leave fewer than {@code minTasks} tasks, down to one time chunk. Merges
 * the tasks' moments back into the loader's {@link StatsFile}.
 */
final class StatsPlan {

    /** The default bound on the bytes of one task's read, the same as the single-machine reads. */
    static final long DEFAULT_TASK_BYTES = 256L << 20;

    private final StatsRequest request;
    private final List<StatsTask> tasks = new ArrayList<>();
    private final Map<String, int[]> covered = new LinkedHashMap<>();
    private final Map<String, Boolean> hasChannelAxis = new LinkedHashMap<>();
    private final String path;
    private final long timeStart;
    private final long timeStop;

    StatsPlan(WindowDataset ds, StatsRequest request, long taskBytes, int minTasks) {
        this.request = request;
        this.path = ds.spec().path();
        this.timeStart = ds.timeStart();
        this.timeStop = ds.timeStop();
        for (Variable v : ds.variables()) {
            int[] channels = Arrays.stream(v.channels()).distinct().sorted().toArray();
            covered.put(v.name(), channels);
            hasChannelAxis.put(v.name(), v.hasChannelAxis());
        }
        long steps = Long.MAX_VALUE;
        for (Variable v : ds.variables()) {
            steps = Math.min(steps, stepsPerTask(ds, v, taskBytes));
        }
        Variable first = ds.variables().getFirst();
        long timeChunk = first.array().chunkShape()[first.timeAxis()];
        plan(ds, steps);
        while (tasks.size() < minTasks && steps > timeChunk) {
            long half = steps / 2;
            steps = Math.max(timeChunk, half - half % timeChunk);
            plan(ds, steps);
        }
    }

    private void plan(WindowDataset ds, long steps) {
        tasks.clear();
        for (Variable v : ds.variables()) {
            addTasks(v, steps);
        }
    }

    private long stepsPerTask(WindowDataset ds, Variable v, long taskBytes) {
        long planeBytes = Math.max(1, (long) ds.height() * ds.width() * v.dataType().byteSize());
        long channelChunk = v.hasChannelAxis() ? v.array().chunkShape()[v.channelAxis()] : 1;
        int most = (int) Math.max(1, Math.min(Integer.MAX_VALUE, taskBytes / planeBytes));
        int widest = groups(covered.get(v.name()), channelChunk, most).stream().mapToInt(g -> g[1] - g[0]).max().orElse(1);
        long steps = Math.max(1, taskBytes / (widest * planeBytes));
        long timeChunk = v.array().chunkShape()[v.timeAxis()];
        return steps >= timeChunk ? steps - steps % timeChunk : steps;
    }

    private void addTasks(Variable v, long steps) {
        long channelChunk = v.hasChannelAxis() ? v.array().chunkShape()[v.channelAxis()] : 1;
        int[] channels = covered.get(v.name());
        List<int[]> groups = groups(channels, channelChunk, Integer.MAX_VALUE);
        for (long t = timeStart; t < timeStop; ) {
            long end = Math.min(timeStop, (t / steps + 1) * steps);
            for (int[] g : groups) {
                int[] inGroup = Arrays.stream(channels).filter(c -> c >= g[0] && c < g[1]).toArray();
                int c0 = v.hasChannelAxis() ? g[0] : 0;
                int c1 = v.hasChannelAxis() ? g[1] : 1;
                tasks.add(new StatsTask(request, v.name(), t, end, c0, c1, inGroup));
            }
            t = end;
        }
    }

    /**
     * Ranges {@code [c0, c1)} of sorted channels: a channel joins the range before it when adjacent
     * or in the same chunk along the channel axis, up to {@code most} channels a range.
     */
    static List<int[]> groups(int[] sorted, long channelChunk, int most) {
        List<int[]> out = new ArrayList<>();
        int start = sorted[0];
        int last = sorted[0];
        for (int i = 1; i < sorted.length; i++) {
            int c = sorted[i];
            if (!((c == last + 1 || c / channelChunk == last / channelChunk) && c - start < most)) {
                out.add(new int[]{start, last + 1});
                start = c;
            }
            last = c;
        }
        out.add(new int[]{start, last + 1});
        return out;
    }

    List<StatsTask> tasks() {
        return tasks;
    }

    /** The statistics file of the tasks' moments ({@code results.get(i)} of {@code tasks().get(i)}), merged in task order. */
    StatsFile merge(List<ChannelMoments[]> results) {
        Map<String, ChannelMoments[]> merged = new LinkedHashMap<>();
        covered.forEach((name, channels) -> {
            ChannelMoments[] m = new ChannelMoments[channels.length];
            Arrays.setAll(m, i -> new ChannelMoments());
            merged.put(name, m);
        });
        for (int k = 0; k < tasks.size(); k++) {
            StatsTask task = tasks.get(k);
            int[] channels = covered.get(task.variable());
            ChannelMoments[] into = merged.get(task.variable());
            for (int i = 0; i < task.channels().length; i++) {
                into[Arrays.binarySearch(channels, task.channels()[i])].merge(results.get(k)[i]);
            }
        }
        Map<String, StatsFile.VariableStats> out = new LinkedHashMap<>();
        merged.forEach((name, m) -> {
            double[] mean = new double[m.length];
            double[] std = new double[m.length];
            long[] count = new long[m.length];
            long[] nans = new long[m.length];
            for (int i = 0; i < m.length; i++) {
                mean[i] = m[i].mean();
                std[i] = m[i].std();
                count[i] = m[i].count();
                nans[i] = m[i].nanCount();
            }
            out.put(name, new StatsFile.VariableStats(hasChannelAxis.get(name) ? covered.get(name) : null, mean, std,
                    count, nans));
        });
        return new StatsFile(path, timeStart, timeStop, out);
    }
}
