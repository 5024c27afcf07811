// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Sizes;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Memory of a CUDA device: a device pointer and a size ({@link MemoryKind#DEVICE}), or a managed
 * (unified) allocation ({@link MemoryKind#MANAGED}). {@link #address()} is the device pointer.
 *
 * <h2>Ownership</h2>
 * The backend that allocated the buffer frees it (or returns it to its stream-ordered pool) on
 * {@link #close()}; closing twice throws {@link IllegalStateException}, as for every owning
 * {@link Buffer}. {@linkplain #slice Slices} are views that share the owner's lifetime and cannot be
 * closed. Every operation on a closed buffer, or a view of one, throws
 * {@code IllegalStateException: CudaBuffer[cuda:0 DEVICE 64 MiB] is closed}.
 *
 * <h2>Access</h2>
 * Device memory has no {@link #segment()}; managed memory has one (the CPU may touch it while no
 * kernel runs on it). Thread-safe; closing is atomic.
 */
public final class CudaBuffer implements Buffer {

    private final CudaBuffer owner; // null for an owning buffer
    private final Device device;
    private final MemoryKind kind;
    private final long address;
    private final long byteSize;
    private final Runnable release;
    private final AtomicBoolean closed;

    private CudaBuffer(CudaBuffer owner, Device device, MemoryKind kind, long address, long byteSize, Runnable release,
                       AtomicBoolean closed) {
        this.owner = owner;
        this.device = device;
        this.kind = kind;
        this.address = address;
        this.byteSize = byteSize;
        this.release = release;
        this.closed = closed;
    }

    /** An owning buffer; {@code release} runs once, on {@link #close()}. For the backend's allocators. */
    static CudaBuffer owning(Device device, MemoryKind kind, long address, long byteSize, Runnable release) {
        if (kind != MemoryKind.DEVICE && kind != MemoryKind.MANAGED) {
            throw new IllegalArgumentException("CudaBuffer holds DEVICE or MANAGED memory, not " + kind);
        }
        return new CudaBuffer(null, Objects.requireNonNull(device), kind, address, byteSize,
                Objects.requireNonNull(release), new AtomicBoolean());
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public MemoryKind kind() {
        return kind;
    }

    @Override
    public long address() {
        checkOpen();
        return address;
    }

    @Override
    public long byteSize() {
        return byteSize;
    }

    /**
     * The bytes of managed memory as a segment.
     *
     * @throws UnsupportedOperationException for device memory
     */
    @Override
    public MemorySegment segment() {
        checkOpen();
        if (kind != MemoryKind.MANAGED) {
            throw new UnsupportedOperationException(this + " is device memory, not host-accessible; copy it to a"
                    + " HOST or HOST_PINNED buffer with the cuda backend's copy()");
        }
        return MemorySegment.ofAddress(address).reinterpret(byteSize);
    }

    @Override
    public CudaBuffer slice(long offset, long length) {
        checkOpen();
        if (offset < 0 || length < 0 || offset > byteSize - length) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", " + offset + "+" + length + ") outside " + this);
        }
        return new CudaBuffer(owner == null ? this : owner, device, kind, address + offset, length, null, closed);
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
        release.run();
    }

    void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    @Override
    public String toString() {
        return "CudaBuffer[" + device + " " + kind + " " + Sizes.human(byteSize) + (owner != null ? " view" : "") + "]";
    }
}
