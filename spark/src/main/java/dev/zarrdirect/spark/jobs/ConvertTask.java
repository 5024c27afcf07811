// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.core.store.fs.FileSystemStore;

import java.io.IOException;
import java.io.Serial;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * One task of a distributed conversion: a box of whole destination shards (chunks when unsharded)
 * of one array, read from the source and written to the destination, then marked done. The boxes
 * of a conversion are disjoint and cover every array, so no two tasks write one shard; a task run
 * twice (a retry after a lost executor, or a resumed conversion) writes the same bytes again, each
 * shard replacing the old one atomically.
 *
 * @param source      the source's location
 * @param destination the destination directory
 * @param path        the array's path in both
 * @param start       the box's first index
 * @param stop        the index past the box's last
 * @param backend     the backend to read with
 * @param id          the task's number, which names its done marker
 */
record ConvertTask(String source, String destination, String path, long[] start, long[] stop, String backend, int id)
        implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    /** Where tasks mark themselves done, below the destination; gone when the conversion completes. */
    static final String DONE_DIR = ".zarr-direct-spark-convert";

    Path marker() {
        return Path.of(destination).resolve(DONE_DIR).resolve(id + ".done");
    }

    /** Runs on an executor: copies the box and marks it done; returns the bytes written. */
    long run() {
        ZarrContext ctx = ExecutorContexts.of(backend);
        long bytes;
        try (Store src = Stores.open(source); Store dst = FileSystemStore.open(Path.of(destination));
             ZarrArray from = Zarr.openArray(ctx, src, path); ZarrArray to = Zarr.openArray(dst, path)) {
            Selection box = new Selection(start, stop);
            try (Tensor data = from.read(box)) {
                to.write(box, data);
                bytes = data.byteSize();
            }
        }
        try {
            Path m = marker();
            Files.createDirectories(m.getParent());
            Path tmp = m.resolveSibling(m.getFileName() + ".tmp" + ProcessHandle.current().pid());
            Files.writeString(tmp, path + " " + Arrays.toString(start) + " " + Arrays.toString(stop) + "\n");
            Files.move(tmp, m, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot mark task " + id + " of the conversion into " + destination
                    + " done: " + e.getMessage(), e);
        }
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConvertTask t && t.id == id && t.destination.equals(destination);
    }

    @Override
    public int hashCode() {
        return id;
    }

    @Override
    public String toString() {
        return "ConvertTask[" + id + ": " + path + " " + Arrays.toString(start) + " to " + Arrays.toString(stop) + "]";
    }
}
