// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Sizes;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link MemoryKind#DEVICE} memory of an {@link OpenClBackend}: a {@code cl_mem}, a byte offset
 * into it and a size.
 *
 * <h2>No address</h2>
 * OpenCL memory objects are handles, not pointers: {@link #address()} and {@link #segment()}
 * throw. Kernels and copies take the pair {@link #mem()} + {@link #offset()}; a {@linkplain #slice
 * slice} is the same {@code cl_mem} at a larger offset (no {@code clCreateSubBuffer}, which would
 * impose the device's base-address alignment on every slice).
 *
 * <h2>Ownership</h2>
 * The allocating caller closes the buffer, which releases the {@code cl_mem}; closing twice throws
 * {@link IllegalStateException}, as for every owning {@link Buffer}. Slices are views: they cannot
 * be closed and fail once their owner is closed. Every operation after close throws
 * {@code IllegalStateException: OpenClBuffer[opencl:0 DEVICE 64 MiB] is closed}. Thread-safe;
 * closing is atomic.
 */
public final class OpenClBuffer implements Buffer {

    private final OpenClBackend backend;
    private final OpenClBuffer owner; // null for an owning buffer
    private final long mem;
    private final long offset;
    private final long byteSize;
    private final long id;
    private final AtomicBoolean closed;

    OpenClBuffer(OpenClBackend backend, OpenClBuffer owner, long mem, long offset, long byteSize, long id,
                 AtomicBoolean closed) {
        this.backend = backend;
        this.owner = owner;
        this.mem = mem;
        this.offset = offset;
        this.byteSize = byteSize;
        this.id = id;
        this.closed = closed;
    }

    /** The backend whose context owns the memory. */
    public OpenClBackend backend() {
        return backend;
    }

    /** The {@code cl_mem} handle, for kernel arguments and enqueued copies. */
    public long mem() {
        checkOpen();
        return mem;
    }

    /** Where this buffer's first byte lies within {@link #mem()}. */
    public long offset() {
        checkOpen();
        return offset;
    }

    /** The allocation number, as in leak reports. */
    long id() {
        return id;
    }

    @Override
    public Device device() {
        return backend.device();
    }

    @Override
    public MemoryKind kind() {
        return MemoryKind.DEVICE;
    }

    /**
     * Always throws: an OpenCL buffer is a {@code cl_mem} handle, not an address.
     *
     * @throws UnsupportedOperationException naming {@link #mem()} and {@link #offset()}
     * @throws IllegalStateException         when closed
     */
    @Override
    public long address() {
        checkOpen();
        throw new UnsupportedOperationException(this + " has no address: OpenCL buffers are cl_mem handles;"
                + " pass mem() and offset() to kernels and copies instead");
    }

    @Override
    public long byteSize() {
        return byteSize;
    }

    @Override
    public MemorySegment segment() {
        checkOpen();
        throw new UnsupportedOperationException(this + " is device memory, not host-accessible; copy it to a"
                + " host buffer with the backend's copy()");
    }

    @Override
    public OpenClBuffer slice(long offset, long length) {
        checkOpen();
        if (offset < 0 || length < 0 || offset > byteSize - length) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", " + offset + "+" + length + ") outside " + this);
        }
        return new OpenClBuffer(backend, owner == null ? this : owner, mem, this.offset + offset, length, id, closed);
    }

    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    @Override
    public boolean isView() {
        return owner != null;
    }

    @Override
    public void close() {
        if (owner != null) {
            throw new UnsupportedOperationException(this + " is a view; close the buffer it was sliced from");
        }
        if (!closed.compareAndSet(false, true)) {
            throw new IllegalStateException(this + " is already closed");
        }
        backend.memory().release(this, mem);
    }

    void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    @Override
    public String toString() {
        return "OpenClBuffer[" + backend.device() + " DEVICE " + Sizes.human(byteSize) + " #" + id
                + (owner != null ? " view at +" + offset : "") + "]";
    }
}
