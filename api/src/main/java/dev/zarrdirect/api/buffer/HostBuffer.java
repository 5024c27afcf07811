// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import dev.zarrdirect.api.Device;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Buffer} over host memory held by a {@link MemorySegment}. Thread-safe to read and write
 * from any thread (segments come from shared arenas); closing is atomic and happens once.
 *
 * <p>Backends build pooled or pinned buffers with {@link #of}, passing the action that gives the
 * memory back; users who have a segment of their own wrap it with {@link #wrap}, which never frees it.
 */
public final class HostBuffer implements Buffer {

    private final HostBuffer owner; // null for an owning buffer
    private final MemorySegment segment;
    private final MemoryKind kind;
    private final Device device;
    private final Runnable release;
    private final AtomicBoolean closed;

    private HostBuffer(HostBuffer owner, MemorySegment segment, MemoryKind kind, Device device,
                       Runnable release, AtomicBoolean closed) {
        this.owner = owner;
        this.segment = segment;
        this.kind = kind;
        this.device = device;
        this.release = release;
        this.closed = closed;
    }

    /** Allocates {@code bytes} of zeroed host memory (64-byte aligned), freed on {@link #close()}. */
    public static HostBuffer allocate(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative buffer size " + bytes);
        }
        Arena arena = Arena.ofShared();
        try {
            MemorySegment seg = arena.allocate(Math.max(bytes, 1), 64).asSlice(0, bytes);
            return new HostBuffer(null, seg, MemoryKind.HOST, Device.CPU, arena::close, new AtomicBoolean());
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /**
     * An owning buffer over {@code segment}; {@code release} runs once, on close (free it, return it
     * to a pool, unregister a pinned range).
     */
    public static HostBuffer of(MemorySegment segment, MemoryKind kind, Device device, Runnable release) {
        if (!kind.hostAccessible()) {
            throw new IllegalArgumentException("HostBuffer needs a host-accessible kind, got " + kind);
        }
        return new HostBuffer(null, segment, kind, device, Objects.requireNonNull(release, "release"),
                new AtomicBoolean());
    }

    /** A buffer over memory the caller owns; closing it only marks it closed. */
    public static HostBuffer wrap(MemorySegment segment) {
        return new HostBuffer(null, segment, MemoryKind.HOST, Device.CPU, () -> { }, new AtomicBoolean());
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
        return segment.address();
    }

    @Override
    public long byteSize() {
        return segment.byteSize();
    }

    @Override
    public MemorySegment segment() {
        checkOpen();
        return segment;
    }

    @Override
    public HostBuffer slice(long offset, long length) {
        checkOpen();
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", " + offset + "+" + length + ") outside " + this);
        }
        return new HostBuffer(owner == null ? this : owner, segment.asSlice(offset, length), kind, device,
                null, closed);
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

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    @Override
    public String toString() {
        return "HostBuffer[" + device + " " + kind + " " + Sizes.human(segment.byteSize())
                + (owner != null ? " view" : "") + "]";
    }
}
