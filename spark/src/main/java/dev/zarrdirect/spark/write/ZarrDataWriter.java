// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.write;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes one task attempt's rows into its own staging directory: rows are gathered per chunk, and a
 * chunk whose every element has come is encoded at once as a whole chunk of a staging copy of the
 * arrays (so memory holds only the chunks still open, about one row of chunks for rows in C order).
 * At commit the chunks still open become fragment files, to be merged with the other tasks' parts
 * by the job's commit. Nothing is written outside the staging directory.
 */
final class ZarrDataWriter implements DataWriter<InternalRow> {

    private final WriteSpec spec;
    private final Path attemptDir;
    private final Map<Long, ChunkBuffer> open = new HashMap<>();
    private final List<String> chunkKeys = new ArrayList<>();
    private final long[] gridShape;
    private final long[] index;
    private final long[] chunk;
    private final DataType[] types;
    private Store store;
    private ZarrArray[] arrays;

    ZarrDataWriter(WriteSpec spec, int partitionId, long taskId) {
        this.spec = spec;
        this.attemptDir = spec.staging().resolve("attempt-" + partitionId + "-" + taskId);
        int rank = spec.shape().length;
        this.gridShape = new long[rank];
        for (int d = 0; d < rank; d++) {
            gridShape[d] = (spec.shape()[d] + spec.chunks()[d] - 1) / spec.chunks()[d];
        }
        this.index = new long[rank];
        this.chunk = new long[rank];
        this.types = new DataType[spec.variables().size()];
        for (int i = 0; i < types.length; i++) {
            types[i] = spec.type(i);
        }
    }

    @Override
    public void write(InternalRow row) {
        long flat = 0;
        for (int d = 0; d < index.length; d++) {
            int c = spec.dimColumns()[d];
            if (row.isNullAt(c)) {
                throw new IllegalArgumentException("a row has no value in dimension column \"" + spec.dims().get(d)
                        + "\"; every row needs its index");
            }
            long i = spec.dimInts()[d] ? row.getInt(c) : row.getLong(c);
            if (i < 0 || i >= spec.shape()[d]) {
                throw new IllegalArgumentException("index " + i + " in dimension column \"" + spec.dims().get(d)
                        + "\" is outside the shape " + Arrays.toString(spec.shape()) + " (0 to " + (spec.shape()[d] - 1)
                        + ")");
            }
            index[d] = i;
            chunk[d] = i / spec.chunks()[d];
            flat = flat * gridShape[d] + chunk[d];
        }
        ChunkBuffer b = open.get(flat);
        if (b == null) {
            b = new ChunkBuffer(spec, chunk);
            open.put(flat, b);
        }
        int e = b.element(index, spec.chunks());
        for (int v = 0; v < types.length; v++) {
            int c = spec.varColumns()[v];
            if (!row.isNullAt(c)) {
                put(b.values[v], types[v], e, row, c);
            }
        }
        if (b.complete()) {
            encode(b);
            open.remove(flat).close();
        }
    }

    private static void put(MemorySegment s, DataType t, long e, InternalRow row, int c) {
        switch (t.name()) {
            case "float32" -> s.setAtIndex(ValueLayout.JAVA_FLOAT, e, row.getFloat(c));
            case "float64" -> s.setAtIndex(ValueLayout.JAVA_DOUBLE, e, row.getDouble(c));
            case "int64" -> s.setAtIndex(ValueLayout.JAVA_LONG, e, row.getLong(c));
            case "int32" -> s.setAtIndex(ValueLayout.JAVA_INT, e, row.getInt(c));
            case "int16" -> s.setAtIndex(ValueLayout.JAVA_SHORT, e, row.getShort(c));
            case "int8" -> s.setAtIndex(ValueLayout.JAVA_BYTE, e, row.getByte(c));
            default -> throw new IllegalStateException("no column type for " + t);
        }
    }

    /** Encodes a whole chunk of every variable into the staging arrays. */
    private void encode(ChunkBuffer b) {
        ZarrArray[] a = arrays();
        long[] start = new long[b.chunk.length];
        long[] stop = new long[b.chunk.length];
        for (int d = 0; d < start.length; d++) {
            start[d] = b.chunk[d] * spec.chunks()[d];
            stop[d] = start[d] + b.extent[d];
        }
        for (int v = 0; v < a.length; v++) {
            try (HostBuffer buffer = HostBuffer.wrap(b.values[v])) {
                a[v].write(new Selection(start, stop), Tensor.of(buffer, types[v], b.extent));
            }
            chunkKeys.add(a[v].chunkKey(b.chunk));
        }
    }

    private ZarrArray[] arrays() {
        if (arrays == null) {
            store = FileSystemStore.create(attemptDir);
            try (ZarrGroup g = Zarr.createGroup(store, "", Map.of())) {
                arrays = new ZarrArray[types.length];
                for (int v = 0; v < types.length; v++) {
                    arrays[v] = g.createArray(spec.variables().get(v), spec.metadata(v));
                }
            }
        }
        return arrays;
    }

    @Override
    public WriterCommitMessage commit() {
        List<long[]> fragments = new ArrayList<>();
        for (ChunkBuffer b : open.values()) {
            Fragments.write(Fragments.file(attemptDir, b.chunk), b);
            fragments.add(b.chunk.clone());
        }
        closeAll();
        return new TaskCommit(attemptDir.toString(), List.copyOf(chunkKeys), fragments);
    }

    @Override
    public void abort() {
        closeAll();
        Staging.delete(attemptDir);
    }

    @Override
    public void close() {
        closeAll();
    }

    private void closeAll() {
        open.values().forEach(ChunkBuffer::close);
        open.clear();
        if (arrays != null) {
            for (ZarrArray a : arrays) {
                a.close();
            }
            arrays = null;
        }
        if (store != null) {
            store.close();
            store = null;
        }
    }
}
