// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import dev.zarrdirect.api.Device;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Buffer} over memory the JVM does not own: a device pointer handed over by a native
 * producer (a DLPack tensor from PyTorch, CuPy, a CUDA library), described by its address, size,
 * device and kind.
 *
 * <h2>Ownership</h2>
 * The buffer frees nothing itself: {@link #close()} runs the release action given to
 * {@link #of} exactly once (typically the producer's deleter). Closing twice throws
 * {@link IllegalStateException}, as for every owning {@link Buffer}. {@linkplain #slice Slices}
 * are views that share the owner's lifetime and cannot be closed.
 *
 * <h2>Access</h2>
 * {@link #segment()} works only for host-accessible kinds; for device memory the address is all
 * there is, for the backend that knows the device. Thread-safe; closing is atomic.
 */
public final class ExternalBuffer implements Buffer {

    private final ExternalBuffer owner; // null for an owning buffer
    private final long address;
    private final long byteSize;
    private final Device device;
    private final MemoryKind kind;
    private final Runnable release;
    private final AtomicBoolean closed;

    private ExternalBuffer(ExternalBuffer owner, long address, long byteSize, Device device, MemoryKind kind,
                           Runnable release, AtomicBoolean closed) {
        this.owner = owner;
        this.address = address;
        this.byteSize = byteSize;
        this.device = device;
        this.kind = kind;
        this.release = release;
        this.closed = closed;
    }

    /**
     * An owning buffer over {@code byteSize} bytes at {@code address} on {@code device};
     * {@code release} runs once, on {@link #close()}. Nothing checks that the address is valid on
     * that device: the producer vouches for it.
     *
     * @param address   the first byte: a device pointer, or a host address for host kinds; 0 only
     *                  when {@code byteSize} is 0
     * @param byteSize  the size in bytes
     * @param device    the device the memory is on
     * @param kind      the kind of memory; only host-accessible kinds allow {@link #segment()}
     * @param release   what closing does (the producer's deleter); runs at most once
     * @return an owning buffer; the caller closes it
     * @throws NullPointerException     when {@code device}, {@code kind} or {@code release} is null
     * @throws IllegalArgumentException for a negative size, or a zero address with a positive size
     */
    public static ExternalBuffer of(long address, long byteSize, Device device, MemoryKind kind, Runnable release) {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(release, "release");
        if (byteSize < 0) {
            throw new IllegalArgumentException("negative buffer size " + byteSize + " for external memory at 0x"
                    + Long.toHexString(address) + " on " + device);
        }
        if (address == 0 && byteSize > 0) {
            throw new IllegalArgumentException("NULL address for " + byteSize + " bytes of external memory on " + device);
        }
        return new ExternalBuffer(null, address, byteSize, device, kind, release, new AtomicBoolean());
    }

    /** {@inheritDoc} */
    @Override
    public Device device() {
        return device;
    }

    /** {@inheritDoc} */
    @Override
    public MemoryKind kind() {
        return kind;
    }

    /** {@inheritDoc} */
    @Override
    public long address() {
        checkOpen();
        return address;
    }

    /** {@inheritDoc} */
    @Override
    public long byteSize() {
        return byteSize;
    }

    /**
     * A segment over the address, for host-accessible kinds. The segment has the global scope: it
     * does not know when the buffer is closed, so it must not be used afterwards.
     *
     * @return a segment of {@link #byteSize()} bytes at {@link #address()}
     * @throws IllegalStateException         when the buffer (or its owner) is closed
     * @throws UnsupportedOperationException for {@link MemoryKind#DEVICE} and {@link MemoryKind#MANAGED} memory
     */
    @Override
    public MemorySegment segment() {
        checkOpen();
        if (!kind.hostAccessible()) {
            throw new UnsupportedOperationException(this + " is not host-accessible; copy it to the host through"
                    + " the backend for " + device);
        }
        return MemorySegment.ofAddress(address).reinterpret(byteSize);
    }

    /** {@inheritDoc} */
    @Override
    public ExternalBuffer slice(long offset, long length) {
        checkOpen();
        if (offset < 0 || length < 0 || offset > byteSize - length) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", " + offset + "+" + length + ") outside " + this);
        }
        return new ExternalBuffer(owner == null ? this : owner, address + offset, length, device, kind, null, closed);
    }

    /** {@inheritDoc} */
    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    /** {@inheritDoc} */
    @Override
    public boolean isView() {
        return owner != null;
    }

    /**
     * Runs the release action given to {@link #of} (typically the producer's deleter) and marks this
     * buffer and its views closed. An exception from the release action propagates, and the buffer
     * counts as closed.
     *
     * @throws IllegalStateException         when the buffer is already closed
     * @throws UnsupportedOperationException when this buffer is a view
     */
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

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /**
     * A description for messages: class, device, kind, human-readable size, and whether it is a view.
     *
     * @return the description; readable after close
     */
    @Override
    public String toString() {
        return "ExternalBuffer[" + device + " " + kind + " " + Sizes.human(byteSize) + " at 0x"
                + Long.toHexString(address) + (owner != null ? " view" : "") + "]";
    }
}
