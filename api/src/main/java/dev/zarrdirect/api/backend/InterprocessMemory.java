// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.backend;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;

/**
 * Device memory exported to another process of the same machine (CUDA IPC), for a loader that
 * hands its batches to a consumer process without a copy. A backend offers it through
 * {@link Backend#interprocess()}.
 *
 * <p>The handles are plain bytes to send to the other process (through a pipe or a socket), which
 * opens them with its own CUDA ({@code cuIpcOpenMemHandle}, {@code cuIpcOpenEventHandle}).
 */
public interface InterprocessMemory {

    /**
     * Allocates {@code bytes} of device memory on {@code device} that another process can open, with
     * its two events. The caller closes the slab, which frees the memory: the other process must have
     * closed its mapping first (or be gone), since freeing memory another process still maps is
     * undefined behaviour in CUDA.
     *
     * @param device the CUDA device the memory is on
     * @param bytes  the size in bytes
     * @return the slab, owned by the caller
     */
    SharedSlab allocate(Device device, long bytes);

    /**
     * One exported allocation and the two events that order its use between the two processes:
     * {@code ready} (recorded by this process after writing a batch; the consumer's stream waits on
     * it) and {@code released} (recorded by the consumer on its stream when it is done with the
     * batch; this process waits on it before writing the slab again).
     */
    interface SharedSlab extends AutoCloseable {

        /**
         * The memory, for this process's backend. Owned by the slab: do not close it, close the slab.
         *
         * @return the device buffer
         */
        Buffer buffer();

        /**
         * The opaque handle the other process opens the memory with ({@code cuIpcGetMemHandle}'s bytes).
         *
         * @return the handle's bytes
         */
        byte[] memoryHandle();

        /**
         * The handle of the {@code ready} event ({@code cuIpcGetEventHandle}'s bytes).
         *
         * @return the handle's bytes
         */
        byte[] readyEventHandle();

        /**
         * The handle of the {@code released} event ({@code cuIpcGetEventHandle}'s bytes).
         *
         * @return the handle's bytes
         */
        byte[] releasedEventHandle();

        /** Records {@code ready} after every write this process has issued to the slab so far. */
        void markReady();

        /**
         * Blocks until the work the consumer recorded {@code released} after has finished; returns at
         * once if the consumer never recorded it.
         */
        void awaitReleased();

        /** Frees the memory and the events; the other process must have closed its mappings first. */
        @Override
        void close();
    }
}
