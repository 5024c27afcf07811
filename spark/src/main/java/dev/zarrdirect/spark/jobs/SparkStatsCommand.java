// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import dev.zarrdirect.loader.stats.ChannelMoments;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.loader.dataset.WindowDataset;
import dev.zarrdirect.loader.stats.StatsFile;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code stats} as a Spark application: the options of {@code zarr-direct stats}, the same statistics
 * file, the work spread over the cluster's executors ({@link StatsPlan}, {@link StatsTask}). The
 * driver opens the dataset once to check the options (so the same mistakes give the same messages)
 * and to plan; every executor reads its boxes from the store itself.
 */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Compute the per-channel mean and standard deviation (population, ddof 0; NaNs skipped and "
                + "counted) of variables of a group over a time range on a Spark cluster, and write the statistics "
                + "file the training loader normalizes with (the same file as zarr-direct stats).",
                "Example: spark-submit --class dev.zarrdirect.spark.jobs.ZarrDirectSpark zarr-direct-spark.jar stats "
                        + "/data/era5.zarr --variables t2m,u --channels u=0,3 --time-range 0:8000 -o stats.json"})
final class SparkStatsCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PATH",
            description = "Location of the group, as every executor sees it: a directory on a shared file system, a"
                    + " .zip of one, a file: URI or an http(s):// URL.")
    String location;

    @Option(names = {"-b", "--backend"}, paramLabel = "NAME", defaultValue = "auto",
            description = "Backend the executors read with: auto (the best found), cpu, cuda, ... Default: ${DEFAULT-VALUE}.")
    String backend;

    @Option(names = "--variables", split = ",", required = true, paramLabel = "NAME",
            description = "The arrays of the group, comma-separated: t2m,u (a path such as atmos/u for a nested one).")
    List<String> variables;

    @Option(names = "--channels", paramLabel = "VAR=I,J,...",
            description = "Channel indices of a variable with a channel (or level) axis, repeatable: --channels u=0,3. "
                    + "A variable not named here gets all its channels.")
    Map<String, String> channels = new LinkedHashMap<>();

    @Option(names = "--time-range", paramLabel = "A:B",
            description = "Time indices [A, B) to cover; A or B may be left out (0 and the end of the axis). "
                    + "Default: the whole axis.")
    String timeRange;

    @Option(names = "--time-dim", paramLabel = "NAME|INDEX",
            description = "The time dimension, by name or axis index. Default: the dimension named time, else axis 0.")
    String timeDim;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", defaultValue = "stats.json",
            description = "Where the driver writes the statistics (JSON). Default: ${DEFAULT-VALUE} in the current directory.")
    Path output;

    @Option(names = "--task-bytes", paramLabel = "BYTES", defaultValue = "268435456",
            description = "The most bytes one task reads (whole time chunks; fewer when there would be fewer tasks than"
                    + " three per core). Default: ${DEFAULT-VALUE}.")
    long taskBytes;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final SparkSession session;

    SparkStatsCommand(SparkSession session) {
        this.session = session;
    }

    @Override
    public Integer call() {
        StatsRequest request = request();
        PrintWriter out = spec.commandLine().getOut();
        if (taskBytes < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--task-bytes must be at least 1, not " + taskBytes);
        }
        StatsPlan plan;
        try (ZarrContext ctx = ZarrContext.open(backend); WindowDataset ds = open(ctx, request)) {
            JavaSparkContext sc = JavaSparkContext.fromSparkContext(session.sparkContext());
            plan = new StatsPlan(ds, request, taskBytes, 3 * sc.defaultParallelism());
        }
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(session.sparkContext());
        List<StatsTask> tasks = plan.tasks();
        long t0 = System.nanoTime();
        List<ChannelMoments[]> results = sc.parallelize(tasks, tasks.size()).map(StatsTask::run).collect();
        double seconds = (System.nanoTime() - t0) / 1e9;
        StatsFile stats = plan.merge(results);
        stats.write(output);
        printTable(stats, out);
        out.println("wrote " + output + ": " + stats.variables().values().stream().mapToInt(StatsFile.VariableStats::size)
                .sum() + " channel(s) of " + stats.variables().size() + " variable(s) over time steps ["
                + stats.timeStart() + ", " + stats.timeStop() + ") in " + tasks.size() + " task(s), "
                + String.format(Locale.ROOT, "%.2f", seconds) + " s on " + sc.defaultParallelism() + " core(s)");
        out.flush();
        return 0;
    }

    private WindowDataset open(ZarrContext ctx, StatsRequest request) {
        try {
            return WindowDataset.open(ctx, request.spec());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /** The options as the executors get them; bad values are usage errors, as in the CLI. */
    StatsRequest request() {
        long[] range = parseTimeRange();
        Map<String, int[]> selected = new LinkedHashMap<>();
        channels.forEach((variable, indices) -> selected.put(variable, parseIndices(variable, indices)));
        StatsRequest r = new StatsRequest(location, backend, variables, selected, timeDim, range[0], range[1]);
        try {
            r.spec();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        return r;
    }

    /** {@code {start, stop}} of {@code --time-range}, stop -1 for the end of the axis. */
    private long[] parseTimeRange() {
        if (timeRange == null) {
            return new long[]{0, -1};
        }
        int colon = timeRange.indexOf(':');
        if (colon >= 0) {
            String a = timeRange.substring(0, colon).trim();
            String b = timeRange.substring(colon + 1).trim();
            try {
                long start = a.isEmpty() ? 0 : Long.parseLong(a);
                long stop = b.isEmpty() ? -1 : Long.parseLong(b);
                if (start >= 0 && (b.isEmpty() || stop > start)) {
                    return new long[]{start, stop};
                }
            } catch (NumberFormatException e) {
                // reported below with the expected form
            }
        }
        throw new CommandLine.ParameterException(spec.commandLine(), "--time-range \"" + timeRange + "\" is not A:B"
                + " with 0 <= A < B (time indices, B exclusive; either may be left out, as in 100: or :8000)");
    }

    private int[] parseIndices(String variable, String text) {
        String[] parts = text.split(",", -1);
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                out[i] = -1;
            }
            if (out[i] < 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--channels " + variable + "=" + text
                        + ": \"" + parts[i] + "\" is not a channel index (0 or more); give them as " + variable + "=0,3");
            }
        }
        return out;
    }

    private static void printTable(StatsFile stats, PrintWriter out) {
        List<String[]> rows = new ArrayList<>();
        stats.variables().forEach((name, v) -> {
            int[] ch = v.channels();
            for (int i = 0; i < v.size(); i++) {
                rows.add(new String[]{ch == null ? name : name + "[" + ch[i] + "]", number(v.mean()[i]),
                        number(v.std()[i]), String.valueOf(v.count()[i]), String.valueOf(v.nanCount()[i])});
            }
        });
        String[] header = {"channel", "mean", "std", "count", "nan"};
        int[] width = new int[header.length];
        for (int k = 0; k < header.length; k++) {
            width[k] = header[k].length();
            for (String[] r : rows) {
                width[k] = Math.max(width[k], r[k].length());
            }
        }
        out.println(row(header, width));
        for (String[] r : rows) {
            out.println(row(r, width));
        }
    }

    private static String number(double v) {
        return Double.isNaN(v) ? "nan" : String.format(Locale.ROOT, "%.6g", v);
    }

    private static String row(String[] cells, int[] width) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-" + width[0] + "s", cells[0]));
        for (int k = 1; k < cells.length; k++) {
            b.append(String.format(Locale.ROOT, "  %" + width[k] + "s", cells[k]));
        }
        return b.toString();
    }
}
