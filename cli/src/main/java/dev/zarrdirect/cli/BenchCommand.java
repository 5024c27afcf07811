// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.testkit.Era5Layout;
import dev.zarrdirect.testkit.SyntheticEra5;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Reads a whole array (or a region) several times and reports decoded GB/s, median and spread; on
 * a device backend it also compares with the CPU backend plus the copy to the device, and measures
 * the limits (file read rate, host-to-device rate) the result should be held against.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Read an array several times and report decoded GB/s (median and spread).",
                "With --generate, first write an ERA5-like store at PATH (float32 [time, channel, lat, lon], zstd)."})
final class BenchCommand implements Callable<Integer> {

    /** The attribute that marks a store bench generated, and so may replace. */
    static final String MARKER = "zarr_direct_bench";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PATH", description = "Directory of the array (the one holding its zarr.json).")
    Path path;

    @Option(names = {"-b", "--backend"}, paramLabel = "NAME", defaultValue = "auto",
            description = "Backend to read with (auto, cpu, opencl, cuda). Default: ${DEFAULT-VALUE}.")
    String backend;

    @Option(names = "--threads", paramLabel = "N", description = "Worker threads, " + ZarrDirectCli.CONCURRENCY_BOUND_HELP
            + " (default: one per processor).")
    Integer threads;

    @Option(names = "--region", paramLabel = "SEL", description = "Read only this selection, e.g. 0:8,:,:,:.")
    String region;

    @Option(names = "--passes", paramLabel = "N", defaultValue = "5", description = "Timed passes. Default: ${DEFAULT-VALUE}.")
    int passes;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "4",
            description = "Extent of the first dimension read per call. Default: ${DEFAULT-VALUE}.")
    long batch;

    @Option(names = "--ahead", paramLabel = "N", defaultValue = "1",
            description = "On a device backend, keep up to N reads queued (readToDeviceAsync), as a prefetching "
                    + "loader does: the next read is fetched while the one before decodes; "
                    + ZarrDirectCli.CONCURRENCY_BOUND_HELP + ". Default: ${DEFAULT-VALUE} (one read after another).")
    int ahead;

    @Option(names = "--generate", paramLabel = "LAYOUT",
            description = "Write the store first (unless a complete one is there): era5 (one time step per chunk) or "
                    + "era5-sharded (one shard per time step, one [1, 1, lat, lon] inner chunk per channel).")
    String generate;

    @Option(names = "--shape", paramLabel = "T,C,Y,X", defaultValue = "32,16,721,1440", split = ",",
            description = "Shape for --generate. Default: ${DEFAULT-VALUE}.")
    long[] shape;

    @Option(names = "--level", defaultValue = "3", description = "Compression level for --generate. Default: ${DEFAULT-VALUE}.")
    long level;

    @Option(names = "--compressor", defaultValue = "zstd",
            description = "Compressor for --generate: zstd, blosc (lz4 + byte shuffle), gzip or none. Default: ${DEFAULT-VALUE}.")
    String compressor;

    @Option(names = "--force", description = "Read an array even when more than 4 GiB of a pass is the fill value of "
            + "chunks never written (refused without it, as minutes of work on nothing).")
    boolean force;

    @Option(names = "--compare-cpu", description = "On a device backend, also time the CPU backend plus the copy to the device.")
    boolean compareCpu;

    @Option(names = "--limits", description = "Measure the file read rate (a thread per core, best of 3 passes) and the "
            + "host-to-device rate and report the result as a fraction of min(read, copy) x compression ratio.")
    boolean limits;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (passes < 1 || batch < 1 || ahead < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--passes, --batch and --ahead must be at least 1");
        }
        ZarrDirectCli.checkConcurrency(spec.commandLine(), "--ahead", ahead);
        if (threads != null) {
            ZarrDirectCli.checkConcurrency(spec.commandLine(), "--threads", threads);
        }
        try (ZarrContext ctx = threads == null ? ZarrDirectCli.openContext(backend) : ZarrDirectCli.openContext(backend, threads)) {
            if (generate != null) {
                generate(ctx, err);
            }
            try (FileSystemStore store = FileSystemStore.open(path)) {
                ZarrArray a = Zarr.openArray(ctx, store, "");
                Selection sel = region == null ? Selection.all(a.shape()) : Selection.parse(region, a.shape());
                DeclaredWork.check(a, Shapes.product(sel.shape()) * a.dataType().byteSize(),
                        "bench of " + Text.escape(path.toString()) + " (one pass)", force);
                InfoCommand.Stored stored = InfoCommand.stored(a);
                long logical = Shapes.product(a.shape()) * a.dataType().byteSize();
                double ratio = (double) logical / Math.max(1, stored.bytes());
                out.printf(Locale.ROOT, "array:    %s %s%s chunks %s, %s%n", path, a.dataType(), Shapes.format(a.shape()),
                        Shapes.format(a.chunkShape()), String.join(", ", a.codecImplementations()));
                out.printf(Locale.ROOT, "stored:   %s, compression ratio %.2f%n", Text.bytes(stored.bytes()), ratio);
                out.printf(Locale.ROOT, "backend:  %s on %s, %d threads; path: %s%n", ctx.backend().name(), ctx.device(),
                        ctx.parallelism(), a.devicePath());
                // the cpu+copy figure and the read limit move with the host (2x between machines of one pool)
                out.printf(Locale.ROOT, "host:     %s, %d cores%n", cpuModel(), Runtime.getRuntime().availableProcessors());
                out.printf(Locale.ROOT, "reading:  %s in calls of %d along dimension 0%s, %d passes after one warm-up%n",
                        sel, batch, ahead > 1 ? ", " + ahead + " queued at once" : "", passes);
                out.flush();
                String pathBefore = a.devicePath();
                double main = report(out, ctx.backend().name(), timePasses(a, sel, ctx, null));
                // a path that times its batches both ways says here which way they went
                String pathAfter = a.devicePath();
                if (!pathAfter.equals(pathBefore)) {
                    out.printf(Locale.ROOT, "path:     after the passes: %s%n", pathAfter);
                }
                if (compareCpu && !ctx.device().isHost()) {
                    try (ZarrContext cpu = threads == null ? ZarrDirectCli.openContext("cpu") : ZarrDirectCli.openContext("cpu", threads)) {
                        ZarrArray onCpu = Zarr.openArray(cpu, store, "");
                        double c = report(out, "cpu+copy", timePasses(onCpu, sel, cpu, ctx.backend()));
                        out.printf(Locale.ROOT, "speedup:  %.2fx %s over cpu+copy%n", main / c, ctx.backend().name());
                    }
                }
                if (limits) {
                    int cores = Runtime.getRuntime().availableProcessors();
                    double read = fileReadRate(store, a.describe(), cores);
                    out.printf(Locale.ROOT, "limit:    file read %.2f GB/s (page cache, %d threads, best of %d)%n", read,
                            cores, READ_PASSES);
                    double limit = read;
                    if (!ctx.device().isHost()) {
                        double h2d = hostToDeviceRate(ctx.backend(), ctx.device());
                        out.printf(Locale.ROOT, "limit:    host-to-device copy %.2f GB/s (pinned, 1 GiB)%n", h2d);
                        limit = Math.min(read, h2d);
                    }
                    double decodedLimit = limit * ratio;
                    out.printf(Locale.ROOT, "limit:    min(read, copy) x ratio = %.2f GB/s decoded; %s reached %.0f%%%n",
                            decodedLimit, ctx.backend().name(), 100 * main / decodedLimit);
                }
            }
        }
        out.flush();
        return ZarrDirectCli.EXIT_OK;
    }

    /** GB/s of each timed pass (after one untimed warm-up pass). */
    private double[] timePasses(ZarrArray a, Selection sel, ZarrContext ctx, Backend copyTo) {
        long[] batchShape = sel.shape();
        if (batchShape.length > 0) {
            batchShape[0] = Math.min(batchShape[0], batch);
        }
        long batchBytes = Math.max(1, Shapes.product(batchShape) * a.dataType().byteSize());
        // A data loader reads into the same batch buffers again and again: host memory for a host
        // backend; pinned host memory plus device memory for the CPU-then-copy comparison.
        try (Tensor reuse = copyTo == null && ctx.device().isHost() ? Tensor.allocateHost(a.dataType(), batchShape) : null;
             Buffer pinned = copyTo == null ? null
                     : copyTo.allocateUninitialized(copyTo.defaultDevice(), MemoryKind.HOST_PINNED, batchBytes);
             Buffer onDevice = copyTo == null ? null
                     : copyTo.allocateUninitialized(copyTo.defaultDevice(), MemoryKind.DEVICE, batchBytes)) {
            return timePasses(a, sel, ctx, copyTo, reuse, pinned == null ? null : new Buffer[]{pinned, onDevice});
        }
    }

    private double[] timePasses(ZarrArray a, Selection sel, ZarrContext ctx, Backend copyTo, Tensor reuse,
                                Buffer[] staging) {
        double[] gbps = new double[passes];
        for (int p = -1; p < passes; p++) {
            long t0 = System.nanoTime();
            long bytes = pass(a, sel, ctx, copyTo, reuse, staging);
            long nanos = System.nanoTime() - t0;
            if (p >= 0) {
                gbps[p] = bytes / (double) nanos;
            }
        }
        return gbps;
    }

    /** One pass over {@code sel} in calls of {@link #batch} along dimension 0; returns the bytes read. */
    private long pass(ZarrArray a, Selection sel, ZarrContext ctx, Backend copyTo, Tensor reuse, Buffer[] staging) {
        long bytes = 0;
        // A pass over a large array can take minutes: after the first seconds it shows progress.
        long mib = Math.max(1, (Shapes.product(sel.shape()) * a.dataType().byteSize() + (1 << 20) - 1) >> 20);
        Progress p = new Progress(spec.commandLine().getErr(), Progress.stderrIsTerminal(), "pass", "MiB", mib)
                .onlyWhenSlow();
        java.util.ArrayDeque<java.util.concurrent.CompletableFuture<Tensor>> queued = new java.util.ArrayDeque<>();
        try {
            long[] start = sel.start();
            long[] stop = sel.stop();
            for (long t = start.length == 0 ? 0 : start[0]; t < (start.length == 0 ? 1 : stop[0]); t += batch) {
                Selection part = sel;
                if (start.length > 0) {
                    long[] s0 = start.clone();
                    long[] s1 = stop.clone();
                    s0[0] = t;
                    s1[0] = Math.min(stop[0], t + batch);
                    part = new Selection(s0, s1);
                }
                if (copyTo == null && ctx.device().isHost() && reuse != null
                        && java.util.Arrays.equals(reuse.shape(), part.shape())) {
                    // A data loader reads into the same host batch buffer again and again.
                    a.read(part, reuse);
                    bytes += reuse.byteSize();
                } else if (copyTo == null && ahead > 1) {
                    queued.add(a.readToDeviceAsync(part));
                    while (queued.size() >= ahead) {
                        bytes += drain(queued.removeFirst());
                    }
                } else if (copyTo == null) {
                    try (Tensor got = a.readToDevice(part)) {
                        bytes += got.byteSize();
                    }
                } else {
                    bytes += readOnCpuThenCopy(a, part, copyTo, staging);
                }
                p.update(bytes >> 20, bytes);
            }
            while (!queued.isEmpty()) {
                bytes += drain(queued.removeFirst());
            }
            p.update(mib, bytes);
            p.finish();
            return bytes;
        } finally {
            // after a failure, the reads still queued end and their tensors are freed
            queued.forEach(q -> q.handle((t, x) -> t).join());
            queued.forEach(q -> q.thenAccept(Tensor::close));
        }
    }

    /** Waits for a queued read, frees its tensor and returns its bytes. */
    private static long drain(java.util.concurrent.CompletableFuture<Tensor> read) {
        try (Tensor got = dev.zarrdirect.core.pipeline.Futures.await(read, "a queued device read failed",
                "interrupted while waiting for a queued device read")) {
            return got.byteSize();
        }
    }

    /** The CPU path a user has without a device decoder: decode into pinned host memory, then copy. */
    private static long readOnCpuThenCopy(ZarrArray a, Selection part, Backend device, Buffer[] staging) {
        long n = Shapes.product(part.shape()) * a.dataType().byteSize();
        Tensor host = Tensor.of(staging[0], 0, a.dataType(), part.shape(), Tensor.contiguousStrides(part.shape()));
        a.read(part, host);
        device.copy(staging[0], 0, staging[1], 0, n);
        return n;
    }

    private static double report(PrintWriter out, String what, double[] gbps) {
        double[] s = gbps.clone();
        Arrays.sort(s);
        double median = s[s.length / 2];
        out.printf(Locale.ROOT, "result:   %-9s median %.2f GB/s decoded (min %.2f, max %.2f; passes %s)%n", what, median,
                s[0], s[s.length - 1], Arrays.stream(gbps).mapToObj(v -> String.format(Locale.ROOT, "%.2f", v)).toList());
        out.flush();
        return median;
    }

    /** Passes of the file-read limit; the fastest counts. */
    static final int READ_PASSES = 3;
    /** Bytes a task of the file-read limit reads. */
    static final int READ_TASK_BYTES = 4 << 20;

    /**
     * The rate at which this machine reads the array's stored files: every file in ranges of
     * {@value #READ_TASK_BYTES} bytes on one thread per core, best of {@value #READ_PASSES} passes, GB/s of
     * stored bytes. A limit must be what the machine can do: one pass with a file a task on 8 threads
     * gave 26.35 GB/s on an H200 host of 16 cores, where the CUDA backend's own reader fetched the same
     * files at 33.6 (docs/performance.md, "The blosc store against its limit, measured again").
     */
    static double fileReadRate(FileSystemStore store, String what, int threads) {
        List<Path> files = new ArrayList<>();
        for (String k : store.list("")) {
            if (!k.endsWith("zarr.json")) {
                files.add(store.pathOf(k));
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        ThreadLocal<ByteBuffer> buffers = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(READ_TASK_BYTES));
        try {
            List<long[]> ranges = new ArrayList<>(); // file index, offset
            long total = 0;
            for (int i = 0; i < files.size(); i++) {
                long size = Files.size(files.get(i));
                total += size;
                for (long off = 0; off < size; off += READ_TASK_BYTES) {
                    ranges.add(new long[] {i, off});
                }
            }
            double best = 0;
            for (int pass = 0; pass < READ_PASSES; pass++) {
                long t0 = System.nanoTime();
                List<Future<Long>> fs = new ArrayList<>();
                for (long[] r : ranges) {
                    Path f = files.get((int) r[0]);
                    fs.add(pool.submit(() -> {
                        ByteBuffer buf = buffers.get().clear();
                        long n = 0;
                        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                            int got;
                            while (buf.hasRemaining() && (got = ch.read(buf, r[1] + n)) > 0) {
                                n += got;
                            }
                        }
                        return n;
                    }));
                }
                long bytes = 0;
                for (Future<Long> f : fs) {
                    bytes += f.get();
                }
                long nanos = System.nanoTime() - t0;
                if (bytes != total) { // a rate over bytes not read would be no limit at all
                    throw new IOException("read " + bytes + " of the " + total + " stored bytes");
                }
                best = Math.max(best, bytes / (double) Math.max(1, nanos));
            }
            return best;
        } catch (Exception e) {
            throw new UncheckedIOException(new IOException("reading the files of " + what + ": " + e, e));
        } finally {
            pool.shutdownNow();
        }
    }

    /** Pinned host to device, 1 GiB, best of 5. */
    private static double hostToDeviceRate(Backend b, Device dev) {
        long n = 1L << 30;
        try (Buffer pinned = b.allocate(dev, MemoryKind.HOST_PINNED, n);
             Buffer onDevice = b.allocate(dev, MemoryKind.DEVICE, n)) {
            double best = 0;
            for (int i = 0; i < 5; i++) {
                long t0 = System.nanoTime();
                b.copy(pinned, 0, onDevice, 0, n);
                best = Math.max(best, n / (double) (System.nanoTime() - t0));
            }
            return best;
        }
    }

    private void generate(ZarrContext ctx, PrintWriter err) {
        if (shape.length != 4) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--shape needs 4 extents T,C,Y,X, got "
                    + Arrays.toString(shape));
        }
        Era5Layout layout = switch (generate) {
            case "era5" -> Era5Layout.PLAIN;
            case "era5-sharded" -> Era5Layout.SHARDED;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "--generate must be era5 or era5-sharded, got \"" + generate + "\"");
        };
        if (Files.exists(path) && !Files.isDirectory(path)) {
            throw new ZarrDirectCli.CliFailure(Text.escape(path.toString()) + " is a file, not a directory; --generate"
                    + " writes a store (a directory) and never replaces a file: give a new or empty directory");
        }
        try {
            Files.createDirectories(path);
        } catch (IOException e) {
            throw new ZarrDirectCli.CliFailure("cannot create " + path + ": " + e.getMessage());
        }
        try (FileSystemStore store = FileSystemStore.create(path)) {
            if (store.exists("zarr.json")) {
                Object node = Zarr.open(ctx, store, "");
                if (!(node instanceof ZarrArray a) || !a.attributes().containsKey(MARKER)) {
                    throw new ZarrDirectCli.CliFailure(Text.escape(path.toString()) + " holds a Zarr "
                            + (node instanceof ZarrArray ? "array" : "group") + " that bench did not generate (no \""
                            + MARKER + "\" attribute; it holds " + GeneratedStores.contents(path)
                            + "); give a new or empty directory to --generate");
                }
                if (Arrays.equals(a.shape(), shape) && InfoCommand.stored(a).keys() == a.chunkCount()
                        && Boolean.TRUE.equals(a.attributes().get("complete"))
                        && (generate + "/" + compressor).equals(a.attributes().get(MARKER))) {
                    err.println("bench: reusing the complete store at " + path);
                    return;
                }
                GeneratedStores.checkOnlyOurs(store, path, "bench --generate",
                        GeneratedStores.chunkKeys("", a.shape().length).or("zarr.json"::equals));
                Zarr.delete(store, "");
            } else if (!store.list("").isEmpty()) {
                throw new ZarrDirectCli.CliFailure(Text.escape(path.toString()) + " is neither empty nor a store bench"
                        + " generated (it holds " + GeneratedStores.contents(path) + "); bench never deletes what it"
                        + " did not create: give a new or empty directory to --generate");
            }
            int t = (int) shape[0];
            int c = (int) shape[1];
            int y = (int) shape[2];
            int x = (int) shape[3];
            List<CodecMetadata> leaf = new ArrayList<>(List.of(CodecMetadata.of("bytes", Map.of("endian", "little"))));
            switch (compressor) {
                case "zstd" -> leaf.add(CodecMetadata.of("zstd", Map.of("level", level, "checksum", false)));
                case "blosc" -> leaf.add(CodecMetadata.of("blosc", Map.of("cname", "lz4", "clevel", Math.min(9, level),
                        "shuffle", "shuffle", "typesize", 4L, "blocksize", 0L)));
                case "gzip" -> leaf.add(CodecMetadata.of("gzip", Map.of("level", Math.min(9, level))));
                case "none" -> { }
                default -> throw new CommandLine.ParameterException(spec.commandLine(),
                        "--compressor must be zstd, blosc, gzip or none, got \"" + compressor + "\"");
            }
            ArrayMetadata md = layout.metadata(shape, leaf);
            ZarrArray a = Zarr.createArray(ctx, store, "", md.withAttributes(Map.of(MARKER, generate + "/" + compressor, "complete", false)));
            Progress p = new Progress(err, Progress.stderrIsTerminal(), "generating", "steps", t);
            long[] done = {0};
            new SyntheticEra5(y, x).writeAll(a, step -> {
                synchronized (done) {
                    p.update(++done[0], done[0] * (long) c * y * x * 4);
                }
            });
            p.finish();
            Zarr.createArray(ctx, store, "", md.withAttributes(Map.of(MARKER, generate + "/" + compressor, "complete", true)));
        }
    }

    /** The CPU's model name from /proc/cpuinfo, or the architecture where there is none. */
    static String cpuModel() {
        try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).strip())
                    .findFirst().orElse(System.getProperty("os.arch"));
        } catch (java.io.IOException | RuntimeException e) {
            return System.getProperty("os.arch");
        }
    }
}
