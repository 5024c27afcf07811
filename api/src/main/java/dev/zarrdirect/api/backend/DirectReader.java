// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.backend;

import dev.zarrdirect.api.buffer.Buffer;

import java.nio.file.Path;
import java.util.List;

/**
 * Reads byte ranges of local files straight into a backend's memory, skipping the JVM heap and the
 * core's pinned staging: GPUDirect Storage (cuFile) where it works, a threaded {@code pread} into
 * pinned bounce buffers followed by asynchronous copies where it does not.
 *
 * <p>Offered by {@link Backend#directReader()}; the core uses it for stores that expose local
 * files ({@link dev.zarrdirect.api.store.Store#localPath}). Thread-safe. Closing twice is harmless.
 */
public interface DirectReader extends AutoCloseable {

    /** One range of one file into a destination buffer at an offset. */
    record Request(Path file, long offset, long length, Buffer destination, long destinationOffset) {
        public Request {
            if (offset < 0 || length < 0 || destinationOffset < 0) {
                throw new IllegalArgumentException("negative offset or length in a read of " + file + ": offset "
                        + offset + ", length " + length + ", destination offset " + destinationOffset);
            }
        }
    }

    /** What reads and how ({@code "cuFile (GDS compatibility mode)"}, {@code "pread x16 via 4 MiB pinned buffers"}). */
    String describe();

    /**
     * Reads every request, returning when all bytes are in place.
     *
     * @throws dev.zarrdirect.api.StoreException naming the file and range of the first that failed
     */
    void read(List<Request> requests);

    @Override
    void close();
}
