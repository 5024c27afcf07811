// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A progress line on stderr: on a terminal one line redrawn in place,
 * {@code [#####.....] 12/48 steps  1.23 GB/s}; elsewhere (a file, a pipe, a CI log) a plain line at
 * most every {@value #PLAIN_INTERVAL_SECONDS} seconds, and one when the work is done.
 */
final class Progress {

    private static final int WIDTH = 30;
    private static final long REDRAW_NANOS = 100_000_000L;
    static final long PLAIN_INTERVAL_SECONDS = 5;

    private final PrintWriter err;
    private final boolean terminal;
    private final String label;
    private final String unit;
    private final long total;
    private final LongSupplier clock;
    private final long plainIntervalNanos;
    private final long start;
    private long lastDraw;
    private boolean drawn;
    private boolean doneReported;
    private boolean onlyWhenSlow;
    private boolean plainShown;

    /**
     * @param label what is going on ({@code "reading"}), or empty
     * @param unit  what is counted ({@code "steps"}, or {@code "MiB"})
     */
    Progress(PrintWriter err, boolean terminal, String label, String unit, long total) {
        this(err, terminal, label, unit, total, System::nanoTime, PLAIN_INTERVAL_SECONDS * 1_000_000_000L);
    }

    /** As above, with the clock ({@link System#nanoTime()}) and the interval of plain lines given (tests). */
    Progress(PrintWriter err, boolean terminal, String label, String unit, long total, LongSupplier clock,
             long plainIntervalNanos) {
        this.clock = clock;
        this.plainIntervalNanos = plainIntervalNanos;
        this.start = clock.getAsLong();
        this.lastDraw = start;
        this.err = err;
        this.terminal = terminal;
        this.label = label;
        this.unit = unit;
        this.total = Math.max(1, total);
    }

    /**
     * Print nothing for work that ends within the first interval (off a terminal not even the line
     * that says it is done; on one no bar is drawn), so that a command run often and quickly, such as one pass of {@code
     * bench}, leaves the log alone, while a long one still reports every few seconds.
     *
     * @return this
     */
    Progress onlyWhenSlow() {
        this.onlyWhenSlow = true;
        return this;
    }

    /** True when stderr of this process is a terminal. */
    static boolean stderrIsTerminal() {
        java.io.Console c = System.console();
        return c != null && c.isTerminal();
    }

    /** Reports {@code done} units, {@code bytes} of data moved so far. */
    void update(long done, long bytes) {
        long now = clock.getAsLong();
        String line = line(done, bytes, now);
        if (terminal) {
            if (onlyWhenSlow && !drawn && now - start < plainIntervalNanos) {
                return;
            }
            if (done < total && now - lastDraw < REDRAW_NANOS && drawn) {
                return;
            }
            lastDraw = now;
            drawn = true;
            err.print("\r" + line);
            err.flush();
        } else {
            boolean finished = done >= total;
            if (finished ? doneReported || (onlyWhenSlow && !plainShown) : now - lastDraw < plainIntervalNanos) {
                return;
            }
            plainShown = true;
            lastDraw = now;
            doneReported = finished;
            err.println(line);
            err.flush();
        }
    }

    /** Ends the redrawn line on a terminal. */
    void finish() {
        if (terminal && drawn) {
            err.println();
            err.flush();
        }
    }

    private String line(long done, long bytes, long now) {
        int filled = (int) (WIDTH * Math.min(done, total) / total);
        String bar = "#".repeat(filled) + ".".repeat(WIDTH - filled);
        String rate = Text.gbPerSecond(bytes, now - start);
        return String.format(Locale.ROOT, "%s[%s] %d/%d %s  %s", label.isEmpty() ? "" : label + " ", bar, done, total,
                unit, rate);
    }
}
