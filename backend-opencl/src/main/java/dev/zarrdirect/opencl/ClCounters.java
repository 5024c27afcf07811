// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What one {@link OpenClBackend} asked of its driver, counted since it opened: the operations whose
 * number, not their size, decides a batch's cost on a GPU driver (each buffer creation, blocking
 * transfer and wait is a host round trip or a driver allocation; NVIDIA's OpenCL also allocates a
 * new buffer on its first use). Tests assert per-batch counts from two {@link #snapshot()}s; a
 * developer compares them with the CUDA backend's (one launch per stage, no allocation per batch).
 * Thread-safe; counting costs one atomic add per operation.
 */
public final class ClCounters {

    /**
     * The counts at one moment.
     *
     * @param buffersCreated {@code clCreateBuffer} calls (pooled memory handed out again is not one)
     * @param bytesCreated   bytes those buffers hold
     * @param subBuffers     {@code clCreateSubBuffer} calls
     * @param launches       kernels enqueued
     * @param waits          waits on an event (each a host round trip)
     * @param blockingWrites blocking host-to-device writes
     * @param bytesWritten   bytes those writes moved
     * @param blockingReads  blocking device-to-host reads
     * @param bytesRead      bytes those reads moved
     * @param pinnedMaps     pinned host buffers created and mapped (not those taken from the pool)
     */
    public record Snapshot(long buffersCreated, long bytesCreated, long subBuffers, long launches, long waits,
                           long blockingWrites, long bytesWritten, long blockingReads, long bytesRead,
                           long pinnedMaps) {

        /** This snapshot less an earlier one: what happened in between. */
        public Snapshot minus(Snapshot before) {
            return new Snapshot(buffersCreated - before.buffersCreated, bytesCreated - before.bytesCreated,
                    subBuffers - before.subBuffers, launches - before.launches, waits - before.waits,
                    blockingWrites - before.blockingWrites, bytesWritten - before.bytesWritten,
                    blockingReads - before.blockingReads, bytesRead - before.bytesRead, pinnedMaps - before.pinnedMaps);
        }
    }

    final AtomicLong buffersCreated = new AtomicLong();
    final AtomicLong bytesCreated = new AtomicLong();
    final AtomicLong subBuffers = new AtomicLong();
    final AtomicLong launches = new AtomicLong();
    final AtomicLong waits = new AtomicLong();
    final AtomicLong blockingWrites = new AtomicLong();
    final AtomicLong bytesWritten = new AtomicLong();
    final AtomicLong blockingReads = new AtomicLong();
    final AtomicLong bytesRead = new AtomicLong();
    final AtomicLong pinnedMaps = new AtomicLong();

    ClCounters() {
    }

    /** The counts now. */
    public Snapshot snapshot() {
        return new Snapshot(buffersCreated.get(), bytesCreated.get(), subBuffers.get(), launches.get(), waits.get(),
                blockingWrites.get(), bytesWritten.get(), blockingReads.get(), bytesRead.get(), pinnedMaps.get());
    }

    @Override
    public String toString() {
        return "ClCounters" + snapshot();
    }
}
