// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import dev.zarrdirect.api.Device;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Buffer} over host memory held by a {@link MemorySegment}. Thread-safe to read and write
 * from any thread when the segment allows it (segments from {@link #allocate} come from shared
 * arenas; a segment passed to {@link #of} or {@link #wrap} keeps its own arena's thread rules);
 * closing is atomic and happens once.
 *
 * <p>Backends build pooled or pinned buffers with {@link #of}, passing the action that gives the
 * memory back; users who have a segment of their own wrap it with {@link #wrap}, which never frees it.
 *
 * <h2>Ownership</h2>
 * An owning buffer runs its release action on the first {@link #close()}; a second close throws
 * {@link IllegalStateException}. {@linkplain #slice Slices} share the owner's open flag: they fail
 * once it is closed, and closing one throws {@link UnsupportedOperationException}.
 *
 * {@snippet :
 * try (HostBuffer b = HostBuffer.allocate(1 << 20)) {          // 1 MiB, zeroed, 64-byte aligned
 *     b.segment().set(ValueLayout.JAVA_INT, 0, 42);
 * }
 * try (Arena arena = Arena.ofConfined()) {
 *     HostBuffer w = HostBuffer.wrap(arena.allocate(256));     // the arena frees the memory, not w
 * }
 * }
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

    /**
     * Allocates {@code bytes} of zeroed host memory (64-byte aligned) from a new shared arena, freed
     * on {@link #close()}. The buffer is on {@link Device#CPU}, of kind {@link MemoryKind#HOST}. A
     * zero size is allowed.
     *
     * @param bytes the size in bytes
     * @return an owning buffer; the caller closes it
     * @throws IllegalArgumentException when {@code bytes} is negative
     * @throws OutOfMemoryError         when the memory cannot be allocated
     */
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
     * to a pool, unregister a pinned range). The buffer does not check that the segment suits the
     * kind or device: a backend that says {@link MemoryKind#HOST_PINNED} vouches for it. An exception
     * thrown by {@code release} propagates from {@link #close()}, and the buffer counts as closed.
     *
     * @param segment the memory; the buffer uses it as it is (a read-only segment makes a buffer
     *                that cannot be written)
     * @param kind    {@link MemoryKind#HOST} or {@link MemoryKind#HOST_PINNED}
     * @param device  the device to report, {@link Device#CPU} for ordinary host memory
     * @param release what closing does; runs at most once
     * @return an owning buffer; the caller closes it
     * @throws IllegalArgumentException when {@code kind} is not host-accessible
     * @throws NullPointerException     when {@code kind} or {@code release} is null
     */
    public static HostBuffer of(MemorySegment segment, MemoryKind kind, Device device, Runnable release) {
        if (!kind.hostAccessible()) {
            throw new IllegalArgumentException("HostBuffer needs a host-accessible kind, got " + kind);
        }
        return new HostBuffer(null, segment, kind, device, Objects.requireNonNull(release, "release"),
                new AtomicBoolean());
    }

    /**
     * A buffer over memory the caller owns, on {@link Device#CPU} as {@link MemoryKind#HOST}; closing
     * it only marks it closed (and its views with it), the memory stays the caller's to free. The
     * segment must stay alive while the buffer is used.
     *
     * @param segment the memory, which the caller keeps owning
     * @return an owning buffer whose {@link #close()} frees nothing
     */
    public static HostBuffer wrap(MemorySegment segment) {
        return new HostBuffer(null, segment, MemoryKind.HOST, Device.CPU, () -> { }, new AtomicBoolean());
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
        return segment.address();
    }

    /** {@inheritDoc} */
    @Override
    public long byteSize() {
        return segment.byteSize();
    }

    /**
     * The segment given at construction (or its slice, for a view); host buffers are always host-accessible.
     *
     * @return the memory, shared with the buffer
     * @throws IllegalStateException when the buffer (or its owner) is closed
     */
    @Override
    public MemorySegment segment() {
        checkOpen();
        return segment;
    }

    /** {@inheritDoc} */
    @Override
    public HostBuffer slice(long offset, long length) {
        checkOpen();
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", " + offset + "+" + length + ") outside " + this);
        }
        return new HostBuffer(owner == null ? this : owner, segment.asSlice(offset, length), kind, device,
                null, closed);
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
     * Runs the release action (frees the arena of {@link #allocate}, returns pooled memory, or, for
     * {@link #wrap}, nothing) and marks this buffer and its views closed.
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
        return "HostBuffer[" + device + " " + kind + " " + Sizes.human(segment.byteSize())
                + (owner != null ? " view" : "") + "]";
    }
}
