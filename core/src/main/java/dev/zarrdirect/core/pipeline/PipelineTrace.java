package dev.zarrdirect.core.pipeline;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where the time of one device read goes: the spans (planning, each batch's fetch and decode) of a
 * {@code readToDevice} call, printed to standard error as one line each when the read ends. Off
 * unless {@value #PROPERTY} is {@code true}; when off every call is a no-op and costs a field read.
 * Thread-safe: fetches record their spans on worker threads.
 */
public final class PipelineTrace {

    /** System property that turns tracing on. */
    public static final String PROPERTY = "zarrdirect.trace";
    private static final PipelineTrace OFF = new PipelineTrace(null, false);

    private final String what;
    private final boolean on;
    private final long t0 = System.nanoTime();
    private final List<String> lines = new ArrayList<>();

    private PipelineTrace(String what, boolean on) {
        this.what = what;
        this.on = on;
    }

    /** A trace of the read {@code what}, or the no-op trace when tracing is off. */
    public static PipelineTrace start(String what) {
        return Boolean.getBoolean(PROPERTY) ? new PipelineTrace(what, true) : OFF;
    }

    /** The no-op trace. */
    public static PipelineTrace off() {
        return OFF;
    }

    /** A time to pass to {@link #span} later. */
    public long now() {
        return on ? System.nanoTime() : 0;
    }

    /** Records the span from {@code since} ({@link #now}) to now, on the calling thread. */
    public void span(String name, long since, String detail) {
        if (!on) {
            return;
        }
        long end = System.nanoTime();
        String line = String.format(Locale.ROOT, "  %-16s %8.2f .. %8.2f ms (%7.2f ms) %-22s %s", name,
                (since - t0) / 1e6, (end - t0) / 1e6, (end - since) / 1e6, Thread.currentThread().getName(),
                detail == null ? "" : detail);
        synchronized (lines) {
            lines.add(line);
        }
    }

    /** Prints the spans, in the order they ended, to {@code out}. */
    public void print(PrintStream out) {
        if (!on) {
            return;
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "trace %s: %.2f ms%n", what, (System.nanoTime() - t0) / 1e6));
        synchronized (lines) {
            for (String l : lines) {
                sb.append(l).append(System.lineSeparator());
            }
        }
        out.print(sb);
        out.flush();
    }
}
