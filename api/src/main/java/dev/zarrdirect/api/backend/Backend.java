// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.backend;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.CodecProvider;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One started device family: memory, copies and the codec implementations native to it. Knows
 * nothing of Zarr metadata; the core plans and calls it. Safe for concurrent use.
 *
 * <p>Closing a backend frees its pools; closing it twice is harmless.
 */
public interface Backend extends AutoCloseable {

    String name();

    List<Device> devices();

    /** The device a read lands on when the caller names none. */
    default Device defaultDevice() {
        return devices().getFirst();
    }

    /** Allocates {@code bytes} of {@code kind} memory on {@code device}; the caller closes it. */
    Buffer allocate(Device device, MemoryKind kind, long bytes);

    /**
     * Like {@link #allocate}, for callers that write every byte: the memory may hold whatever an
     * earlier user left (pools skip clearing reused blocks). By default it is {@link #allocate}.
     */
    default Buffer allocateUninitialized(Device device, MemoryKind kind, long bytes) {
        return allocate(device, kind, bytes);
    }

    /**
     * Copies {@code bytes} bytes between any two buffers this backend can reach (host to device,
     * device to host, within a device). Returns when the copy is complete.
     */
    void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes);

    /** Fills {@code count} elements of {@code dst} from {@code offset} with {@code pattern}, repeated. */
    void fill(Buffer dst, long offset, long count, MemorySegment pattern);

    /**
     * Copies every region of {@code copies} ({@code elemSize}-byte elements), as one batch: a device
     * backend runs one launch for all of them. Returns when the copies are complete.
     * The default works for host-accessible buffers only.
     */
    default void copyRegions(java.util.List<dev.zarrdirect.api.buffer.Region.Copy> copies, int elemSize) {
        for (var c : copies) {
            if (!c.src().buffer().kind().hostAccessible() || !c.dst().buffer().kind().hostAccessible()) {
                throw new UnsupportedOperationException(name() + " cannot copy regions of " + c.src().buffer()
                        + " to " + c.dst().buffer());
            }
            dev.zarrdirect.api.buffer.StridedCopy.copy(c.src().buffer().segment(), c.src().offset(),
                    c.src().byteStrides(), c.dst().buffer().segment(), c.dst().offset(), c.dst().byteStrides(),
                    c.src().extent(), elemSize);
        }
    }

    /**
     * Fills every region with {@code pattern} (one element's bytes), as one batch.
     * The default works for host-accessible buffers only.
     */
    default void fillRegions(java.util.List<dev.zarrdirect.api.buffer.Region> regions, MemorySegment pattern) {
        for (var r : regions) {
            if (!r.buffer().kind().hostAccessible()) {
                throw new UnsupportedOperationException(name() + " cannot fill a region of " + r.buffer());
            }
            dev.zarrdirect.api.buffer.StridedCopy.fill(r.buffer().segment(), r.offset(), r.byteStrides(), r.extent(),
                    pattern);
        }
    }

    /**
     * Runs {@code gather} (see {@link PlaneGather} for the exact arithmetic every backend matches
     * byte for byte). Returns when the output is written. The default runs on the calling thread
     * and works for host-accessible buffers only; device backends run it as one kernel launch.
     */
    default void gather(PlaneGather gather) {
        if (!gather.src().kind().hostAccessible() || !gather.dst().kind().hostAccessible()) {
            throw new UnsupportedOperationException(name() + " cannot gather planes of " + gather.src() + " into "
                    + gather.dst());
        }
        gather.runOnHost(0, gather.planes());
    }

    /**
     * Memory that another process on the same machine can map, with the events that order its
     * use, when this backend has it (CUDA IPC); empty otherwise. Host memory needs none of this:
     * a loader shares host memory through files in {@code /dev/shm}.
     */
    default java.util.Optional<InterprocessMemory> interprocess() {
        return java.util.Optional.empty();
    }

    /** How many chunks the core should hand to one codec call; 1 for the CPU, hundreds for a GPU. */
    int preferredBatchSize();

    /**
     * At most how many decoded bytes one device batch should hold: the core cuts a batch at this
     * many bytes or at {@link #preferredBatchSize()} chunks, whichever comes first. By default no
     * limit. A device backend whose batches of large chunks decode slower than smaller ones that
     * overlap their fetches says so here.
     */
    default long preferredBatchBytes() {
        return Long.MAX_VALUE;
    }

    /** A reader of local files straight into this backend's memory, when it has one. */
    default java.util.Optional<DirectReader> directReader() {
        return java.util.Optional.empty();
    }

    /**
     * The settings this backend started with, each with its value and source, for {@code doctor}
     * (see {@link BackendProvider#settings()}). By default none.
     */
    default List<dev.zarrdirect.api.settings.ResolvedSetting<?>> settings() {
        return List.of();
    }

    /** The codec implementations that run natively on this backend's devices. */
    CodecProvider codecs();

    @Override
    void close();
}
