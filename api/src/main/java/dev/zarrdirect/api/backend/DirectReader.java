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

    /**
     * One range of one file into a destination buffer at an offset. The constructor checks signs
     * only; {@link DirectReader#read} checks that the range fits the file and the destination.
     *
     * @param file              the local file to read
     * @param offset            the first byte of the file to read
     * @param length            the number of bytes
     * @param destination       the buffer written, in the backend's memory; the caller owns it
     * @param destinationOffset the first byte written, from the start of {@code destination}
     */
    record Request(Path file, long offset, long length, Buffer destination, long destinationOffset) {
        /**
         * Checks the offsets and the length.
         *
         * @throws IllegalArgumentException when an offset or the length is negative
         */
        public Request {
            if (offset < 0 || length < 0 || destinationOffset < 0) {
                throw new IllegalArgumentException("negative offset or length in a read of " + file + ": offset "
                        + offset + ", length " + length + ", destination offset " + destinationOffset);
            }
        }
    }

    /**
     * What reads and how, for {@code doctor} and logs.
     *
     * @return a description: {@code "cuFile (GDS compatibility mode)"}, {@code "pread x16 via 4 MiB pinned buffers"}
     */
    String describe();

    /**
     * Reads every request, returning when all bytes are in place. Requests may be served in any
     * order and in parallel; when one fails, the others may or may not have been written.
     *
     * @param requests the ranges to read; may be empty
     * @throws dev.zarrdirect.api.StoreException naming the file and range of the first that failed
     * @throws IndexOutOfBoundsException         when a request does not fit its destination buffer
     */
    void read(List<Request> requests);

    /** Releases the reader's threads, buffers and driver handles. Closing twice is harmless. */
    @Override
    void close();
}
