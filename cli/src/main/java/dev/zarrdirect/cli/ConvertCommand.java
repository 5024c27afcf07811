package dev.zarrdirect.cli;

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
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.core.store.memory.MemoryStore;
import dev.zarrdirect.core.store.zip.ZipStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
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
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Rewrites an array (or every array of a group) with another chunking, sharding, codecs, byte order or
 * Zarr format, streaming with bounded memory and resuming after an interruption.
 *
 * <h2>Streaming</h2>
 * The destination's shards (chunks when unsharded) are visited in C order, in blocks: a block is the
 * smallest run of destination shards along each dimension that also covers whole source chunks
 * (their least common multiple), halved while {@code --parallel} blocks would exceed {@code --memory},
 * so that no source chunk is decoded twice when memory allows. Each block is read from the source
 * ({@link ZarrArray#read(Selection)} decodes only the source chunks it touches) and written
 * ({@link ZarrArray#write(Selection, Tensor)} encodes its shards in parallel). {@code --parallel}
 * blocks are in flight at once. The bound printed at the start is those blocks plus the per-thread
 * scratch of the decoding and encoding threads (one source chunk, one destination shard, twice each).
 *
 * <h2>Resuming</h2>
 * The destination holds a journal ({@link ConvertJournal}) while the conversion runs, and every array
 * (and a root group) carries the attribute {@value #MARKER}{@code : "incomplete"}; both go when the
 * conversion completes, the metadata last. A second run with the same source and options skips the
 * shards the journal records. A destination that holds anything else is refused unless
 * {@code --overwrite}, and even then only when it is a Zarr store.
 *
 * <h2>Zip</h2>
 * A destination ending in {@code .zip} is converted into the directory {@code DST.partial} (which can be
 * resumed like any other) and packed into the archive through {@link ZipStore#create} at the end; the
 * archive appears whole or not at all.
 */
@Command(name = "convert", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Rewrite a Zarr array, or every array of a group, with other chunks, sharding, codecs, byte order or "
                + "Zarr format.", "Streams shard by shard with bounded memory; run it again after an interruption to resume.",
                "SRC: a directory, .zip or http(s) URL holding a Zarr v3 or v2 array or group.",
                "DST: a new directory, or a path ending in .zip."},
        footer = {"", "Examples:",
                "  zarr-direct convert era5.zarr era5-train.zarr --chunks 1,-1,-1,-1 --shard 4,-1,-1,-1 --codec zstd:level=3",
                "  zarr-direct convert era5-train.zarr era5-v2.zarr --no-shard --zarr-format 2 --codec blosc:cname=lz4",
                "",
                "Exit codes: 0 done, 1 failure (also: verify found different data), 2 bad usage, "
                        + "3 stopped by --max-shards (run again to resume)."})
final class ConvertCommand implements Callable<Integer> {

    static final int EXIT_INTERRUPTED = 3;
    /** The attribute on an unfinished destination's arrays and root group. */
    static final String MARKER = "zarr_direct_convert";
    static final String INCOMPLETE = "incomplete";
    /** The journal is written at most this often while shards complete (and always at the end or a stop). */
    private static final long JOURNAL_NANOS = 250_000_000L;
    private static final Pattern URL = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+://.*");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SRC", description = "The array or group to read.")
    String source;

    @Parameters(index = "1", paramLabel = "DST", description = "The directory (or .zip file) to write.")
    String destination;

    @Option(names = "--chunks", paramLabel = "C0,C1,...", split = ",", hideParamSyntax = true,
            description = "New chunk shape (the inner chunks when sharded); -1 for a whole dimension. Default: the "
                    + "source's (inner) chunk shape.")
    long[] chunks;

    @Option(names = "--shard", paramLabel = "S0,S1,...", split = ",", hideParamSyntax = true,
            description = "Shard with this shard shape, a multiple of the chunk shape; -1 for a whole dimension.")
    long[] shard;

    @Option(names = "--no-shard", description = "Remove sharding: the inner chunks become the chunks (unless --chunks).")
    boolean noShard;

    @Option(names = "--codec", paramLabel = "SPEC",
            description = "A bytes-to-bytes codec of the new chain, repeatable, in order: zstd:level=3,checksum=false, "
                    + "gzip:level=5, blosc:cname=lz4,clevel=5,shuffle=shuffle, crc32c, or none. Default: the source's.")
    List<String> codecs;

    @Option(names = "--endian", paramLabel = "little|big", description = "Byte order of the bytes codec. Default: the source's.")
    String endian;

    @Option(names = "--zarr-format", paramLabel = "2|3", defaultValue = "3",
            description = "Zarr format of the destination. Default: ${DEFAULT-VALUE}.")
    int zarrFormat;

    @Option(names = "--threads", paramLabel = "N", description = "Threads decoding and encoding chunks (default: one per processor).")
    Integer threads;

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "2",
            description = "Blocks of destination shards in flight at once. Default: ${DEFAULT-VALUE}.")
    int parallel;

    @Option(names = "--memory", paramLabel = "MIB", defaultValue = "2048",
            description = "Memory for the blocks in flight, in MiB; blocks shrink to fit. Default: ${DEFAULT-VALUE}.")
    long memoryMib;

    @Option(names = {"-b", "--backend"}, paramLabel = "NAME", defaultValue = "cpu",
            description = "Backend to read with. Default: ${DEFAULT-VALUE}.")
    String backend;

    @Option(names = "--overwrite", description = "Replace a destination that holds a Zarr store (and not an "
            + "unfinished conversion of this source with these options).")
    boolean overwrite;

    @Option(names = "--verify", description = "At the end compare the SHA-256 of every array's elements in source and "
            + "destination (as 'zarr-direct checksum'); exit 1 when they differ.")
    boolean verify;

    @Option(names = "--max-shards", paramLabel = "N",
            description = "For testing resumption: stop after writing N shards (or chunks), exit code 3.")
    Long maxShards;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ConvertPlan.Options options = options();
        int nThreads = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        Destination dst = destination();
        String sourceId = sourceIdentity();
        try (Store src = openSource(); ZarrContext ctx = ZarrDirectCli.openContext(backend, nThreads)) {
            if (options.codecs() != null) {
                usageRun(() -> ConvertPlan.checkCodecs(options.codecs(), ctx, DataType.FLOAT32));
            }
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
                usageRun(() -> {
                    if (t.v3() != null) {
                        Zarr.createArray(ctx, new MemoryStore(), t.path(), t.v3());
                    } else {
                        Zarr.createArrayV2(ctx, new MemoryStore(), t.path(), t.v2());
                    }
                });
            }
            ConvertJournal journal = journalFor(sourceId, root, arrays, targets);
            boolean sharded = targets.stream().anyMatch(ConvertPlan.Target::sharded);
            String unitWord = sharded ? "shards" : "chunks";

            out.println("source:       " + src + " (" + describeNode(root, arrays) + ")");
            out.println("destination:  " + dst.describe() + " (Zarr v" + zarrFormat + ")");
            List<Streaming> streams = new ArrayList<>();
            long bound = 0;
            Streaming largest = null;
            for (ConvertPlan.Target t : targets) {
                Streaming s = Streaming.of(t, parallel, nThreads, memoryMib << 20);
                streams.add(s);
                out.println("array /" + t.path() + ":" + " ".repeat(Math.max(1, 8 - t.path().length())) + t.dataType()
                        + Shapes.format(t.shape()) + " " + sourceSummary(t.source().metadata()) + " -> " + t.summary()
                        + (t.note() == null ? "" : " (" + t.note() + ")"));
                if (largest == null || s.boundBytes > bound) {
                    bound = s.boundBytes;
                    largest = s;
                }
            }
            if (largest != null) {
                out.println("memory bound: ~" + mib(bound) + " MiB (" + largest.explain() + ")");
            }
            out.flush();

            try (FileSystemStore work = prepare(dst, journal, out)) {
                journal = ConvertJournal.read(work).orElse(journal);
                return convert(src, work, dst, root, groups, groupAttrs, targets, streams, journal, unitWord, out, err);
            }
        }
    }

    // ---- the conversion ----

    private int convert(Store src, FileSystemStore work, Destination dst, Object root, List<String> groups,
                        Map<String, Map<String, Object>> groupAttrs, List<ConvertPlan.Target> targets,
                        List<Streaming> streams, ConvertJournal journal, String unitWord, PrintWriter out,
                        PrintWriter err) {
        long total = journal.totalCount();
        long already = journal.doneCount();
        if (already > 0) {
            out.println("resuming: " + already + "/" + total + " " + unitWord + " already done");
            out.flush();
        }
        journal.write(work);
        writeMetadata(work, root, groups, groupAttrs, targets, true);
        ConvertProgress progress = new ConvertProgress(err, Progress.stderrIsTerminal(), unitWord, total, already);
        Run run = new Run(journal, work, progress, maxShards == null ? Long.MAX_VALUE : maxShards);
        Thread hook = new Thread(run::saveJournalQuietly, "zarr-direct-convert-journal");
        Runtime.getRuntime().addShutdownHook(hook);
        long t0 = System.nanoTime();
        try {
            for (int i = 0; i < targets.size() && !run.stopped.get(); i++) {
                convertArray(src, work, targets.get(i), streams.get(i), run);
            }
        } finally {
            progress.finish();
            run.saveJournal();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // The JVM is shutting down; the hook saves the journal once more, which is harmless.
            }
        }
        long nanos = System.nanoTime() - t0;
        if (journal.doneCount() < total) {
            err.println("zarr-direct: stopped after " + run.written.get() + " " + unitWord + " (--max-shards "
                    + maxShards + "); " + journal.doneCount() + "/" + total + " done; run the same command again to resume");
            err.flush();
            return EXIT_INTERRUPTED;
        }
        writeMetadata(work, root, groups, groupAttrs, targets, false);
        if (zarrFormat == 2 && root instanceof ZarrGroup) {
            Zarr.consolidate(work);
        }
        work.delete(ConvertJournal.KEY);
        out.println(String.format(Locale.ROOT, "converted:    %d %s (%s decoded) in %s, %s", run.written.get(), unitWord,
                Text.human(run.bytes.get()), Text.seconds(nanos), Text.gbPerSecond(run.bytes.get(), nanos)));
        if (dst.zip != null) {
            pack(work, dst);
            out.println("packed:       " + dst.zip + " (" + Text.human(sizeOf(dst.zip)) + ")");
        }
        out.flush();
        if (verify) {
            return verify(src, dst, targets, out);
        }
        return ZarrDirectCli.EXIT_OK;
    }

    /** What a conversion in progress shares between its threads. */
    private static final class Run {
        final ConvertJournal journal;
        final Store work;
        final ConvertProgress progress;
        final AtomicLong budget;
        final AtomicBoolean stopped = new AtomicBoolean();
        final AtomicLong written = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        private long lastSave = System.nanoTime();

        Run(ConvertJournal journal, Store work, ConvertProgress progress, long maxUnits) {
            this.journal = journal;
            this.work = work;
            this.progress = progress;
            this.budget = new AtomicLong(maxUnits);
        }

        /** Takes up to {@code wanted} units from the --max-shards budget; 0 once it is spent. */
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
            progress.add(units.size(), decodedBytes);
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
        try (ZarrContext rctx = ZarrDirectCli.openContext(backend, s.readThreads);
             ZarrContext wctx = ZarrDirectCli.openContext("cpu", s.writeThreads)) {
            ZarrArray in = Zarr.openArray(rctx, src, t.path());
            ZarrArray outArray = Zarr.openArray(wctx, work, t.path());
            long blocks = Shapes.product(s.blockGrid);
            AtomicLong next = new AtomicLong();
            AtomicInteger ids = new AtomicInteger();
            AtomicBoolean failed = new AtomicBoolean();
            ExecutorService runners = Executors.newFixedThreadPool(parallel, r -> {
                Thread th = new Thread(r, "zarr-direct-convert-" + ids.incrementAndGet());
                th.setDaemon(true);
                return th;
            });
            try {
                List<Future<?>> fs = new ArrayList<>();
                for (int i = 0; i < parallel; i++) {
                    fs.add(runners.submit(() -> {
                        try {
                            while (!failed.get()) {
                                BlockWork w;
                                // Blocks claim the --max-shards budget in block order, so an interrupted run
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
                        throw new ZarrDirectCli.CliFailure("interrupted while converting /" + t.path());
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
     * Lists the shards of block {@code b} not done yet and claims them from the --max-shards budget;
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
        try (ZarrContext cpu = ZarrDirectCli.openContext("cpu", 1)) {
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
                if (zarrFormat == 3) {
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
            sh.update(("group\n" + Text.compactJson(g.attributes()) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        for (ZarrArray a : arrays) {
            String md = a.v2Metadata().map(v -> v.toZarrayJson() + Text.compactJson(v.attributes()))
                    .orElseGet(() -> a.metadata().toJson());
            sh.update((a.path() + "\n" + md + "\n").getBytes(StandardCharsets.UTF_8));
        }
        MessageDigest th = sha256();
        th.update(("zarr_format " + zarrFormat + "\n").getBytes(StandardCharsets.UTF_8));
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

    private Destination destination() {
        Path p;
        try {
            p = Path.of(destination).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "DST \"" + destination
                    + "\" is not a valid path: " + e.getMessage());
        }
        if (URL.matcher(destination).matches()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "DST must be a local directory or .zip path, got \""
                    + destination + "\"");
        }
        boolean zip = p.getFileName() != null && p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".zip");
        Destination d = zip ? new Destination(p.resolveSibling(p.getFileName() + ".partial"), p) : new Destination(p, null);
        if (!URL.matcher(source).matches() && !source.startsWith("file:")) {
            Path s = Path.of(source).toAbsolutePath().normalize();
            for (Path x : zip ? List.of(d.dir, d.zip) : List.of(d.dir)) {
                if (x.startsWith(s) || s.startsWith(x)) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "DST " + x + (x.equals(s) ? " is SRC"
                            : x.startsWith(s) ? " lies inside SRC " + s : " contains SRC " + s)
                            + "; give a destination apart from the source");
                }
            }
        }
        return d;
    }

    /**
     * Opens the working directory: new or empty, or an unfinished conversion of the same source and
     * target (then kept), or, with --overwrite, a Zarr store that is emptied first. Anything else is refused.
     */
    private FileSystemStore prepare(Destination d, ConvertJournal journal, PrintWriter out) {
        if (d.zip != null && Files.exists(d.zip) && !overwrite) {
            throw new ZarrDirectCli.CliFailure(d.zip + " exists; give a new .zip path, or --overwrite to replace it"
                    + " once the conversion completes");
        }
        if (Files.exists(d.dir) && !Files.isDirectory(d.dir)) {
            throw new ZarrDirectCli.CliFailure(d.dir + " exists and is not a directory; give a new directory as DST");
        }
        FileSystemStore work = FileSystemStore.create(d.dir);
        try {
            List<String> entries = work.listDir("");
            if (entries.isEmpty()) {
                return work;
            }
            var existing = ConvertJournal.read(work);
            if (existing.isPresent() && !overwrite) {
                if (existing.get().sameConversion(journal)) {
                    return work;
                }
                throw new ZarrDirectCli.CliFailure(d.dir + " holds an unfinished conversion of another source or with"
                        + " other options (its journal names the source " + existing.get().source + "); run the command"
                        + " that started it to resume, or add --overwrite to start over");
            }
            boolean zarr = existing.isPresent() || Stream.of("zarr.json", ".zgroup", ".zarray", ".zmetadata")
                    .anyMatch(work::exists);
            if (!overwrite) {
                throw new ZarrDirectCli.CliFailure(d.dir + " exists and is not empty (" + entries.size() + " entries"
                        + (zarr ? ", a Zarr store" : "") + ") and holds no unfinished conversion; give a new"
                        + " directory, or --overwrite to replace " + (zarr ? "the store" : "it"));
            }
            if (!zarr) {
                throw new ZarrDirectCli.CliFailure(d.dir + " holds " + entries.size() + " entries but no Zarr store (no"
                        + " zarr.json, .zgroup or .zarray at its root); refusing to delete them, even with --overwrite");
            }
            out.println("overwrite:    deleting the store at " + d.dir);
            out.flush();
            work.deletePrefix("");
            return work;
        } catch (RuntimeException e) {
            work.close();
            throw e;
        }
    }

    /** Copies every key of the working directory into a new archive, then deletes the directory. */
    private static void pack(FileSystemStore work, Destination d) {
        List<String> keys = work.list("");
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

    private int verify(Store src, Destination d, List<ConvertPlan.Target> targets, PrintWriter out) {
        List<String> bad = new ArrayList<>();
        try (ZarrContext ctx = threads == null ? ZarrDirectCli.openContext(backend) : ZarrDirectCli.openContext(backend, threads);
             Store dst = d.zip != null ? ZipStore.open(d.zip) : FileSystemStore.openReadOnly(d.dir)) {
            for (ConvertPlan.Target t : targets) {
                String a = ArrayChecksum.sha256(Zarr.openArray(ctx, src, t.path()));
                String b = ArrayChecksum.sha256(Zarr.openArray(ctx, dst, t.path()));
                out.println("sha256 " + a + "  source /" + t.path());
                out.println("sha256 " + b + "  destination /" + t.path());
                out.flush();
                if (!a.equals(b)) {
                    bad.add("/" + t.path() + " (source " + a + ", destination " + b + ")");
                }
            }
        }
        if (!bad.isEmpty()) {
            throw new ZarrDirectCli.CliFailure("verify: the elements differ in " + bad.size() + " of " + targets.size()
                    + " arrays: " + String.join("; ", bad));
        }
        out.println("verified:     " + targets.size() + (targets.size() == 1 ? " array" : " arrays")
                + ", source and destination checksums equal");
        out.flush();
        return ZarrDirectCli.EXIT_OK;
    }

    // ---- options and source ----

    private ConvertPlan.Options options() {
        if (shard != null && noShard) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--shard and --no-shard exclude each other");
        }
        if (zarrFormat != 2 && zarrFormat != 3) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--zarr-format must be 2 or 3, got " + zarrFormat);
        }
        if (shard != null && zarrFormat == 2) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--shard needs --zarr-format 3: Zarr v2 has no"
                    + " sharding");
        }
        if (endian != null && !endian.equals("little") && !endian.equals("big")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--endian must be little or big, got \""
                    + endian + "\"");
        }
        if (parallel < 1 || (threads != null && threads < 1) || memoryMib < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--parallel, --threads and --memory must be at"
                    + " least 1");
        }
        if (maxShards != null && maxShards < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max-shards must be 0 or more");
        }
        if (chunks != null && shard != null && chunks.length == shard.length) {
            for (int i = 0; i < chunks.length; i++) {
                if (chunks[i] > 0 && shard[i] > 0 && shard[i] % chunks[i] != 0) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--shard " + ConvertPlan.join(shard)
                            + " is not a multiple of --chunks " + ConvertPlan.join(chunks) + " in dimension " + i + " ("
                            + shard[i] + " % " + chunks[i] + " = " + shard[i] % chunks[i] + ")");
                }
            }
        }
        List<CodecMetadata> b2b = null;
        if (codecs != null) {
            b2b = new ArrayList<>();
            for (String c : codecs) {
                b2b.addAll(usage(() -> ConvertPlan.parseCodec(c)));
            }
        }
        return new ConvertPlan.Options(chunks, shard, noShard, b2b, endian, zarrFormat);
    }

    /** Runs {@code f}, turning an IllegalArgumentException (or a codec's refusal) into a usage error. */
    private <T> T usage(Callable<T> f) {
        try {
            return f.call();
        } catch (IllegalArgumentException | dev.zarrdirect.api.InvalidMetadataException
                 | dev.zarrdirect.api.MissingCodecException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void usageRun(Runnable r) {
        usage(() -> {
            r.run();
            return null;
        });
    }

    private String sourceIdentity() {
        if (URL.matcher(source).matches() || source.startsWith("file:")) {
            return source;
        }
        try {
            return Path.of(source).toAbsolutePath().normalize().toString();
        } catch (InvalidPathException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "SRC \"" + source + "\" is not a valid path: "
                    + e.getMessage());
        }
    }

    private Store openSource() {
        if (!URL.matcher(source).matches() && !source.startsWith("file:")) {
            Path p = Path.of(source);
            if (!Files.exists(p)) {
                throw new ZarrDirectCli.CliFailure("SRC " + p.toAbsolutePath().normalize() + " does not exist");
            }
        }
        return Stores.open(source);
    }

    private static Object openRoot(ZarrContext ctx, Store src) {
        try {
            return Zarr.open(ctx, src, "");
        } catch (NoSuchKeyException e) {
            throw new ZarrDirectCli.CliFailure("no Zarr array or group at " + src + ": " + e.getMessage());
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

    static long mib(long bytes) {
        return (bytes + (1 << 20) - 1) >> 20;
    }
}
