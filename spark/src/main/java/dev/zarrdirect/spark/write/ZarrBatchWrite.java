// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.write;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

import java.io.IOException;
import java.io.Serial;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The commit protocol of a write. Tasks write only below {@code .zarr-direct-staging/JOB/} in the
 * group's directory, each attempt in a directory of its own, and Spark's commit coordinator lets
 * one attempt per partition commit. The job's commit, on the driver, then (1) merges the parts of
 * chunks that several tasks saw into whole chunks, (2) moves every committed whole chunk into
 * place, (3) writes the arrays' metadata and, last, the group's. Until (3) there is no group at the
 * location, so a reader sees nothing partial; a failed job's abort deletes the staging directory.
 */
final class ZarrBatchWrite implements BatchWrite {

    private final WriteSpec spec;

    /** Checks the destination and writes the staging copy of the metadata, so that bad options fail before any task. */
    ZarrBatchWrite(WriteSpec spec) {
        this.spec = spec;
        Path root = spec.root();
        try {
            if (Files.exists(root)) {
                try (Stream<Path> entries = Files.list(root)) {
                    List<String> there = entries.map(p -> p.getFileName().toString())
                            .filter(n -> !n.equals(WriteSpec.STAGING)).toList();
                    if (!there.isEmpty()) {
                        throw new IllegalArgumentException("writing zarr creates a new group, but " + root
                                + " holds " + there + "; choose a new location or delete it first");
                    }
                }
            }
            Files.createDirectories(spec.staging());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + root + " for writing: " + e.getMessage(), e);
        }
        try (Store s = FileSystemStore.create(merged()); ZarrGroup g = Zarr.createGroup(s, "", Map.of())) {
            for (int v = 0; v < spec.variables().size(); v++) {
                g.createArray(spec.variables().get(v), spec.metadata(v)).close();
            }
        }
    }

    private Path merged() {
        return spec.staging().resolve("merged");
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        return new Factory(spec);
    }

    @Override
    public boolean useCommitCoordinator() {
        return true;
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        Path root = spec.root();
        Set<String> seen = new HashSet<>();
        Map<String, List<Path>> fragments = new LinkedHashMap<>();
        Map<String, long[]> fragmentChunks = new LinkedHashMap<>();
        for (WriterCommitMessage m : messages) {
            TaskCommit t = (TaskCommit) m;
            for (String key : t.chunkKeys()) {
                if (!seen.add(key)) {
                    throw new IllegalStateException("chunk " + key + " of " + root + " was written whole by two tasks:"
                            + " the rows hold an index twice");
                }
            }
            for (long[] c : t.fragments()) {
                String id = Arrays.toString(c);
                fragments.computeIfAbsent(id, k -> new ArrayList<>()).add(Fragments.file(Path.of(t.attemptDir()), c));
                fragmentChunks.put(id, c);
            }
        }
        List<String> mergedKeys = mergeFragments(fragments, fragmentChunks, seen);
        for (WriterCommitMessage m : messages) {
            TaskCommit t = (TaskCommit) m;
            for (String key : t.chunkKeys()) {
                Staging.move(Path.of(t.attemptDir()), root, key);
            }
        }
        for (String key : mergedKeys) {
            Staging.move(merged(), root, key);
        }
        for (String v : spec.variables()) {
            Staging.publish(merged(), root, v + "/zarr.json");
        }
        Staging.publish(merged(), root, "zarr.json");
        Staging.delete(root.resolve(WriteSpec.STAGING));
    }

    /** Encodes the chunks that tasks saw parts of into the merged staging arrays; returns their keys. */
    private List<String> mergeFragments(Map<String, List<Path>> fragments, Map<String, long[]> chunks, Set<String> whole) {
        List<String> keys = new ArrayList<>();
        if (fragments.isEmpty()) {
            return keys;
        }
        try (Store s = FileSystemStore.open(merged()); ZarrGroup g = Zarr.openGroup(s, "")) {
            ZarrArray[] arrays = new ZarrArray[spec.variables().size()];
            for (int v = 0; v < arrays.length; v++) {
                arrays[v] = g.openArray(spec.variables().get(v));
            }
            for (Map.Entry<String, List<Path>> e : fragments.entrySet()) {
                long[] chunk = chunks.get(e.getKey());
                try (ChunkBuffer b = new ChunkBuffer(spec, chunk)) {
                    for (Path f : e.getValue()) {
                        Fragments.mergeInto(f, b);
                    }
                    long[] start = new long[chunk.length];
                    long[] stop = new long[chunk.length];
                    for (int d = 0; d < chunk.length; d++) {
                        start[d] = chunk[d] * spec.chunks()[d];
                        stop[d] = start[d] + b.extent[d];
                    }
                    for (int v = 0; v < arrays.length; v++) {
                        String key = arrays[v].chunkKey(chunk);
                        if (whole.contains(key)) {
                            throw new IllegalStateException("chunk " + key + " of " + spec.root() + " was written whole"
                                    + " by one task and in part by another: the rows hold an index twice");
                        }
                        try (HostBuffer buffer = HostBuffer.wrap(b.values[v])) {
                            arrays[v].write(new Selection(start, stop), Tensor.of(buffer, spec.type(v), b.extent));
                        }
                        keys.add(key);
                    }
                }
            }
            for (ZarrArray a : arrays) {
                a.close();
            }
        }
        return keys;
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        Staging.delete(spec.root().resolve(WriteSpec.STAGING));
    }

    /** Sent to the executors: one writer per task attempt. */
    private record Factory(WriteSpec spec) implements DataWriterFactory {

        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
            return new ZarrDataWriter(spec, partitionId, taskId);
        }
    }
}
