// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.convert.CodecText;
import dev.zarrdirect.core.convert.ConvertListener;
import dev.zarrdirect.core.convert.ConvertOptions;
import dev.zarrdirect.core.convert.ConvertOptionsException;
import dev.zarrdirect.core.convert.ConvertResult;
import dev.zarrdirect.core.convert.ConvertSummary;
import dev.zarrdirect.core.convert.Converter;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.store.Stores;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * {@code zarr-direct convert}: parses the options into {@link ConvertOptions}, runs a
 * {@link Converter} (the engine, in core), prints what it hears as a {@link ConvertListener}, and
 * turns the outcome into an exit code. {@link ConvertOptionsException} is a bad usage (2), other
 * failures 1, a conversion stopped by {@code --max-shards} {@value #EXIT_INTERRUPTED}.
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
    private static final Pattern URL = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+://.*");
    /** Destinations written through a store provider rather than as a local directory. */
    private static final Pattern OBJECT_STORE = Pattern.compile("^(?i:s3|gs)://.*");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SRC", description = "The array or group to read: a directory, .zip, "
            + "http(s):// URL, s3://bucket/path or gs://bucket/path.")
    String source;

    @Parameters(index = "1", paramLabel = "DST", description = "The directory (or .zip file) to write, or an object "
            + "store: s3://bucket/path, gs://bucket/path (needs credentials that may write there).")
    String destination;

    @CommandLine.Mixin
    RemoteOptions remote;

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
                    + "gzip:level=5, blosc:cname=lz4,clevel=5,shuffle=shuffle, crc32c, or none. Default: the source's. "
                    + "blosc frames (and zstd without checksum=true) carry no checksum: a flipped bit decodes to wrong "
                    + "values silently; add --codec crc32c last (v3) so that every read verifies each chunk.")
    List<String> codecs;

    @Option(names = "--endian", paramLabel = "little|big", description = "Byte order of the bytes codec. Default: the source's.")
    String endian;

    @Option(names = "--zarr-format", paramLabel = "2|3", defaultValue = "3",
            description = "Zarr format of the destination. Default: ${DEFAULT-VALUE}.")
    int zarrFormat;

    @Option(names = "--threads", paramLabel = "N", description = "Threads decoding and encoding chunks, "
            + ZarrDirectCli.CONCURRENCY_BOUND_HELP + " (default: one per processor).")
    Integer threads;

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "2",
            description = "Blocks of destination shards in flight at once, " + ZarrDirectCli.CONCURRENCY_BOUND_HELP
                    + ". Default: ${DEFAULT-VALUE}.")
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
        ConvertOptions options = options();
        Printer printer = new Printer(out, err);
        ConvertResult r;
        try {
            if (OBJECT_STORE.matcher(destination).matches()) {
                r = convertToObjectStore(options, printer);
            } else {
                r = new Converter(options, printer).convert(source, destination());
            }
        } catch (ConvertOptionsException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        if (!r.complete()) {
            err.println("zarr-direct: stopped after " + r.unitsWritten() + " " + r.unitName() + " (--max-shards "
                    + maxShards + "); " + r.unitsDone() + "/" + r.unitsTotal() + " done; run the same command again to"
                    + " resume");
            err.flush();
            return EXIT_INTERRUPTED;
        }
        if (verify) {
            int n = r.arrays().size();
            out.println("verified:     " + n + (n == 1 ? " array" : " arrays") + ", source and destination checksums equal");
            out.flush();
        }
        return ZarrDirectCli.EXIT_OK;
    }

    /**
     * Into an object store: both stores opened here, with the remote options. The source keeps the
     * identity a path destination would record, so that a resumed run finds its journal.
     */
    private ConvertResult convertToObjectStore(ConvertOptions options, Printer printer) {
        String sourceId = URL.matcher(source).matches() || source.startsWith("file:") ? source
                : Path.of(source).toAbsolutePath().normalize().toString();
        if (!URL.matcher(source).matches() && !source.startsWith("file:") && !Files.exists(Path.of(source))) {
            throw new dev.zarrdirect.core.convert.ConvertException("SRC " + sourceId + " does not exist");
        }
        try (Store src = Stores.open(source, options.storeOptions());
             Store dst = Stores.open(destination, options.storeOptions())) {
            return new Converter(options, printer).convert(src, sourceId, dst);
        }
    }

    /** Prints the plan, the progress line and the outcome as the conversion reports them. */
    private static final class Printer implements ConvertListener {
        private final PrintWriter out;
        private final PrintWriter err;
        private String unitName = "chunks";
        private ConvertProgress progress;

        Printer(PrintWriter out, PrintWriter err) {
            this.out = out;
            this.err = err;
        }

        @Override
        public void planned(ConvertSummary s) {
            unitName = s.unitName();
            out.println("source:       " + Text.escape(s.source() + " (" + s.sourceNode() + ")"));
            out.println("destination:  " + Text.escape(String.valueOf(s.destination())) + " (Zarr v" + s.zarrFormat() + ")");
            for (ConvertSummary.ArrayPlan a : s.arrays()) {
                out.println("array /" + Text.escape(a.path()) + ":" + " ".repeat(Math.max(1, 8 - a.path().length()))
                        + a.dataType() + Shapes.format(a.shape()) + " " + Text.escape(a.source() + " -> " + a.target()
                        + (a.note() == null ? "" : " (" + a.note() + ")")));
            }
            if (s.memoryBound() != null) {
                out.println("memory bound: ~" + mib(s.memoryBoundBytes()) + " MiB (" + s.memoryBound() + ")");
            }
            out.flush();
        }

        @Override
        public void overwriting(String destination) {
            out.println("overwrite:    deleting the store at " + Text.escape(destination));
            out.flush();
        }

        @Override
        public void started(long done, long total) {
            if (done > 0) {
                out.println("resuming: " + done + "/" + total + " " + unitName + " already done");
                out.flush();
            }
            progress = new ConvertProgress(err, Progress.stderrIsTerminal(), unitName, total, done);
        }

        @Override
        public void written(String path, long units, long decodedBytes) {
            progress.add(units, decodedBytes);
        }

        @Override
        public void writingEnded() {
            if (progress != null) {
                progress.finish();
            }
        }

        @Override
        public void converted(ConvertResult r) {
            out.println(String.format(Locale.ROOT, "converted:    %d %s (%s decoded) in %s, %s", r.unitsWritten(),
                    r.unitName(), Text.human(r.decodedBytes()), Text.seconds(r.nanos()),
                    Text.gbPerSecond(r.decodedBytes(), r.nanos())));
            out.flush();
        }

        @Override
        public void packed(Path archive, long bytes) {
            out.println("packed:       " + Text.escape(archive.toString()) + " (" + Text.human(bytes) + ")");
            out.flush();
        }

        @Override
        public void verified(String path, String sourceSha256, String destinationSha256) {
            out.println("sha256 " + sourceSha256 + "  source /" + Text.escape(path));
            out.println("sha256 " + destinationSha256 + "  destination /" + Text.escape(path));
            out.flush();
        }
    }

    // ---- options ----

    /** The options, checked in the order the command has always checked them. */
    private ConvertOptions options() {
        ZarrDirectCli.checkConcurrency(spec.commandLine(), "--parallel", parallel);
        if (threads != null) {
            ZarrDirectCli.checkConcurrency(spec.commandLine(), "--threads", threads);
        }
        ConvertOptions.Builder b = ConvertOptions.builder().shard(shard).noShard(noShard).zarrFormat(zarrFormat);
        usage(b);
        if (endian != null && !endian.equals("little") && !endian.equals("big")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--endian must be little or big, got \""
                    + endian + "\"");
        }
        b.endian(endian == null ? null : endian.equals("big") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN)
                .parallel(parallel).memoryBytes(memoryMib < 1 ? 0 : memoryMib << 20).chunks(chunks).backend(backend)
                .settings(CliSettings.forContexts(ZarrDirectCli.explicitSettings()))
                .storeOptions(remote.storeOptions())
                .overwrite(overwrite).verify(verify);
        if (threads != null) {
            b.threads(threads);
        }
        if (maxShards != null) {
            b.maxShards(maxShards);
        }
        usage(b);
        if (codecs != null) {
            List<CodecMetadata> b2b = new ArrayList<>();
            for (String c : codecs) {
                try {
                    b2b.addAll(parseCodec(c));
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
                }
            }
            b.codecs(b2b);
        }
        return usage(b);
    }

    private ConvertOptions usage(ConvertOptions.Builder b) {
        try {
            return b.build();
        } catch (ConvertOptionsException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /** DST as a path; a URL or a path the file system cannot name is a bad usage. */
    private Path destination() {
        Path p;
        try {
            p = Path.of(destination).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "DST \"" + destination
                    + "\" is not a valid path: " + e.getMessage());
        }
        if (URL.matcher(destination).matches()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "DST must be a local directory or .zip path,"
                    + " s3://bucket/path or gs://bucket/path, got \"" + destination + "\"");
        }
        return p;
    }

    /** Parses one {@code --codec} ({@link CodecText}); an empty list for {@code none}. */
    static List<CodecMetadata> parseCodec(String text) {
        return CodecText.parse(text, "--codec");
    }

    static long mib(long bytes) {
        return (bytes + (1 << 20) - 1) >> 20;
    }
}
