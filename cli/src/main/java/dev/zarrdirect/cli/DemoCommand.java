// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.testkit.SyntheticEra5;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * Writes a synthetic ERA5-like store (or reuses one written before), reads it back in batches of
 * time steps onto the best device, and reports the decoded throughput and the array's SHA-256.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Write a synthetic ERA5-like store [time, channel, lat, lon] (float32, zstd) unless DIR holds it already,",
                "read it back in batches of time steps onto the best device, and report GB/s and the SHA-256."})
final class DemoCommand implements Callable<Integer> {

    static final String ARRAY = "era5";
    static final String MARKER = "zarr_direct_demo";
    static final int CHANNELS = SyntheticEra5.CHANNELS.size();
    static final int LAT = 181;
    static final int LON = 360;
    static final int WRITE_SLAB_STEPS = 4;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR",
            description = "Store directory (created; reused when it holds this demo's array). "
                    + "Default: zarr-direct/demo.zarr under $XDG_CACHE_HOME, else under ~/.cache (this user's own).")
    Path dir;

    @Option(names = "--steps", paramLabel = "N", defaultValue = "96",
            description = "Time steps (one chunk each, ~2 MB decoded). Default: ${DEFAULT-VALUE}.")
    int steps;

    @Option(names = "--passes", paramLabel = "N", defaultValue = "5",
            description = "Times the store is read; the median pass is reported. Default: ${DEFAULT-VALUE}.")
    int passes;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "4",
            description = "Time steps read per batch. Default: ${DEFAULT-VALUE}.")
    int batch;

    @Option(names = {"-b", "--backend"}, paramLabel = "NAME", defaultValue = "auto",
            description = "Backend to read onto: auto (the best found), cpu, cuda, ... Default: ${DEFAULT-VALUE}.")
    String backend;

    @Option(names = "--rewrite", description = "Write the store again even when DIR holds a valid one.")
    boolean rewrite;

    /**
     * The per-user default store: {@code $XDG_CACHE_HOME/zarr-direct/demo.zarr} when that variable is an
     * absolute path, else {@code ~/.cache/zarr-direct/demo.zarr} (never a directory other users share).
     */
    static Path defaultDir(Map<String, String> env, String home) {
        String xdg = env.get("XDG_CACHE_HOME");
        Path cache = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg) : Path.of(home, ".cache");
        return cache.resolve("zarr-direct").resolve("demo.zarr");
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (steps < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--steps must be at least 1, got " + steps);
        }
        if (passes < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--passes must be at least 1, got " + passes);
        }
        if (batch < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--batch must be at least 1, got " + batch);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean terminal = Progress.stderrIsTerminal();
        Path root = (dir != null ? dir : defaultDir(System.getenv(), System.getProperty("user.home")))
                .toAbsolutePath().normalize();
        if (dir == null) {
            try {
                Files.createDirectories(root.getParent());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + root.getParent() + " for the demo store (give DIR)", e);
            }
        }
        long[] shape = {steps, CHANNELS, LAT, LON};
        try (ZarrContext ctx = ZarrDirectCli.openContext(backend); FileSystemStore store = FileSystemStore.create(root)) {
            out.println("backend:  " + ctx.backend().name() + " on " + ctx.device() + " (" + ctx.parallelism()
                    + " worker threads)");
            out.println("store:    " + root);
            out.flush();
            // Checked even with --rewrite: a directory that is not a demo store is never deleted.
            ZarrArray array = existing(ctx, store, shape);
            if (array == null || rewrite) {
                array = write(ctx, store, shape, err, terminal);
            } else {
                out.println("reusing the demo array written earlier (--rewrite to write it again)");
            }
            InfoCommand.Stored stored = InfoCommand.stored(array);
            long logical = Shapes.product(shape) * DataType.FLOAT32.byteSize();
            out.println("array:    /" + ARRAY + " float32 " + Shapes.format(shape) + " [time, channel, lat, lon], chunks "
                    + Shapes.format(array.chunkShape()) + ", " + String.join(", ", array.codecImplementations()));
            out.println(String.format(Locale.ROOT, "stored:   %s in %d chunks, ratio %.2f", Text.bytes(stored.bytes()),
                    stored.keys(), (double) logical / Math.max(1, stored.bytes())));
            out.flush();

            // The first pass also warms the JIT and the page cache; the figure reported is the median
            // pass, with the spread, so one noisy pass does not decide it.
            long[] passNanos = new long[passes];
            long decoded = 0;
            boolean host = ctx.device().isHost();
            try (Tensor reuse = host ? Tensor.allocateHost(DataType.FLOAT32, batch, CHANNELS, LAT, LON) : null) {
                for (int pass = 0; pass < passes; pass++) {
                    Progress p = new Progress(err, terminal, "reading " + (pass + 1) + "/" + passes, "steps", steps);
                    decoded = 0;
                    long verifyNanos = 0;
                    long t0 = System.nanoTime();
                    for (long t = 0; t < steps; t += batch) {
                        long n = Math.min(batch, steps - t);
                        Selection sel = new Selection(new long[]{t, 0, 0, 0}, new long[]{t + n, CHANNELS, LAT, LON});
                        if (host && n == batch) {
                            array.read(sel, reuse);
                            decoded += reuse.byteSize();
                            if (t == 0 && pass == 0) {
                                long v0 = System.nanoTime();
                                verifySample(reuse, ctx);
                                verifyNanos = System.nanoTime() - v0;
                            }
                        } else {
                            try (Tensor tensor = array.readToDevice(sel)) {
                                decoded += tensor.byteSize();
                                if (t == 0 && pass == 0) {
                                    long v0 = System.nanoTime();
                                    verifySample(tensor, ctx);
                                    verifyNanos = System.nanoTime() - v0;
                                }
                            }
                        }
                        p.update(t + n, decoded);
                    }
                    // The spot check against the generator is not part of the read.
                    passNanos[pass] = System.nanoTime() - t0 - verifyNanos;
                    p.finish();
                }
            }
            long[] sorted = passNanos.clone();
            java.util.Arrays.sort(sorted);
            long nanos = sorted[passes / 2];
            out.println("decoded:  " + Text.bytes(decoded) + " per pass, " + passes + " passes, in "
                    + (steps + batch - 1) / batch + " batches of " + batch + " steps onto " + ctx.device());
            StringBuilder each = new StringBuilder();
            for (long pn : passNanos) {
                each.append(each.isEmpty() ? "" : ", ").append(Text.gbPerSecond(decoded, pn));
            }
            out.println("passes:   " + each);
            out.println("time:     " + Text.seconds(nanos) + " (median pass)");
            out.println("speed:    " + Text.gbPerSecond(decoded, nanos) + " decoded (median; fastest "
                    + Text.gbPerSecond(decoded, sorted[0]) + ", slowest " + Text.gbPerSecond(decoded, sorted[passes - 1]) + ")");
            long h0 = System.nanoTime();
            String sha = ArrayChecksum.sha256(array);
            out.println("checksum: computed in " + Text.seconds(System.nanoTime() - h0)
                    + " (the same as 'zarr-direct checksum " + root + "/" + ARRAY + "')");
            out.println("sha256 " + sha);
        }
        out.flush();
        return ZarrDirectCli.EXIT_OK;
    }

    /** The demo array in {@code store} when it is complete and of {@code shape}; null when it must be written. */
    private ZarrArray existing(ZarrContext ctx, FileSystemStore store, long[] shape) {
        if (!store.exists("zarr.json")) {
            if (!isEmpty(store.root())) {
                throw new ZarrDirectCli.CliFailure(Text.escape(store.root().toString()) + " is neither empty nor a"
                        + " zarr-direct demo store (it has no zarr.json and holds " + GeneratedStores.contents(store.root())
                        + "); give a new or empty directory");
            }
            return null;
        }
        Object root = Zarr.open(ctx, store, "");
        if (!(root instanceof ZarrGroup g) || !g.attributes().containsKey(MARKER)) {
            throw new ZarrDirectCli.CliFailure(Text.escape(store.root().toString()) + " holds a Zarr node that is not a"
                    + " zarr-direct demo store (no \"" + MARKER + "\" attribute at its root; it holds "
                    + GeneratedStores.contents(store.root()) + "); give a new or empty directory");
        }
        if (!store.exists(ARRAY + "/zarr.json") || !(Boolean.TRUE.equals(g.attributes().get("complete")))) {
            return null;
        }
        ZarrArray a = g.openArray(ARRAY);
        if (!Arrays.equals(a.shape(), shape) || InfoCommand.stored(a).keys() != a.chunkCount()) {
            return null;
        }
        return a;
    }

    private static boolean isEmpty(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }

    private ZarrArray write(ZarrContext ctx, FileSystemStore store, long[] shape, PrintWriter err, boolean terminal) {
        // The store is replaced: nothing in it may be anything but what demo writes.
        GeneratedStores.checkOnlyOurs(store, store.root(), "demo", GeneratedStores.chunkKeys(ARRAY + "/", 4)
                .or(k -> k.equals("zarr.json") || k.equals(ARRAY + "/zarr.json")));
        Zarr.delete(store, "");
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put(MARKER, 1L);
        attrs.put("complete", false);
        attrs.put("title", "synthetic ERA5-like fields on a 1-degree grid, written by zarr-direct demo");
        attrs.put("channel_names", List.copyOf(SyntheticEra5.CHANNELS));
        attrs.put("seed", SyntheticEra5.DEFAULT_SEED);
        Zarr.createGroup(ctx, store, "", attrs);
        ArrayMetadata md = ArrayMetadata.create(shape, DataType.FLOAT32, new long[]{1, CHANNELS, LAT, LON},
                        FillValue.parse("NaN", DataType.FLOAT32, "demo fill value"),
                        List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
                                CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false))))
                .withDimensionNames(List.of("time", "channel", "lat", "lon"))
                .withAttributes(Map.of("units", SyntheticEra5.UNITS));
        ZarrArray array = Zarr.createArray(ctx, store, ARRAY, md);
        SyntheticEra5 synth = new SyntheticEra5(LAT, LON);
        Progress p = new Progress(err, terminal, "writing", "steps", steps);
        long written = 0;
        try (Tensor slab = Tensor.allocateHost(DataType.FLOAT32, WRITE_SLAB_STEPS, CHANNELS, LAT, LON)) {
            for (long t = 0; t < steps; t += WRITE_SLAB_STEPS) {
                int n = (int) Math.min(WRITE_SLAB_STEPS, steps - t);
                synth.fill(slab.segment(), t, n, CHANNELS);
                if (n == WRITE_SLAB_STEPS) {
                    array.write(new long[]{t, 0, 0, 0}, slab);
                } else {
                    try (Tensor part = Tensor.allocateHost(DataType.FLOAT32, n, CHANNELS, LAT, LON)) {
                        MemorySegment.copy(slab.segment(), 0, part.segment(), 0, part.byteSize());
                        array.write(new long[]{t, 0, 0, 0}, part);
                    }
                }
                written += (long) n * CHANNELS * LAT * LON * 4;
                p.update(t + n, written);
            }
        }
        p.finish();
        attrs.put("complete", true);
        Zarr.createGroup(ctx, store, "", attrs);
        return array;
    }

    /** Compares a few elements of the first batch with the generator, so a wrong read fails loudly. */
    private static void verifySample(Tensor tensor, ZarrContext ctx) {
        if (!tensor.buffer().kind().hostAccessible()) {
            return;
        }
        SyntheticEra5 synth = new SyntheticEra5(LAT, LON);
        MemorySegment seg = tensor.segment();
        ValueLayout.OfFloat f32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        int[][] at = {{0, 0, 0, 0}, {0, 3, 90, 180}, {0, 7, LAT - 1, LON - 1}};
        for (int[] i : at) {
            long idx = ((long) (i[0] * CHANNELS + i[1]) * LAT + i[2]) * LON + i[3];
            float got = seg.getAtIndex(f32, idx);
            float want = synth.value(i[0], i[1], i[2], i[3]);
            if (Float.floatToRawIntBits(got) != Float.floatToRawIntBits(want)) {
                throw new ZarrDirectCli.CliFailure("demo read back " + got + " at [time, channel, lat, lon] = "
                        + Arrays.toString(i) + " on " + ctx.device() + ", but the generator wrote " + want);
            }
        }
    }
}
