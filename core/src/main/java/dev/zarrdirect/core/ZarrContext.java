// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.settings.ResolvedSetting;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingType;
import dev.zarrdirect.api.settings.SettingValues;
import dev.zarrdirect.core.exec.ReadEngine;
import dev.zarrdirect.core.pipeline.ShardIndexCache;
import dev.zarrdirect.core.registry.BackendRegistry;
import dev.zarrdirect.core.registry.CodecRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * What reads and writes run on: a started backend, the codec registry resolved against it, and a
 * bounded pool of worker threads that fetch and decode chunks concurrently.
 *
 * <h2>Settings</h2>
 * Parsed once, when the context starts, and fixed for its life: {@link #THREADS} (default the number
 * of available processors), {@link BackendRegistry#BACKEND}, the {@link ReadSettings}, the codec
 * choices {@code zarrdirect.codec.<name>} and the backend's own ({@code zarrdirect.cuda.*}...).
 * Values given to the {@link Builder} win over system properties, which win over environment
 * variables, which win over defaults; a bad value or an unknown explicit name fails the start with
 * {@link dev.zarrdirect.api.InvalidSettingException}. {@link #settings()} lists every setting in
 * force with its source, as {@code doctor} prints them.
 *
 * {@snippet :
 * try (ZarrContext ctx = ZarrContext.builder().backend("cpu").threads(2)
 *         .readSettings(ReadSettings.defaults().withDecodeDepth(2)).set("zarrdirect.trace", "false").open()) {
 *     ctx.readSettings().decodeDepth(); // 2
 * }
 * }
 *
 * <h2>Lifetime and threads</h2>
 * A context is safe to share between threads: every array and group opened on it reads and writes
 * through its workers (daemon threads). Close the context to stop its threads and its backend, after
 * the last use of every array and group opened on it (they never close it; reads afterwards throw
 * {@link IllegalStateException}); closing twice is harmless. The {@link #defaultContext()} is never
 * closed: closing it does nothing.
 */
public final class ZarrContext implements AutoCloseable {

    /**
     * Worker threads that fetch and decode chunks: {@code zarrdirect.threads}
     * ({@code ZARRDIRECT_THREADS}), 1..4096; default the number of available processors.
     */
    public static final Setting<Integer> THREADS = Setting.derived("zarrdirect.threads", SettingType.intRange(1, 4096),
            "available processors", "core", "worker threads that fetch and decode chunks");

    /**
     * Bytes of decoded shard indexes kept for later reads of the same shards ({@link ShardIndexCache}):
     * {@code zarrdirect.shardIndexCacheBytes}; 0 keeps none.
     */
    public static final Setting<Long> SHARD_INDEX_CACHE_BYTES = Setting.of("zarrdirect.shardIndexCacheBytes",
            SettingType.byteSize(0, Long.MAX_VALUE), ShardIndexCache.DEFAULT_BYTES, "core",
            "bytes of decoded shard indexes kept for later reads of the same shards; 0: none");

    /**
     * The largest metadata document ({@code zarr.json}, {@code .zarray}, {@code .zmetadata}, ...)
     * read, checked before it is read: {@code zarrdirect.maxMetadataBytes}. A store written by
     * others may hold a document of any size, and a document is parsed whole in memory. Metadata is
     * read by static methods that may have no context, so the value comes from the system property
     * or the environment at each read ({@link dev.zarrdirect.core.store.Stores#readMetadataText});
     * a value set on a context's builder is checked but not yet seen there.
     */
    public static final Setting<Long> MAX_METADATA_BYTES = Setting.of("zarrdirect.maxMetadataBytes",
            SettingType.byteSize(1024, Long.MAX_VALUE), 64L << 20, "core",
            "the largest metadata document (zarr.json, .zarray, .zmetadata) read; a larger one fails before it is read");

    private static volatile ZarrContext defaultContext;

    private final BackendRegistry backends;
    private final Backend backend;
    private final CodecRegistry codecs;
    private final int parallelism;
    private final ReadSettings readSettings;
    private final List<ResolvedSetting<?>> coreSettings;
    private final ReadEngine engine;
    private final ShardIndexCache shardIndexes;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private ZarrContext(BackendRegistry backends, Backend backend, CodecRegistry codecs, int parallelism,
                        ReadSettings readSettings, List<ResolvedSetting<?>> coreSettings, long shardIndexCacheBytes) {
        this.shardIndexes = new ShardIndexCache(shardIndexCacheBytes);
        this.backends = backends;
        this.backend = backend;
        this.codecs = codecs;
        this.parallelism = parallelism;
        this.readSettings = readSettings;
        this.coreSettings = List.copyOf(coreSettings);
        this.engine = new ReadEngine(backend, parallelism, readSettings);
    }

    /**
     * A builder of a context; nothing is read or started until {@link Builder#open()}.
     *
     * @return a new builder with no explicit values
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the backend named {@code backendName} ({@code "auto"} or null: the setting
     * {@code zarrdirect.backend}, else the best available), with the settings of system properties
     * and environment variables. The caller closes the context.
     *
     * @param backendName the backend's name ({@code cpu}, {@code cuda}...), or {@code "auto"} or null
     * @return a started context, owned by the caller
     * @throws dev.zarrdirect.api.InvalidSettingException when a setting read from the system has a bad value
     * @throws dev.zarrdirect.api.MissingBackendException when the backend is absent or unusable
     */
    public static ZarrContext open(String backendName) {
        return builder().backend(backendName).open();
    }

    /**
     * As {@link #open(String)}, with {@code threads} worker threads.
     *
     * @param backendName the backend's name, or {@code "auto"} or null
     * @param threads     worker threads, 1..4096
     * @return a started context, owned by the caller
     * @throws IllegalArgumentException when {@code threads} is below 1
     * @throws dev.zarrdirect.api.InvalidSettingException when {@code threads} is above 4096, or a
     *         setting read from the system has a bad value
     * @throws dev.zarrdirect.api.MissingBackendException when the backend is absent or unusable
     */
    public static ZarrContext open(String backendName, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        return builder().backend(backendName).threads(threads).open();
    }

    /**
     * A process-wide context on the backend {@link #open(String) open(null)} picks, started on first
     * use (thread-safely, once) and never closed: {@link #close()} on it does nothing, and its worker
     * threads are daemons, which do not keep the JVM alive.
     *
     * @return the shared context
     * @throws dev.zarrdirect.api.InvalidSettingException when starting it fails on a bad setting (and
     *         again on the next call)
     * @throws dev.zarrdirect.api.MissingBackendException when no backend is usable
     */
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

    /**
     * The settings every context reads in core: threads, backend, the {@link ReadSettings} and the
     * codec family {@code zarrdirect.codec.<name>}; for the reference table.
     *
     * @return the descriptors, in the order {@code doctor} lists them; immutable
     */
    public static List<Setting<?>> coreSettingDescriptors() {
        List<Setting<?>> out = new ArrayList<>();
        out.add(BackendRegistry.BACKEND);
        out.add(THREADS);
        out.addAll(ReadSettings.SETTINGS);
        out.add(SHARD_INDEX_CACHE_BYTES);
        out.add(MAX_METADATA_BYTES);
        out.add(CodecRegistry.CODEC_FAMILY);
        return List.copyOf(out);
    }

    /** Starts a context; {@link ZarrContext#builder()}. Not thread-safe; one builder opens any number of contexts. */
    public static final class Builder {
        private final SettingValues.Builder values = SettingValues.builder();
        private ClassLoader loader = ZarrContext.class.getClassLoader();

        private Builder() {
        }

        /**
         * The backend by name ({@code cpu}, {@code cuda}...); {@code auto}, blank or null: the setting
         * {@code zarrdirect.backend}, else the best available.
         *
         * @param name the backend's name, or {@code "auto"} or null
         * @return this builder
         */
        public Builder backend(String name) {
            if (name == null || name.isBlank() || name.trim().equalsIgnoreCase("auto")) {
                values.remove(BackendRegistry.BACKEND_PROPERTY);
            } else {
                values.set(BackendRegistry.BACKEND_PROPERTY, name);
            }
            return this;
        }

        /**
         * Worker threads, 1..4096 (checked by {@link #open()}).
         *
         * @param threads the number of worker threads
         * @return this builder
         */
        public Builder threads(int threads) {
            values.set(THREADS.name(), Integer.toString(threads));
            return this;
        }

        /**
         * Every component of {@code rs}, explicitly: each overrides its system property or
         * environment variable.
         *
         * @param rs the read settings
         * @return this builder
         */
        public Builder readSettings(ReadSettings rs) {
            return settings(rs.toValues());
        }

        /**
         * Sets setting {@code name} ({@code zarrdirect.cuda.batchBytes} or {@code cuda.batchBytes}) to
         * {@code value}; parsed and checked by {@link #open()}.
         *
         * @param name  the setting's name, with or without the {@code zarrdirect.} prefix
         * @param value its value as text, as on the command line
         * @return this builder
         */
        public Builder set(String name, String value) {
            values.set(name, value);
            return this;
        }

        /**
         * Every value of {@code explicit}, over those set before.
         *
         * @param explicit the values to set
         * @return this builder
         */
        public Builder settings(SettingValues explicit) {
            explicit.names().forEach(n -> values.set(n, explicit.get(n).orElseThrow()));
            return this;
        }

        /**
         * Where backend and codec providers are looked for; by default zarr-direct's own class loader.
         *
         * @param loader the class loader for {@link java.util.ServiceLoader}; not null
         * @return this builder
         * @throws NullPointerException when {@code loader} is null
         */
        public Builder classLoader(ClassLoader loader) {
            this.loader = java.util.Objects.requireNonNull(loader, "loader");
            return this;
        }

        /**
         * The explicit values so far.
         *
         * @return a snapshot of them, not changed by later calls
         */
        public SettingValues values() {
            return values.build();
        }

        /**
         * Parses the settings, starts the backend and the worker threads. If starting fails after
         * the backend started, the backend is closed again.
         *
         * @return a started context, owned by the caller
         *
         * @throws dev.zarrdirect.api.InvalidSettingException for an unknown explicit name (listing the
         *         known ones) or a value that does not parse, wherever it came from
         * @throws dev.zarrdirect.api.MissingBackendException when the backend is absent or unusable
         */
        public ZarrContext open() {
            SettingValues explicit = values.build();
            BackendRegistry reg = BackendRegistry.discover(loader);
            List<Setting<?>> known = new ArrayList<>(coreSettingDescriptors());
            known.addAll(reg.backendSettings());
            explicit.requireKnown(known, List.of(CodecRegistry.CODEC_PREFIX));
            SettingResolver r = SettingResolver.system(explicit);
            ResolvedSetting<Integer> threads = r.resolve(THREADS);
            if (threads.value() == null) {
                threads = threads.withValue(Runtime.getRuntime().availableProcessors());
                r.record(threads);
            }
            String backendName = r.get(BackendRegistry.BACKEND);
            ReadSettings rs = ReadSettings.from(r);
            long shardIndexCacheBytes = r.get(SHARD_INDEX_CACHE_BYTES);
            List<ResolvedSetting<?>> core = r.resolved();
            Backend backend = reg.open(reg.resolveName(backendName), explicit);
            boolean ok = false;
            try {
                CodecRegistry codecs = CodecRegistry.discover(List.of(backend.codecs()), loader, r);
                ZarrContext ctx = new ZarrContext(reg, backend, codecs, threads.value(), rs, core, shardIndexCacheBytes);
                ok = true;
                return ctx;
            } finally {
                if (!ok) {
                    backend.close();
                }
            }
        }
    }

    /**
     * The started backend every read and write of this context runs on; closed with the context.
     *
     * @return the backend; do not close it
     */
    public Backend backend() {
        return backend;
    }

    /**
     * The backends found when the context started, with what their probes said (for {@code doctor}).
     *
     * @return the registry
     */
    public BackendRegistry backends() {
        return backends;
    }

    /**
     * The codec implementations available on this context's backend and the CPU, with the codec
     * choices ({@code zarrdirect.codec.<name>}) in force.
     *
     * @return the registry
     */
    public CodecRegistry codecs() {
        return codecs;
    }

    /**
     * The device reads land on unless told otherwise: the backend's default device.
     *
     * @return the device
     */
    public Device device() {
        return backend.defaultDevice();
    }

    /**
     * The number of worker threads ({@link #THREADS}).
     *
     * @return at least 1
     */
    public int parallelism() {
        return parallelism;
    }

    /**
     * The decoded shard indexes this context's arrays keep for later reads of the same shards,
     * bounded by {@link #SHARD_INDEX_CACHE_BYTES}; heap memory, nothing to close.
     *
     * @return the cache
     */
    ShardIndexCache shardIndexCache() {
        return shardIndexes;
    }

    /**
     * How reads on this context run, parsed when it started.
     *
     * @return the read settings
     */
    public ReadSettings readSettings() {
        return readSettings;
    }

    /**
     * Every setting in force with its value and source, for {@code doctor}: the core's (backend,
     * threads, read settings), the backend's ({@link Backend#settings()}), then the codec choices.
     *
     * @return the resolved settings; immutable
     */
    public List<ResolvedSetting<?>> settings() {
        List<ResolvedSetting<?>> out = new ArrayList<>(coreSettings);
        out.addAll(backend.settings());
        out.addAll(codecs.settings());
        return List.copyOf(out);
    }

    ExecutorService workers() {
        return engine().workers();
    }

    /**
     * The read engine: runs read plans on this context's workers and device. Internal: its package
     * is not exported.
     *
     * @return the engine
     * @throws IllegalStateException when the context is closed
     */
    ReadEngine engine() {
        if (closed.get()) {
            throw new IllegalStateException("ZarrContext on backend \"" + backend.name() + "\" is closed");
        }
        return engine;
    }

    /**
     * Stops the worker threads and closes the backend. Does nothing on the {@link #defaultContext()},
     * or when already closed. Arrays and groups opened on the context must not be used afterwards.
     */
    @Override
    public void close() {
        if (this == defaultContext || !closed.compareAndSet(false, true)) {
            return; // the default context lives as long as the JVM; a second close (from any thread) is a no-op
        }
        try {
            engine.close();
        } finally {
            backend.close();
        }
    }
}
