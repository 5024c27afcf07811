package dev.zarrdirect.core;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.core.exec.ReadEngine;
import dev.zarrdirect.core.registry.BackendRegistry;
import dev.zarrdirect.core.registry.CodecRegistry;

import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * What reads and writes run on: a started backend, the codec registry resolved against it, and a
 * bounded pool of worker threads that fetch and decode chunks concurrently.
 *
 * <p>Threads: {@code zarrdirect.threads} (system property) or {@code ZARRDIRECT_THREADS}, default the
 * number of available processors. Close the context to stop its threads and its backend; closing
 * twice is harmless.
 */
public final class ZarrContext implements AutoCloseable {

    private static volatile ZarrContext defaultContext;

    private final BackendRegistry backends;
    private final Backend backend;
    private final CodecRegistry codecs;
    private final int parallelism;
    private final ReadSettings readSettings;
    private final ReadEngine engine;
    private volatile boolean closed;

    private ZarrContext(BackendRegistry backends, Backend backend, int parallelism, ReadSettings readSettings) {
        this.backends = backends;
        this.backend = backend;
        ClassLoader cl = ZarrContext.class.getClassLoader();
        this.codecs = CodecRegistry.discover(List.of(backend.codecs()), cl);
        this.parallelism = parallelism;
        this.readSettings = readSettings;
        this.engine = new ReadEngine(backend, parallelism, readSettings);
    }

    /** Starts the backend named {@code backendName} ({@code "auto"} or null: the best available). */
    public static ZarrContext open(String backendName) {
        return open(backendName, defaultThreads());
    }

    public static ZarrContext open(String backendName, int threads) {
        return open(backendName, threads, ReadSettings.defaults());
    }

    /** Starts the backend named {@code backendName} with {@code threads} workers and reads that run as {@code readSettings} says. */
    public static ZarrContext open(String backendName, int threads, ReadSettings readSettings) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        BackendRegistry reg = BackendRegistry.discover(ZarrContext.class.getClassLoader());
        Backend b = reg.open(backendName);
        try {
            return new ZarrContext(reg, b, threads, readSettings);
        } catch (RuntimeException | Error e) {
            b.close();
            throw e;
        }
    }

    /** A process-wide context on the best backend, started on first use and never closed. */
    public static ZarrContext defaultContext() {
        ZarrContext c = defaultContext;
        if (c == null) {
            synchronized (ZarrContext.class) {
                c = defaultContext;
                if (c == null) {
                    c = open(null);
                    defaultContext = c;
                }
            }
        }
        return c;
    }

    static int defaultThreads() {
        String v = System.getProperty("zarrdirect.threads");
        if (v == null || v.isBlank()) {
            v = System.getenv("ZARRDIRECT_THREADS");
        }
        if (v != null && !v.isBlank()) {
            try {
                return Math.max(1, Integer.parseInt(v.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("zarrdirect.threads must be a number, got \"" + v + "\"", e);
            }
        }
        return Runtime.getRuntime().availableProcessors();
    }

    public Backend backend() {
        return backend;
    }

    public BackendRegistry backends() {
        return backends;
    }

    public CodecRegistry codecs() {
        return codecs;
    }

    /** The device reads land on unless told otherwise. */
    public Device device() {
        return backend.defaultDevice();
    }

    public int parallelism() {
        return parallelism;
    }

    /** How reads on this context run. */
    public ReadSettings readSettings() {
        return readSettings;
    }

    ExecutorService workers() {
        return engine().workers();
    }

    /** The read engine: runs read plans on this context's workers and device. */
    public ReadEngine engine() {
        if (closed) {
            throw new IllegalStateException("ZarrContext on backend \"" + backend.name() + "\" is closed");
        }
        return engine;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (this == defaultContext) {
            return;
        }
        closed = true;
        try {
            engine.close();
        } finally {
            backend.close();
        }
    }
}
