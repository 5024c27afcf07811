// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.exec;

import dev.zarrdirect.core.plan.ReadPlan;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Prints where the time of each read goes: when a read ends, one line for the read and one per
 * span, in the order the spans ended, relative to the read's start. Installed by the engine when
 * the read setting {@code trace} is on ({@code zarrdirect.trace=true}).
 */
public final class TraceListener implements ReadListener {

    private record Trace(String what, long t0, List<String> lines) {
    }

    private final PrintStream out;
    private final Map<Long, Trace> open = new ConcurrentHashMap<>();

    public TraceListener(PrintStream out) {
        this.out = out;
    }

    @Override
    public void readStarted(long readId, String what, ReadPlan plan) {
        open.put(readId, new Trace(what + " " + plan, System.nanoTime(), new ArrayList<>()));
    }

    @Override
    public void span(long readId, String name, long startNanos, long endNanos, String detail) {
        Trace t = open.get(readId);
        if (t == null) {
            return;
        }
        String line = String.format(Locale.ROOT, "  %-16s %8.2f .. %8.2f ms (%7.2f ms) %-22s %s", name,
                (startNanos - t.t0()) / 1e6, (endNanos - t.t0()) / 1e6, (endNanos - startNanos) / 1e6,
                Thread.currentThread().getName(), detail == null ? "" : detail);
        synchronized (t.lines()) {
            t.lines().add(line);
        }
    }

    @Override
    public void readFinished(long readId, Throwable failure) {
        Trace t = open.remove(readId);
        if (t == null) {
            return;
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "trace %s: %.2f ms%s%n", t.what(), (System.nanoTime() - t.t0()) / 1e6,
                failure == null ? "" : " (failed: " + failure + ")"));
        synchronized (t.lines()) {
            for (String l : t.lines()) {
                sb.append(l).append(System.lineSeparator());
            }
        }
        out.print(sb);
        out.flush();
    }
}
