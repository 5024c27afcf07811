// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.loader.LoaderSpec;
import dev.zarrdirect.loader.dataset.WindowDataset;
import dev.zarrdirect.loader.stats.ChannelStatistics;
import dev.zarrdirect.loader.stats.StatsFile;
import dev.zarrdirect.loader.stats.StatsListener;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Computes the per-channel mean and standard deviation that the training loader normalizes with
 * ({@link ChannelStatistics}), writes them as a {@link StatsFile} and prints a table of them.
 * The variables, channels, time range and time dimension are chosen as for the loader, so the same
 * mistakes give the same messages (as bad usage, exit code 2).
 */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Compute the per-channel mean and standard deviation (population, ddof 0; NaNs skipped and "
                + "counted) of variables of a group over a time range, and write the statistics file the training "
                + "loader normalizes with.",
                "Example: zarr-direct stats era5.zarr --variables t2m,u --channels u=0,3 --time-range 0:8000"})
final class StatsCommand implements Callable<Integer> {

    @Mixin
    StoreOptions store;

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
            description = "Where to write the statistics (JSON). Default: ${DEFAULT-VALUE} in the current directory.")
    Path output;

    @Option(names = "--progress", description = "Show progress on stderr even when it is not a terminal.")
    boolean progress;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        LoaderSpec loaderSpec = loaderSpec();
        PrintWriter out = spec.commandLine().getOut();
        try (Store s = store.openStore(); ZarrContext ctx = store.openContext()) {
            WindowDataset dataset;
            try {
                dataset = WindowDataset.open(ctx, s, loaderSpec);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
            }
            try (dataset) {
                StatsFile stats = ChannelStatistics.compute(dataset, listener(dataset));
                stats.write(output);
                printTable(stats, out);
                out.println("wrote " + Text.escape(String.valueOf(output)) + ": " + dataset.channels() + " channel(s) of "
                        + stats.variables().size()
                        + " variable(s) over time steps [" + stats.timeStart() + ", " + stats.timeStop() + ")");
            }
        }
        out.flush();
        return ZarrDirectCli.EXIT_OK;
    }

    /** The loader's spec for these options: a one-step window over the time range, so every step counts. */
    LoaderSpec loaderSpec() {
        long[] range = parseTimeRange();
        Map<String, int[]> selected = new LinkedHashMap<>();
        channels.forEach((variable, indices) -> selected.put(variable, parseIndices(variable, indices)));
        try {
            return new LoaderSpec(store.location, variables, selected, timeDim, 1, 0, 1, 1, false, 0, false, range[0],
                    range[1], null, 0, 1, Map.of(), PlaneGather.Output.FLOAT32, null, 1);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
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

    /** Progress on stderr when it is a terminal or --progress asks for it; none otherwise. */
    private StatsListener listener(WindowDataset dataset) {
        boolean terminal = Progress.stderrIsTerminal();
        if (!progress && !terminal) {
            return StatsListener.NONE;
        }
        long total = (dataset.timeStop() - dataset.timeStart()) * dataset.variables().size();
        Progress p = new Progress(spec.commandLine().getErr(), terminal, "stats", "steps", total);
        return (done, all, bytes) -> {
            p.update(done, bytes);
            if (done == all) {
                p.finish();
            }
        };
    }

    private static void printTable(StatsFile stats, PrintWriter out) {
        List<String[]> rows = new ArrayList<>();
        stats.variables().forEach((name, v) -> {
            int[] ch = v.channels();
            for (int i = 0; i < v.size(); i++) {
                rows.add(new String[]{Text.escape(ch == null ? name : name + "[" + ch[i] + "]"), number(v.mean()[i]),
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

    /** The first column left-aligned, the numbers right-aligned, two spaces between. */
    private static String row(String[] cells, int[] width) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-" + width[0] + "s", cells[0]));
        for (int k = 1; k < cells.length; k++) {
            b.append(String.format(Locale.ROOT, "  %" + width[k] + "s", cells[k]));
        }
        return b.toString();
    }
}
