// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The progress line of {@code convert} on stderr:
 * {@code converting [#####.....] 12/48 shards  1.2 GiB  0.85 GB/s  ETA 0:42}. On a terminal one line
 * redrawn in place; elsewhere a plain line at most every {@value Progress#PLAIN_INTERVAL_SECONDS} seconds
 * and one when the work is done. Rate and ETA count only the
 * shards written by this run, not those a resumed run skipped. Thread-safe.
 */
final class ConvertProgress {

    private static final int WIDTH = 30;
    private static final long REDRAW_NANOS = 100_000_000L;

    private final PrintWriter err;
    private final boolean terminal;
    private final String unit;
    private final long total;
    private final long skipped;
    private final long start = System.nanoTime();
    private long done;
    private long bytes;
    private long lastDraw;
    private long lastPlain = start;
    private boolean doneReported;
    private boolean drawn;

    /**
     * @param unit    what is counted: {@code "shards"} or {@code "chunks"}
     * @param skipped units already done before this run
     */
    ConvertProgress(PrintWriter err, boolean terminal, String unit, long total, long skipped) {
        this.err = err;
        this.terminal = terminal;
        this.unit = unit;
        this.total = total;
        this.skipped = skipped;
        this.done = skipped;
        this.doneReported = total == 0 || skipped >= total;
    }

    /** Adds {@code units} written by this run, holding {@code decodedBytes} of array data. */
    synchronized void add(long units, long decodedBytes) {
        done += units;
        bytes += decodedBytes;
        long now = System.nanoTime();
        if (terminal) {
            if (done < total && drawn && now - lastDraw < REDRAW_NANOS) {
                return;
            }
            lastDraw = now;
            drawn = true;
            err.print("\r" + line(now));
            err.flush();
        } else {
            boolean finished = done >= total;
            if (finished ? doneReported : now - lastPlain < Progress.PLAIN_INTERVAL_SECONDS * 1_000_000_000L) {
                return;
            }
            lastPlain = now;
            doneReported = finished;
            err.println(line(now));
            err.flush();
        }
    }

    /** Ends the redrawn line on a terminal. */
    synchronized void finish() {
        if (terminal && drawn) {
            err.println();
            err.flush();
            drawn = false;
        }
    }

    private String line(long now) {
        long t = Math.max(1, total);
        int filled = (int) (WIDTH * Math.min(done, t) / t);
        long nanos = now - start;
        long thisRun = done - skipped;
        String eta = "--:--";
        if (thisRun > 0 && done < total) {
            eta = duration((long) ((double) nanos / thisRun * (total - done)));
        } else if (done >= total) {
            eta = "0:00";
        }
        return String.format(Locale.ROOT, "converting [%s%s] %d/%d %s  %s  %s  ETA %s", "#".repeat(filled),
                ".".repeat(WIDTH - filled), done, total, unit, Text.human(bytes), Text.gbPerSecond(bytes, nanos), eta);
    }

    /** {@code 1:02:03} or {@code 2:03}. */
    static String duration(long nanos) {
        long s = Math.max(0, nanos / 1_000_000_000L);
        return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
