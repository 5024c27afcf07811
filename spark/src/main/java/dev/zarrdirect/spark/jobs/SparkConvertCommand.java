// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import dev.zarrdirect.core.convert.CodecText;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.convert.ConvertOptions;
import dev.zarrdirect.core.convert.ConvertOptionsException;
import dev.zarrdirect.core.convert.Converter;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code convert} as a Spark application: the layout options of {@code zarr-direct convert}, the
 * destination's metadata derived by core's {@link Converter} exactly as on one machine, the shards
 * written by the executors.
 *
 * <h2>How</h2>
 * The driver runs the converter with a budget of zero shards: it checks the options against the
 * source, writes the destination's metadata marked incomplete and its journal, and writes no
 * shard. It then cuts every array into disjoint boxes of whole destination shards (runs along the
 * first dimension, each covering whole source chunks where that fits {@code --task-bytes}), one task
 * each ({@link ConvertTask}). When every task is done it rewrites the metadata without the
 * incomplete marker (arrays first, the root last) and deletes the journal.
 *
 * <h2>Resuming</h2>
 * Each task marks itself done under {@value ConvertTask#DONE_DIR}; a second run with the same source,
 * options and {@code --task-bytes} skips the marked tasks. A task lost with its executor is run again
 * by Spark; its shards replace the old ones whole.
 */
@Command(name = "convert", mixinStandardHelpOptions = true,
        description = {"Rechunk, reshard or recompress an array or group into a new directory on a Spark cluster, "
                + "with the layout of zarr-direct convert; resumable.",
                "Example: spark-submit --class dev.zarrdirect.spark.jobs.ZarrDirectSpark zarr-direct-spark.jar convert "
                        + "/data/era5.zarr /data/era5-sharded.zarr --chunks 1,-1,-1,-1 --shard 24,-1,-1,-1"})
final class SparkConvertCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "SRC", description = "The array or group to read, as every executor sees it.")
    String source;

    @Parameters(index = "1", paramLabel = "DST",
            description = "The directory to write, on a file system every executor and the driver share.")
    Path destination;

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

    @Option(names = {"-b", "--backend"}, paramLabel = "NAME", defaultValue = "cpu",
            description = "Backend the executors read with. Default: ${DEFAULT-VALUE}.")
    String backend;

    @Option(names = "--overwrite", description = "Replace a destination that holds a Zarr store (and not an "
            + "unfinished conversion of this source with these options).")
    boolean overwrite;

    @Option(names = "--task-bytes", paramLabel = "BYTES", defaultValue = "268435456",
            description = "The most bytes (decoded) one task copies, unless one shard is larger. Default: ${DEFAULT-VALUE}.")
    long taskBytes;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final SparkSession session;

    SparkConvertCommand(SparkSession session) {
        this.session = session;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (taskBytes < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--task-bytes must be at least 1, not " + taskBytes);
        }
        ConvertOptions options = options();
        Path dst = destination.toAbsolutePath().normalize();
        if (dst.getFileName() != null && dst.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".zip")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "DST " + dst + " is a .zip: executors write"
                    + " shards in parallel into a directory; convert into a directory, then pack it with zarr-direct"
                    + " convert DIR " + dst);
        }
        // Zero shards: the options are checked, the metadata (marked incomplete) and journal written, nothing else.
        try {
            new Converter(options.toBuilder().maxShards(0).build()).convert(source, dst);
        } catch (ConvertOptionsException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        List<ConvertTask> tasks = plan(dst);
        Path doneDir = dst.resolve(ConvertTask.DONE_DIR);
        String signature = signature(tasks);
        List<ConvertTask> todo = pending(tasks, doneDir, signature);
        out.println("convert " + source + " -> " + dst + ": " + tasks.size() + " task(s), " + (tasks.size() - todo.size())
                + " done by an earlier run");
        out.flush();
        long bytes = 0;
        if (!todo.isEmpty()) {
            JavaSparkContext sc = JavaSparkContext.fromSparkContext(session.sparkContext());
            bytes = sc.parallelize(todo, todo.size()).map(ConvertTask::run).reduce(Long::sum);
        }
        finish(dst);
        out.println("converted " + tasks.size() + " box(es) of whole shards, " + bytes + " bytes copied in this run");
        out.flush();
        return 0;
    }

    private ConvertOptions options() {
        try {
            ConvertOptions.Builder b = ConvertOptions.builder().shard(shard).noShard(noShard).zarrFormat(zarrFormat)
                    .chunks(chunks).backend(backend).overwrite(overwrite);
            if (endian != null) {
                if (!endian.equals("little") && !endian.equals("big")) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--endian must be little or big, got \""
                            + endian + "\"");
                }
                b.endian(endian.equals("big") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            }
            if (codecs != null) {
                List<CodecMetadata> b2b = new ArrayList<>();
                for (String c : codecs) {
                    b2b.addAll(CodecText.parse(c, "--codec"));
                }
                b.codecs(b2b);
            }
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /** The boxes of every array of the destination, in array order then C order. */
    private List<ConvertTask> plan(Path dst) {
        List<ConvertTask> tasks = new ArrayList<>();
        try (Store d = FileSystemStore.openReadOnly(dst); Store s = Stores.open(source)) {
            for (String path : arrays(d)) {
                try (ZarrArray to = Zarr.openArray(d, path); ZarrArray from = Zarr.openArray(s, path)) {
                    for (long[][] box : ConvertBoxes.of(to.shape(), to.chunkShape(), from.chunkShape(),
                            to.dataType().byteSize(), taskBytes)) {
                        tasks.add(new ConvertTask(source, dst.toString(), path, box[0], box[1], backend, tasks.size()));
                    }
                }
            }
        }
        return tasks;
    }

    /** The paths of the arrays below the root, the root itself when it is one. */
    private static List<String> arrays(Store store) {
        List<String> out = new ArrayList<>();
        Object root = Zarr.open(store, "");
        if (root instanceof ZarrArray a) {
            a.close();
            out.add("");
        } else {
            try (ZarrGroup g = (ZarrGroup) root) {
                walk(g, out);
            }
        }
        return out;
    }

    private static void walk(ZarrGroup g, List<String> out) {
        for (String name : g.members()) {
            Object child = g.open(name);
            if (child instanceof ZarrArray a) {
                out.add(a.path());
            } else {
                walk((ZarrGroup) child, out);
            }
        }
    }

    /** A digest of the task list: the done markers of an earlier run count only for the same plan. */
    private static String signature(List<ConvertTask> tasks) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (ConvertTask t : tasks) {
                sha.update(t.toString().getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The tasks not marked done by an earlier run of the same plan; a different plan starts afresh. */
    private static List<ConvertTask> pending(List<ConvertTask> tasks, Path doneDir, String signature) {
        Path planFile = doneDir.resolve("plan");
        try {
            if (!Files.exists(planFile) || !Files.readString(planFile).trim().equals(signature)) {
                deleteTree(doneDir);
                Files.createDirectories(doneDir);
                Files.writeString(planFile, signature + "\n");
                return tasks;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write " + planFile + ": " + e.getMessage(), e);
        }
        return tasks.stream().filter(t -> !Files.exists(t.marker())).toList();
    }

    /** Rewrites the metadata without the incomplete marker, arrays first and the root last, as the converter does. */
    private void finish(Path dst) {
        try (Store d = FileSystemStore.open(dst)) {
            List<String> groups = new ArrayList<>();
            List<String> arrays = new ArrayList<>();
            Object root = Zarr.open(d, "");
            if (root instanceof ZarrArray a) {
                a.close();
                arrays.add("");
            } else {
                try (ZarrGroup g = (ZarrGroup) root) {
                    collect(g, groups, arrays);
                }
            }
            for (String p : arrays) {
                try (ZarrArray a = Zarr.openArray(d, p)) {
                    if (a.zarrFormat() == 2) {
                        var v2 = a.v2Metadata().orElseThrow();
                        Zarr.createArrayV2(d, p, v2.withAttributes(unmarked(v2.attributes())));
                    } else {
                        Zarr.createArray(d, p, a.metadata().withAttributes(unmarked(a.metadata().attributes())));
                    }
                }
            }
            for (int i = groups.size() - 1; i >= 0; i--) {
                try (ZarrGroup g = Zarr.openGroup(d, groups.get(i))) {
                    if (zarrFormat == 2) {
                        Zarr.createGroupV2(d, groups.get(i), unmarked(g.attributes()));
                    } else {
                        Zarr.createGroup(d, groups.get(i), unmarked(g.attributes()));
                    }
                }
            }
            if (zarrFormat == 2 && !groups.isEmpty()) {
                Zarr.consolidate(d);
            }
            d.delete(Converter.JOURNAL_KEY);
        }
        deleteTree(dst.resolve(ConvertTask.DONE_DIR));
    }

    private static void collect(ZarrGroup g, List<String> groups, List<String> arrays) {
        groups.add(g.path());
        for (String name : g.members()) {
            Object child = g.open(name);
            if (child instanceof ZarrArray a) {
                arrays.add(a.path());
                a.close();
            } else {
                try (ZarrGroup sub = (ZarrGroup) child) {
                    collect(sub, groups, arrays);
                }
            }
        }
    }

    private static Map<String, Object> unmarked(Map<String, Object> attrs) {
        Map<String, Object> m = new LinkedHashMap<>(attrs);
        m.remove(Converter.MARKER);
        return m;
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir + ": " + e.getMessage(), e);
        }
    }
}
