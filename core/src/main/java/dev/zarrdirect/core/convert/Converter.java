// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.MissingCodecException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.NoSuchKeyException;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.core.store.memory.MemoryStore;
import dev.zarrdirect.core.store.zip.ZipStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Rewrites an array (or every array of a group) into a new store with another chunking, sharding,
 * codecs, byte order or Zarr format, streaming with bounded memory and resuming after an
 * interruption. The engine of {@code zarr-direct convert}; it prints nothing and reports through a
 * {@link ConvertListener}.
 *
 * <h2>Streaming</h2>
 * The destination's shards (chunks when unsharded) are visited in C order, in blocks: a block is the
 * smallest run of destination shards along each dimension that also covers whole source chunks
 * (their least common multiple), halved while {@link ConvertOptions#parallel()} blocks would exceed
 * {@link ConvertOptions#memoryBytes()}, so that no source chunk is decoded twice when memory allows.
 * Each block is read from the source ({@link ZarrArray#read(Selection)} decodes only the source chunks
 * it touches) and written ({@link ZarrArray#write(Selection, Tensor)} encodes its shards in parallel).
 * The bound in {@link ConvertSummary#memoryBoundBytes()} is those blocks plus the per-thread scratch of
 * the decoding and encoding threads (one source chunk, one destination shard, twice each).
 *
 * <h2>Resuming</h2>
 * The destination holds a journal (the key {@value #JOURNAL_KEY}) while the conversion runs, and every
 * array (and a root group) carries the attribute {@value #MARKER}{@code : "incomplete"}; both go when
 * the conversion completes, the metadata last. A second run with the same source and options skips
 * the shards the journal records; a JVM shutdown hook saves the journal once more when the process
 * exits mid-run. A destination that holds anything else is refused unless
 * {@link ConvertOptions#overwrite()}, and even then only when it is a Zarr store.
 *
 * <h2>Zip</h2>
 * A destination path ending in {@code .zip} is converted into the directory {@code DST.partial} (which
 * can be resumed like any other) and packed into the archive through {@link ZipStore#create} at the
 * end; the archive appears whole or not at all.
 *
 * <h2>Errors</h2>
 * Options that do not fit the source throw {@link ConvertOptionsException} before anything is
 * written; a missing source, a destination that must not be touched, an unreadable journal or a
 * failed verification throw {@link ConvertException}; store and codec failures propagate as they
 * are. A conversion stopped by {@link ConvertOptions#maxShards()} is no error: its
 * {@link ConvertResult#complete()} is false.
 *
 * {@snippet :
 * ConvertOptions options = ConvertOptions.builder().chunks(1, -1, -1, -1).shard(4, -1, -1, -1).build();
 * ConvertResult result = new Converter(options).convert("/data/era5.zarr", Path.of("/data/era5-sharded.zarr"));
 * if (!result.complete()) {
 *     // stopped by maxShards: run it again with the same options to resume
 * }
 * }
 *
 * <h2>Threads and resources</h2>
 * A converter is immutable and holds nothing open. Each conversion starts its own
 * {@link dev.zarrdirect.core.ZarrContext}s (on {@link ConvertOptions#backend()} for reading, on the
 * CPU for writing) and worker threads, and closes them before it returns, whatever the outcome.
 */
public final class Converter {

    /** The key of the journal in an unfinished destination. */
    public static final String JOURNAL_KEY = ".zarr-direct-convert.json";
    /** The attribute on an unfinished destination's arrays and root group. */
    public static final String MARKER = "zarr_direct_convert";
    /** The value of {@link #MARKER} while the conversion is unfinished. */
    public static final String INCOMPLETE = "incomplete";
    /** The journal is written at most this often while shards complete (and always at the end or a stop). */
    private static final long JOURNAL_NANOS = 250_000_000L;
    private static final Pattern URL = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+://.*");

    private final ConvertOptions options;
    private final ConvertListener listener;

    /**
     * A converter with these options, reporting to {@code listener}. A converter holds nothing open;
     * it can run any number of conversions, one after another or at once.
     *
     * @param options  what the conversions do
     * @param listener hears how each conversion goes, from the calling thread and (for
     *                 {@link ConvertListener#written}) from the conversion's threads; {@link ConvertListener#NONE}
     *                 for nobody
     * @throws NullPointerException when {@code options} or {@code listener} is null
     */
    public Converter(ConvertOptions options, ConvertListener listener) {
        this.options = Objects.requireNonNull(options, "options");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * A converter with these options that reports to nobody.
     *
     * @param options what the conversions do
     * @throws NullPointerException when {@code options} is null
     */
    public Converter(ConvertOptions options) {
        this(options, ConvertListener.NONE);
    }

    /**
     * The options every conversion of this converter uses.
     *
     * @return the options
     */
    public ConvertOptions options() {
        return options;
    }

    /**
     * Converts the array or group at the root of {@code source} into {@code destination}.
     *
     * @param source      where the source is, as {@link Stores#open} takes it: a directory, a .zip
     *                    file or an http(s) URL; the journal names it by its absolute path or URL
     * @param destination a new (or empty) directory, or a path ending in {@code .zip}; or the
     *                    directory of an unfinished conversion of the same source with the same
     *                    options, which is resumed
     * @return how the conversion ended; not {@link ConvertResult#complete()} only when
     *         {@link ConvertOptions#maxShards()} stopped it
     * @throws ConvertOptionsException when the options do not fit the source, or the destination lies
     *                                 inside the source or holds it
     * @throws ConvertException        when the source is missing, the destination holds something else,
     *                                 or verification finds different elements
     * @throws dev.zarrdirect.api.MissingBackendException when {@link ConvertOptions#backend()} is not usable
     * @throws dev.zarrdirect.api.StoreException when reading the source or writing the destination fails
     * @throws dev.zarrdirect.api.CodecException when a chunk of the source cannot be decoded
     */
    public ConvertResult convert(String source, Path destination) {
        Objects.requireNonNull(source, "source");
        Destination dst = destination(source, destination);
        String sourceId = sourceIdentity(source);
        try (Store src = openSource(source, options.storeOptions())) {
            return run(src, sourceId, dst, null);
        }
    }

    /**
     * Converts the array or group at the root of {@code source} into the store {@code destination},
     * which this method neither packs nor closes. The destination must replace keys atomically (as
     * every store here does) for a resume to find a journal that is whole.
     *
     * @param source      the store holding the source at its root; not closed
     * @param sourceName  the source's identity in the journal: a second run resumes the first only
     *                    when it names the same source
     * @param destination an empty writable store, a store holding an unfinished conversion of the
     *                    same source with the same options, or, with {@link ConvertOptions#overwrite()},
     *                    a Zarr store to empty first; not closed
     * @return how the conversion ended; not {@link ConvertResult#complete()} only when
     *         {@link ConvertOptions#maxShards()} stopped it
     * @throws ConvertOptionsException when the options do not fit the source, or the destination is
     *                                 the source store
     * @throws ConvertException        when the source holds no Zarr node, the destination holds something
     *                                 else, or verification finds different elements
     * @throws dev.zarrdirect.api.StoreException when reading the source or writing the destination fails
     * @throws dev.zarrdirect.api.CodecException when a chunk of the source cannot be decoded
     * @see #convert(String, Path)
     */
    public ConvertResult convert(Store source, String sourceName, Store destination) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(sourceName, "sourceName");
        Objects.requireNonNull(destination, "destination");
        if (source == destination) {
            throw new ConvertOptionsException("the destination " + destination + " is the source store; give a"
                    + " destination apart from the source");
        }
        return run(source, sourceName, null, destination);
    }

    // ---- planning ----

    /** Exactly one of {@code dst} (a path destination) and {@code store} (a store destination) is given. */
    private ConvertResult run(Store src, String sourceId, Destination dst, Store store) {
        int nThreads = options.threads().orElse(Runtime.getRuntime().availableProcessors());
        try (ZarrContext ctx = context(options.backend(), nThreads)) {
            options.codecs().ifPresent(c -> usageRun(() -> ConvertPlan.checkCodecs(c, ctx, DataType.FLOAT32)));
            Object root = openRoot(ctx, src);
            List<String> groups = new ArrayList<>();
            Map<String, Map<String, Object>> groupAttrs = new LinkedHashMap<>();
            List<ZarrArray> arrays = new ArrayList<>();
            if (root instanceof ZarrArray a) {
                arrays.add(a);
            } else {
                walk((ZarrGroup) root, groups, groupAttrs, arrays);
            }
            List<ConvertPlan.Target> targets = new ArrayList<>();
            for (ZarrArray a : arrays) {
                targets.add(usage(() -> ConvertPlan.target(a.path(), a, options, root instanceof ZarrArray)));
            }
            for (ConvertPlan.Target t : targets) {
                // A dry run on memory: codecs resolve and validate before anything is written.
                usage(() -> {
                    if (t.v3() != null) {
                        Zarr.createArray(ctx, new MemoryStore(), t.path(), t.v3());
                    } else {
                        Zarr.createArrayV2(ctx, new MemoryStore(), t.path(), t.v2());
                    }
                    return null;
                });
            }
            ConvertJournal journal = journalFor(sourceId, root, arrays, targets);
            boolean sharded = targets.stream().anyMatch(ConvertPlan.Target::sharded);
            String unitName = sharded ? "shards" : "chunks";

            List<Streaming> streams = new ArrayList<>();
            List<ConvertSummary.ArrayPlan> plans = new ArrayList<>();
            long bound = 0;
            Streaming largest = null;
            for (ConvertPlan.Target t : targets) {
                Streaming s = Streaming.of(t, options.parallel(), nThreads, options.memoryBytes());
                streams.add(s);
                plans.add(new ConvertSummary.ArrayPlan(t.path(), t.dataType(), t.shape(),
                        sourceSummary(t.source().metadata()), t.summary(), t.note()));
                if (largest == null || s.boundBytes > bound) {
                    bound = s.boundBytes;
                    largest = s;
                }
            }
            listener.planned(new ConvertSummary(src.toString(), describeNode(root, arrays),
                    dst != null ? dst.describe() : store.toString(), options.zarrFormat(), unitName, plans, bound,
                    largest == null ? null : largest.explain()));

            if (store != null) {
                prepare(store, store.toString(), journal);
                journal = ConvertJournal.read(store).orElse(journal);
                return convert(src, store, null, () -> store, false, root, groups, groupAttrs, targets, streams,
                        journal, unitName);
            }
            // Locked before the destination is looked at: two conversions into one directory would
            // otherwise both find it empty (or both resume it) and mix their chunks.
            try (DestinationLock lock = DestinationLock.acquire(dst.dir); FileSystemStore work = prepare(dst, journal)) {
                journal = ConvertJournal.read(work).orElse(journal);
                return convert(src, work, dst, () -> dst.zip != null ? ZipStore.open(dst.zip)
                        : FileSystemStore.openReadOnly(dst.dir), true, root, groups, groupAttrs, targets, streams,
                        journal, unitName);
            }
        }
    }

    // ---- the conversion ----

    private ConvertResult convert(Store src, Store work, Destination dst, Supplier<Store> reopen, boolean closeReopened,
                                  Object root, List<String> groups, Map<String, Map<String, Object>> groupAttrs,
                                  List<ConvertPlan.Target> targets, List<Streaming> streams, ConvertJournal journal,
                                  String unitName) {
        long total = journal.totalCount();
        // A resumed conversion kept shards written by an earlier run. The journal proves the source's
        // metadata and the options unchanged, not the chunks: the finished destination is compared with
        // the source element by element, so that data rewritten in between cannot pass as converted.
        boolean resumed = journal.doneCount() > 0;
        listener.started(journal.doneCount(), total);
        journal.write(work);
        writeMetadata(work, root, groups, groupAttrs, targets, true);
        Run run = new Run(journal, work, listener, options.maxShards().orElse(Long.MAX_VALUE));
        Thread hook = new Thread(run::saveJournalQuietly, "zarr-direct-convert-journal");
        Runtime.getRuntime().addShutdownHook(hook);
        long t0 = System.nanoTime();
        try {
            for (int i = 0; i < targets.size() && !run.stopped.get(); i++) {
                convertArray(src, work, targets.get(i), streams.get(i), run);
            }
        } finally {
            try {
                listener.writingEnded();
            } finally {
                run.saveJournal();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // The JVM is shutting down; the hook saves the journal once more, which is harmless.
                }
            }
        }
        long nanos = System.nanoTime() - t0;
        List<String> paths = targets.stream().map(ConvertPlan.Target::path).toList();
        if (journal.doneCount() < total) {
            return new ConvertResult(paths, unitName, total, journal.doneCount(), run.written.get(), run.bytes.get(),
                    nanos);
        }
        writeMetadata(work, root, groups, groupAttrs, targets, false);
        if (options.zarrFormat() == 2 && root instanceof ZarrGroup) {
            Zarr.consolidate(work);
        }
        work.delete(ConvertJournal.KEY);
        ConvertResult result = new ConvertResult(paths, unitName, total, journal.doneCount(), run.written.get(),
                run.bytes.get(), nanos);
        listener.converted(result);
        if (dst != null && dst.zip != null) {
            pack(work, dst);
            listener.packed(dst.zip, sizeOf(dst.zip));
        }
        if (options.verify() || resumed) {
            verify(src, reopen, closeReopened, targets, resumed);
        }
        return result;
    }

    /** What a conversion in progress shares between its threads. */
    private static final class Run {
        final ConvertJournal journal;
        final Store work;
        final ConvertListener listener;
        final AtomicLong budget;
        final AtomicBoolean stopped = new AtomicBoolean();
        final AtomicLong written = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        private long lastSave = System.nanoTime();

        Run(ConvertJournal journal, Store work, ConvertListener listener, long maxUnits) {
            this.journal = journal;
            this.work = work;
            this.listener = listener;
            this.budget = new AtomicLong(maxUnits);
        }

        /** Takes up to {@code wanted} units from the maxShards budget; 0 once it is spent. */
        int claim(int wanted) {
            while (true) {
                long left = budget.get();
                int take = (int) Math.min(left, wanted);
                if (take == 0) {
                    stopped.set(true);
                    return 0;
                }
                if (budget.compareAndSet(left, left - take)) {
                    return take;
                }
            }
        }

        void completed(String path, List<Long> units, long decodedBytes) {
            for (long u : units) {
                journal.markDone(path, u);
            }
            written.addAndGet(units.size());
            bytes.addAndGet(decodedBytes);
            listener.written(path, units.size(), decodedBytes);
            boolean save;
            synchronized (this) {
                long now = System.nanoTime();
                save = now - lastSave >= JOURNAL_NANOS;
                if (save) {
                    lastSave = now;
                }
            }
            if (save) {
                saveJournal();
            }
        }

        synchronized void saveJournal() {
            journal.write(work);
        }

        void saveJournalQuietly() {
            try {
                saveJournal();
            } catch (RuntimeException e) {
                // At JVM exit the store may be closed already; the last saved journal stands.
            }
        }
    }

    private void convertArray(Store src, Store work, ConvertPlan.Target t, Streaming s, Run run) {
        long units = Shapes.product(s.unitGrid);
        if (units == 0 || run.journal.doneCount(t.path()) == units) {
            return;
        }
        try (ZarrContext rctx = context(options.backend(), s.readThreads);
             ZarrContext wctx = context("cpu", s.writeThreads)) {
            ZarrArray in = Zarr.openArray(rctx, src, t.path());
            ZarrArray outArray = Zarr.openArray(wctx, work, t.path());
            long blocks = Shapes.product(s.blockGrid);
            AtomicLong next = new AtomicLong();
            AtomicInteger ids = new AtomicInteger();
            AtomicBoolean failed = new AtomicBoolean();
            ExecutorService runners = Executors.newFixedThreadPool(options.parallel(), r -> {
                Thread th = new Thread(r, "zarr-direct-convert-" + ids.incrementAndGet());
                th.setDaemon(true);
                return th;
            });
            try {
                List<Future<?>> fs = new ArrayList<>();
                for (int i = 0; i < options.parallel(); i++) {
                    fs.add(runners.submit(() -> {
                        try {
                            while (!failed.get()) {
                                BlockWork w;
                                // Blocks claim the maxShards budget in block order, so an interrupted run
                                // leaves a prefix of the shards done, whichever thread gets there first.
                                synchronized (next) {
                                    w = null;
                                    while (w == null && !run.stopped.get() && next.get() < blocks) {
                                        w = plan(t, s, next.getAndIncrement(), run);
                                    }
                                }
                                if (w == null) {
                                    break;
                                }
                                copy(in, outArray, t, s, w, run);
                            }
                        } catch (RuntimeException | Error e) {
                            failed.set(true);
                            throw e;
                        }
                        return null;
                    }));
                }
                RuntimeException first = null;
                for (Future<?> f : fs) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        RuntimeException r = e.getCause() instanceof RuntimeException re ? re
                                : new IllegalStateException(e.getCause());
                        if (e.getCause() instanceof Error er) {
                            throw er;
                        }
                        if (first == null) {
                            first = r;
                        } else {
                            first.addSuppressed(r);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new ConvertException("interrupted while converting /" + t.path(), e);
                    }
                }
                if (first != null) {
                    throw first;
                }
            } finally {
                runners.shutdownNow();
            }
        }
    }

    /** One source block and the destination shards of it this thread was given to write. */
    private record BlockWork(long[] start, long[] stop, long unitsInBlock, List<Long> todo) {
    }

    /**
     * Lists the shards of block {@code b} not done yet and claims them from the maxShards budget;
     * null when there is nothing to write (all done, or the budget is spent).
     */
    private static BlockWork plan(ConvertPlan.Target t, Streaming s, long b, Run run) {
        int rank = s.unitGrid.length;
        long[] bi = Shapes.unravel(b, s.blockGrid);
        long[] u0 = new long[rank];
        long[] u1 = new long[rank];
        long[] start = new long[rank];
        long[] stop = new long[rank];
        long[] shape = t.shape();
        for (int i = 0; i < rank; i++) {
            u0[i] = bi[i] * s.k[i];
            u1[i] = Math.min(s.unitGrid[i], u0[i] + s.k[i]);
            start[i] = u0[i] * t.unit()[i];
            stop[i] = Math.min(shape[i], u1[i] * t.unit()[i]);
        }
        long[] span = new long[rank];
        for (int i = 0; i < rank; i++) {
            span[i] = u1[i] - u0[i];
        }
        long inBlock = Shapes.product(span);
        List<Long> pending = new ArrayList<>();
        for (long j = 0; j < inBlock; j++) {
            long[] rel = Shapes.unravel(j, span);
            long[] ui = new long[rank];
            for (int i = 0; i < rank; i++) {
                ui[i] = u0[i] + rel[i];
            }
            long lin = Shapes.linearIndex(ui, s.unitGrid);
            if (!run.journal.isDone(t.path(), lin)) {
                pending.add(lin);
            }
        }
        if (pending.isEmpty()) {
            return null;
        }
        int take = run.claim(pending.size());
        if (take == 0) {
            return null;
        }
        if (take < pending.size()) {
            run.stopped.set(true);
        }
        return new BlockWork(start, stop, inBlock, List.copyOf(pending.subList(0, take)));
    }

    /** Reads a planned block of the source and writes the destination shards it was given. */
    private static void copy(ZarrArray in, ZarrArray out, ConvertPlan.Target t, Streaming s, BlockWork w, Run run) {
        int rank = w.start().length;
        long[] start = w.start();
        long[] stop = w.stop();
        long[] shape = t.shape();
        long inBlock = w.unitsInBlock();
        List<Long> todo = w.todo();
        Selection blockSel = new Selection(start, stop);
        int es = t.dataType().byteSize();
        try (Tensor data = in.read(blockSel)) {
            long bytes;
            if (todo.size() == inBlock) {
                out.write(blockSel, data);
                bytes = data.byteSize();
            } else {
                bytes = 0;
                long[] strides = data.strides();
                for (long lin : todo) {
                    long[] ui = Shapes.unravel(lin, s.unitGrid);
                    long[] us = new long[rank];
                    long[] ue = new long[rank];
                    long off = data.byteOffset();
                    for (int i = 0; i < rank; i++) {
                        us[i] = ui[i] * t.unit()[i];
                        ue[i] = Math.min(shape[i], us[i] + t.unit()[i]);
                        off += (us[i] - start[i]) * strides[i] * es;
                    }
                    Selection unitSel = new Selection(us, ue);
                    Tensor view = Tensor.of(data.buffer(), off, t.dataType(), unitSel.shape(), strides);
                    out.write(unitSel, view);
                    bytes += Shapes.product(unitSel.shape()) * es;
                }
            }
            run.completed(t.path(), todo, bytes);
        }
    }

    /**
     * How one array streams: {@code k} destination shards per block along each dimension, and the
     * threads and memory that takes.
     */
    record Streaming(long[] unitGrid, long[] k, long[] blockGrid, long[] blockShape, long blockBytes,
                     long unitBytes, long sourceChunkBytes, int parallel, int decoders, int encoders, int readThreads,
                     int writeThreads, long boundBytes) {

        static Streaming of(ConvertPlan.Target t, int parallel, int threads, long budget) {
            long[] shape = t.shape();
            long[] unit = t.unit();
            long[] sc = t.sourceChunk();
            int rank = shape.length;
            int es = t.dataType().byteSize();
            long[] grid = new long[rank];
            long[] k = new long[rank];
            for (int i = 0; i < rank; i++) {
                grid[i] = shape[i] == 0 ? 0 : (shape[i] + unit[i] - 1) / unit[i];
                k[i] = Math.max(1, Math.min(ConvertPlan.lcm(unit[i], sc[i], Long.MAX_VALUE / 2) / unit[i], grid[i]));
            }
            while (parallel * blockBytes(k, unit, shape, es) > budget) {
                int widest = -1;
                for (int i = 0; i < rank; i++) {
                    if (k[i] > 1 && (widest < 0 || k[i] * unit[i] > k[widest] * unit[widest])) {
                        widest = i;
                    }
                }
                if (widest < 0) {
                    break;
                }
                k[widest] = k[widest] / 2;
            }
            long[] blockGrid = new long[rank];
            long[] blockShape = new long[rank];
            long unitsPerBlock = 1;
            long sourceChunksPerBlock = 1;
            for (int i = 0; i < rank; i++) {
                blockGrid[i] = grid[i] == 0 ? 0 : (grid[i] + k[i] - 1) / k[i];
                blockShape[i] = Math.min(shape[i], k[i] * unit[i]);
                unitsPerBlock *= k[i];
                // A block not aligned to source chunks touches one more of them.
                sourceChunksPerBlock *= (blockShape[i] + sc[i] - 1) / sc[i] + (blockShape[i] % sc[i] == 0 ? 0 : 1);
            }
            long blockBytes = blockBytes(k, unit, shape, es);
            long unitBytes = Shapes.product(unit) * es;
            long sourceChunkBytes = Shapes.product(sc) * es;
            // A read or write of a single chunk runs on the calling (block) thread, else on the context's workers.
            int readThreads = (int) Math.max(1, Math.min(threads, parallel * sourceChunksPerBlock));
            int writeThreads = (int) Math.max(1, Math.min(threads, parallel * unitsPerBlock));
            int decoders = sourceChunksPerBlock > 1 ? readThreads + parallel : parallel;
            int encoders = unitsPerBlock > 1 ? writeThreads + parallel : parallel;
            long bound = parallel * blockBytes + decoders * 2L * sourceChunkBytes + encoders * 2L * unitBytes;
            return new Streaming(grid, k, blockGrid, blockShape, blockBytes, unitBytes, sourceChunkBytes, parallel,
                    decoders, encoders, readThreads, writeThreads, bound);
        }

        private static long blockBytes(long[] k, long[] unit, long[] shape, int es) {
            long n = es;
            for (int i = 0; i < k.length; i++) {
                n *= Math.max(1, Math.min(shape[i], k[i] * unit[i]));
            }
            return n;
        }

        String explain() {
            return parallel + " blocks of " + mib(blockBytes) + " MiB " + Shapes.format(blockShape) + " in flight, "
                    + "decode scratch of " + decoders + " threads x 2 x " + mib(sourceChunkBytes)
                    + " MiB source chunk, encode scratch of " + encoders + " threads x 2 x " + mib(unitBytes)
                    + " MiB destination " + "shard";
        }
    }

    // ---- metadata ----

    /** Writes the metadata of every group and array, with the incomplete marker or without it. */
    private void writeMetadata(Store work, Object root, List<String> groups, Map<String, Map<String, Object>> groupAttrs,
                               List<ConvertPlan.Target> targets, boolean incomplete) {
        try (ZarrContext cpu = context("cpu", 1)) {
            // Arrays first and the root last, so the marker of the root is the last to go.
            for (ConvertPlan.Target t : targets) {
                if (t.v3() != null) {
                    Zarr.createArray(cpu, work, t.path(), t.v3().withAttributes(marked(t.v3().attributes(), incomplete)));
                } else {
                    Zarr.createArrayV2(cpu, work, t.path(), t.v2().withAttributes(marked(t.v2().attributes(), incomplete)));
                }
            }
            for (int i = groups.size() - 1; i >= 0; i--) {
                String g = groups.get(i);
                Map<String, Object> attrs = g.isEmpty() ? marked(groupAttrs.get(g), incomplete) : groupAttrs.get(g);
                if (options.zarrFormat() == 3) {
                    Zarr.createGroup(cpu, work, g, attrs);
                } else {
                    Zarr.createGroupV2(cpu, work, g, attrs);
                }
            }
        }
    }

    private static Map<String, Object> marked(Map<String, Object> attrs, boolean incomplete) {
        Map<String, Object> m = new LinkedHashMap<>(attrs);
        if (incomplete) {
            m.put(MARKER, INCOMPLETE);
        } else {
            m.remove(MARKER);
        }
        return m;
    }

    private static void walk(ZarrGroup g, List<String> groups, Map<String, Map<String, Object>> attrs,
                             List<ZarrArray> arrays) {
        groups.add(g.path());
        attrs.put(g.path(), g.attributes());
        for (String name : g.members()) {
            Object child = g.open(name);
            if (child instanceof ZarrArray a) {
                arrays.add(a);
            } else {
                walk((ZarrGroup) child, groups, attrs, arrays);
            }
        }
    }

    private ConvertJournal journalFor(String sourceId, Object root, List<ZarrArray> arrays,
                                      List<ConvertPlan.Target> targets) {
        MessageDigest sh = sha256();
        if (root instanceof ZarrGroup g) {
            sh.update(("group\n" + ConvertPlan.compactJson(g.attributes()) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        for (ZarrArray a : arrays) {
            String md = a.v2Metadata().map(v -> v.toZarrayJson() + ConvertPlan.compactJson(v.attributes()))
                    .orElseGet(() -> a.metadata().toJson());
            sh.update((a.path() + "\n" + md + "\n").getBytes(StandardCharsets.UTF_8));
        }
        MessageDigest th = sha256();
        th.update(("zarr_format " + options.zarrFormat() + "\n").getBytes(StandardCharsets.UTF_8));
        Map<String, Long> units = new LinkedHashMap<>();
        for (ConvertPlan.Target t : targets) {
            th.update((t.path() + "\n" + t.describeJson() + "\n").getBytes(StandardCharsets.UTF_8));
            long n = 1;
            for (int i = 0; i < t.shape().length; i++) {
                n *= t.shape()[i] == 0 ? 0 : (t.shape()[i] + t.unit()[i] - 1) / t.unit()[i];
            }
            units.put(t.path(), n);
        }
        HexFormat hex = HexFormat.of();
        return new ConvertJournal(sourceId, hex.formatHex(sh.digest()), hex.formatHex(th.digest()), units);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    // ---- destination ----

    /** Where the conversion writes ({@code dir}) and, for a .zip destination, the archive packed at the end. */
    record Destination(Path dir, Path zip) {
        String describe() {
            return zip == null ? dir.toString() : zip + " (staged in " + dir + ")";
        }
    }

    private static Destination destination(String source, Path destination) {
        Path p = destination.toAbsolutePath().normalize();
        boolean zip = p.getFileName() != null && p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".zip");
        Destination d = zip ? new Destination(p.resolveSibling(p.getFileName() + ".partial"), p) : new Destination(p, null);
        if (!URL.matcher(source).matches() && !source.startsWith("file:")) {
            Path s = Path.of(source).toAbsolutePath().normalize();
            for (Path x : zip ? List.of(d.dir, d.zip) : List.of(d.dir)) {
                if (x.startsWith(s) || s.startsWith(x)) {
                    throw new ConvertOptionsException("DST " + x + (x.equals(s) ? " is SRC"
                            : x.startsWith(s) ? " lies inside SRC " + s : " contains SRC " + s)
                            + "; give a destination apart from the source");
                }
            }
        }
        return d;
    }

    /**
     * Opens the working directory: new or empty, or an unfinished conversion of the same source and
     * target (then kept), or, with overwrite, a Zarr store that is emptied first. Anything else is refused.
     */
    private FileSystemStore prepare(Destination d, ConvertJournal journal) {
        if (d.zip != null && Files.exists(d.zip) && !options.overwrite()) {
            throw new ConvertException(d.zip + " exists; give a new .zip path, or --overwrite to replace it"
                    + " once the conversion completes");
        }
        if (Files.exists(d.dir) && !Files.isDirectory(d.dir)) {
            throw new ConvertException(d.dir + " exists and is not a directory; give a new directory as DST");
        }
        FileSystemStore work = FileSystemStore.create(d.dir);
        try {
            prepare(work, d.dir.toString(), journal);
            return work;
        } catch (RuntimeException e) {
            work.close();
            throw e;
        }
    }

    /** Keeps {@code work} when empty or an unfinished conversion of the same source and target; empties a Zarr store. */
    private void prepare(Store work, String where, ConvertJournal journal) {
        List<String> entries = work.listDir("").stream().filter(e -> !e.equals(DestinationLock.NAME)).toList();
        if (entries.isEmpty()) {
            return;
        }
        var existing = ConvertJournal.read(work);
        if (existing.isPresent() && !options.overwrite()) {
            if (existing.get().sameConversion(journal)) {
                return;
            }
            throw new ConvertException(where + " holds an unfinished conversion of another source or with"
                    + " other options (its journal names the source " + existing.get().source + "); run the command"
                    + " that started it to resume, or add --overwrite to start over");
        }
        boolean zarr = existing.isPresent() || Stream.of("zarr.json", ".zgroup", ".zarray", ".zmetadata")
                .anyMatch(work::exists);
        if (!options.overwrite()) {
            throw new ConvertException(where + " exists and is not empty (" + entries.size() + " entries"
                    + (zarr ? ", a Zarr store" : "") + ") and holds no unfinished conversion; give a new"
                    + " directory, or --overwrite to replace " + (zarr ? "the store" : "it"));
        }
        if (!zarr) {
            throw new ConvertException(where + " holds " + entries.size() + " entries but no Zarr store (no"
                    + " zarr.json, .zgroup or .zarray at its root); refusing to delete them, even with --overwrite");
        }
        listener.overwriting(where);
        work.deletePrefix("");
    }

    /** Copies every key of the working directory into a new archive, then deletes the directory. */
    private static void pack(Store work, Destination d) {
        List<String> keys = work.list("").stream().filter(k -> !k.equals(DestinationLock.NAME)).toList();
        ZipStore zip = ZipStore.create(d.zip);
        boolean ok = false;
        try {
            for (String k : keys) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment v = work.get(k, arena).orElseThrow(() -> new NoSuchKeyException(work.toString(), k));
                    zip.set(k, v);
                }
            }
            ok = true;
        } finally {
            if (ok) {
                zip.close();
            } else {
                try {
                    zip.close();
                } catch (RuntimeException e) {
                    // Already failing; the archive is left out as a whole either way.
                }
            }
        }
        work.deletePrefix("");
        try (Stream<Path> s = Files.walk(d.dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("packed " + d.zip + " but cannot remove the staging directory " + d.dir
                    + ": " + e.getMessage(), e);
        }
    }

    private static long sizeOf(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return -1;
        }
    }

    // ---- verify ----

    private void verify(Store src, Supplier<Store> openDestination, boolean close, List<ConvertPlan.Target> targets,
                        boolean resumed) {
        List<String> bad = new ArrayList<>();
        try (ZarrContext ctx = options.threads().isEmpty() ? context(options.backend(), 0)
                : context(options.backend(), options.threads().getAsInt())) {
            Store dst = openDestination.get();
            try {
                for (ConvertPlan.Target t : targets) {
                    String a = ArrayChecksum.sha256(Zarr.openArray(ctx, src, t.path()));
                    String b = ArrayChecksum.sha256(Zarr.openArray(ctx, dst, t.path()));
                    listener.verified(t.path(), a, b);
                    if (!a.equals(b)) {
                        bad.add("/" + t.path() + " (source " + a + ", destination " + b + ")");
                    }
                }
            } finally {
                if (close) {
                    dst.close();
                }
            }
        }
        if (!bad.isEmpty()) {
            throw new ConvertException("verify: the elements differ in " + bad.size() + " of " + targets.size()
                    + " arrays: " + String.join("; ", bad) + (resumed ? "; this run resumed a conversion started"
                    + " earlier and the source changed in between, so the destination mixes old and new data:"
                    + " convert again with --overwrite" : ""));
        }
    }

    // ---- source ----

    /** Runs {@code f}, turning an IllegalArgumentException (or a codec's refusal) into a ConvertOptionsException. */
    private static <T> T usage(Supplier<T> f) {
        try {
            return f.get();
        } catch (ConvertOptionsException e) {
            throw e;
        } catch (IllegalArgumentException | InvalidMetadataException | MissingCodecException e) {
            throw new ConvertOptionsException(e.getMessage(), e);
        }
    }

    private static void usageRun(Runnable r) {
        usage(() -> {
            r.run();
            return null;
        });
    }

    private static String sourceIdentity(String source) {
        if (URL.matcher(source).matches() || source.startsWith("file:")) {
            return source;
        }
        try {
            return Path.of(source).toAbsolutePath().normalize().toString();
        } catch (InvalidPathException e) {
            throw new ConvertOptionsException("SRC \"" + source + "\" is not a valid path: " + e.getMessage(), e);
        }
    }

    private static Store openSource(String source, dev.zarrdirect.api.store.StoreOptions storeOptions) {
        if (!URL.matcher(source).matches() && !source.startsWith("file:")) {
            Path p = Path.of(source);
            if (!Files.exists(p)) {
                throw new ConvertException("SRC " + p.toAbsolutePath().normalize() + " does not exist");
            }
        }
        return Stores.open(source, storeOptions);
    }

    private static Object openRoot(ZarrContext ctx, Store src) {
        try {
            return Zarr.open(ctx, src, "");
        } catch (NoSuchKeyException e) {
            throw new ConvertException("no Zarr array or group at " + src + ": " + e.getMessage());
        }
    }

    private static String describeNode(Object root, List<ZarrArray> arrays) {
        if (root instanceof ZarrArray a) {
            return "Zarr v" + a.zarrFormat() + " array";
        }
        int format = arrays.isEmpty() ? 3 : arrays.getFirst().zarrFormat();
        return "Zarr v" + format + " group, " + arrays.size() + (arrays.size() == 1 ? " array" : " arrays");
    }

    private static String sourceSummary(ArrayMetadata md) {
        ConvertPlan.Layout l = ConvertPlan.layout(md, "source");
        List<String> names = new ArrayList<>();
        l.arrayToArray().forEach(c -> names.add(c.name()));
        names.add(l.arrayToBytes().name());
        l.bytesToBytes().forEach(c -> names.add(c.name()));
        String layout = l.innerChunks() == null ? "chunks " + Shapes.format(md.chunkShape())
                : "chunks " + Shapes.format(l.innerChunks()) + " in shards " + Shapes.format(md.chunkShape());
        return layout + "; " + String.join(", ", names);
    }

    /** Whole MiB, rounded up. */
    static long mib(long bytes) {
        return (bytes + (1 << 20) - 1) >> 20;
    }

    /** A context on {@code backend} with the options' settings; {@code threads} 0 for the default count. */
    private ZarrContext context(String backend, int threads) {
        ZarrContext.Builder b = ZarrContext.builder().settings(options.settings()).backend(backend);
        if (threads > 0) {
            b.threads(threads);
        }
        return b.open();
    }
}
