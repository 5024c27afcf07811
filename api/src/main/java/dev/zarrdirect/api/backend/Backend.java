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
 * <p>Closing a backend frees its pools; closing it twice is harmless. Buffers it allocated must be
 * closed before it is; what a backend does with buffers still open at its close is its own (the CPU
 * backend frees its pool). Using a closed backend is a bug; the CPU and CUDA backends refuse to
 * allocate with {@link IllegalStateException}.
 *
 * <h2>Units</h2>
 * Offsets, sizes and byte counts are in bytes; {@link #fill} counts elements (repetitions of its
 * pattern). Every method that moves data returns when the data is in place: there are no
 * asynchronous results to wait for.
 *
 * {@snippet :
 * try (Backend backend = provider.open()) {
 *     Device d = backend.defaultDevice();
 *     try (Buffer staging = backend.allocate(Device.CPU, MemoryKind.HOST_PINNED, bytes);
 *          Buffer out = backend.allocateUninitialized(d, MemoryKind.DEVICE, bytes)) {
 *         // ... fill staging ...
 *         backend.copy(staging, 0, out, 0, bytes);   // host to device; returns when done
 *     }
 * }
 * }
 */
public interface Backend extends AutoCloseable {

    /**
     * The backend's name, the same as its provider's ({@code cpu}, {@code cuda}, {@code opencl}).
     *
     * @return the name, for messages and {@code doctor}
     */
    String name();

    /**
     * The devices this backend started with, in index order.
     *
     * @return an unmodifiable, non-empty list
     */
    List<Device> devices();

    /**
     * The device a read lands on when the caller names none. By default the first of
     * {@link #devices()}.
     *
     * @return the device
     */
    default Device defaultDevice() {
        return devices().getFirst();
    }

    /**
     * Allocates {@code bytes} of {@code kind} memory on {@code device}; the caller closes it, before
     * closing the backend. The memory is cleared where the backend can (the CPU backend and CUDA
     * device memory are zeroed); callers that overwrite every byte should prefer
     * {@link #allocateUninitialized}, which may skip that.
     *
     * @param device one of {@link #devices()}, or {@link Device#CPU} for host kinds on a GPU backend
     * @param kind   the kind of memory; each backend supports its own set
     * @param bytes  the size in bytes; 0 is allowed
     * @return an owning buffer
     * @throws IllegalArgumentException when the device, kind or size is not one this backend can allocate
     * @throws IllegalStateException    when the backend is closed (the CPU and CUDA backends check this)
     * @throws OutOfMemoryError         when the memory is exhausted (a device backend may instead throw
     *                                  its own exception naming the device and the size)
     */
    Buffer allocate(Device device, MemoryKind kind, long bytes);

    /**
     * Like {@link #allocate}, for callers that write every byte: the memory may hold whatever an
     * earlier user left (pools skip clearing reused blocks). By default it is {@link #allocate}.
     *
     * @param device the device, as for {@link #allocate}
     * @param kind   the kind of memory
     * @param bytes  the size in bytes
     * @return an owning buffer whose contents are unspecified
     * @throws IllegalArgumentException when the device, kind or size is not one this backend can allocate
     * @throws IllegalStateException    when the backend is closed (the CPU and CUDA backends check this)
     */
    default Buffer allocateUninitialized(Device device, MemoryKind kind, long bytes) {
        return allocate(device, kind, bytes);
    }

    /**
     * Copies {@code bytes} bytes between any two buffers this backend can reach (host to device,
     * device to host, within a device). Returns when the copy is complete.
     *
     * @param src       the buffer read
     * @param srcOffset the first byte read, from the start of {@code src}
     * @param dst       the buffer written
     * @param dstOffset the first byte written, from the start of {@code dst}
     * @param bytes     the number of bytes
     * @throws IndexOutOfBoundsException     when either range is outside its buffer
     * @throws UnsupportedOperationException when this backend cannot reach one of the buffers (the CPU
     *                                       backend reaches host memory only)
     * @throws IllegalStateException         when a buffer is closed
     */
    void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes);

    /**
     * Fills {@code count} elements of {@code dst} from {@code offset} with {@code pattern}, repeated:
     * {@code count * pattern.byteSize()} bytes in all. Returns when the fill is complete.
     *
     * @param dst     the buffer written
     * @param offset  the first byte written, in bytes from the start of {@code dst}
     * @param count   the number of repetitions (elements), not bytes
     * @param pattern one element's bytes, as stored (the CPU backend accepts 1 to 16 bytes); read on
     *                the host, so it may be any segment
     * @throws IllegalArgumentException      for a negative count or a pattern size the backend does not support
     * @throws IndexOutOfBoundsException     when the range is outside {@code dst}
     * @throws UnsupportedOperationException when this backend cannot reach {@code dst}
     */
    void fill(Buffer dst, long offset, long count, MemorySegment pattern);

    /**
     * Copies every region of {@code copies} ({@code elemSize}-byte elements), as one batch: a device
     * backend runs one launch for all of them. Returns when the copies are complete.
     * The default works for host-accessible buffers only.
     *
     * @param copies   the copies; each source and destination region has the same extent
     * @param elemSize the element size in bytes, which the regions' extents count in
     * @throws UnsupportedOperationException when a buffer is not reachable (for the default: not
     *                                       host-accessible); copies before it are done
     * @throws IndexOutOfBoundsException     when a region reaches outside its buffer
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
     *
     * @param regions the regions to fill
     * @param pattern one element's bytes; its size is the element size
     * @throws UnsupportedOperationException when a buffer is not reachable (for the default: not
     *                                       host-accessible); regions before it are filled
     * @throws IndexOutOfBoundsException     when a region reaches outside its buffer
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
     *
     * @param gather the planes to copy, with their normalization
     * @throws UnsupportedOperationException when this backend cannot reach the source or output
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
     * a loader shares host memory through files in {@code /dev/shm}. By default empty.
     *
     * @return the exporter, or empty
     */
    default java.util.Optional<InterprocessMemory> interprocess() {
        return java.util.Optional.empty();
    }

    /**
     * How many chunks the core should hand to one codec call; 1 for the CPU, hundreds for a GPU.
     *
     * @return the batch size in chunks, at least 1
     */
    int preferredBatchSize();

    /**
     * At most how many decoded bytes one device batch should hold: the core cuts a batch at this
     * many bytes or at {@link #preferredBatchSize()} chunks, whichever comes first. By default no
     * limit. A device backend whose batches of large chunks decode slower than smaller ones that
     * overlap their fetches says so here.
     *
     * @return the limit in decoded bytes, {@link Long#MAX_VALUE} for none
     */
    default long preferredBatchBytes() {
        return Long.MAX_VALUE;
    }

    /**
     * A reader of local files straight into this backend's memory, when it has one. The backend
     * owns the reader and closes it when it is closed. By default empty.
     *
     * @return the reader, or empty
     */
    default java.util.Optional<DirectReader> directReader() {
        return java.util.Optional.empty();
    }

    /**
     * The settings this backend started with, each with its value and source, for {@code doctor}
     * (see {@link BackendProvider#settings()}). By default none.
     *
     * @return the settings in force, in the order they were resolved
     */
    default List<dev.zarrdirect.api.settings.ResolvedSetting<?>> settings() {
        return List.of();
    }

    /**
     * The codec implementations that run natively on this backend's devices. The registry adds
     * them to the providers found by {@link java.util.ServiceLoader}.
     *
     * @return the provider; its codecs are valid while the backend is open
     */
    CodecProvider codecs();

    /**
     * Frees the backend's pools, streams and contexts. Closing twice is harmless.
     */
    @Override
    void close();
}
