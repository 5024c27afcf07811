// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import dev.zarrdirect.api.Device;

import java.lang.foreign.MemorySegment;

/**
 * A region of memory on one device: a kind, an address and a size in bytes (no 2 GiB limit).
 *
 * <h2>Ownership</h2>
 * Whoever allocates a buffer closes it; closing frees it or gives it back to the pool it came
 * from. Closing an owning buffer twice is a bug and throws {@link IllegalStateException}, as
 * {@code Arena.close()} does. {@linkplain #slice Slices} are views: they share their parent's
 * lifetime, are never closed themselves ({@link #close()} on a view throws
 * {@link UnsupportedOperationException}) and fail once the parent is closed.
 *
 * <h2>Access</h2>
 * Host kinds expose their bytes as a {@link MemorySegment}; device memory exposes only its
 * address, for the backend that owns it. Every access to the memory of a closed buffer
 * ({@link #address()}, {@link #segment()}, {@link #slice}) throws {@link IllegalStateException}
 * naming the buffer; its description ({@link #device()}, {@link #kind()}, {@link #byteSize()},
 * {@link #isOpen()}, {@link #isView()}) stays readable.
 *
 * <h2>Threads</h2>
 * The implementations in this package may be used and closed from any thread; closing is atomic.
 * Closing a buffer while another thread still reads or writes it is the owner's bug, as with a
 * shared {@link java.lang.foreign.Arena}.
 *
 * {@snippet :
 * try (Buffer staging = HostBuffer.allocate(4096)) {    // owner: this block
 *     Buffer head = staging.slice(0, 64);                // view: never closed
 *     head.segment().fill((byte) 1);                     // writes staging's first 64 bytes
 * }                                                      // frees the memory; head now fails
 * }
 */
public interface Buffer extends AutoCloseable {

    /**
     * The device the memory is on ({@link Device#CPU} for ordinary host memory).
     *
     * @return the device, never null; readable after close
     */
    Device device();

    /**
     * The kind of memory, which decides whether {@link #segment()} works.
     *
     * @return the kind, never null; readable after close
     */
    MemoryKind kind();

    /**
     * The raw address of the first byte: a host address for host kinds, a device pointer otherwise.
     * A view's address is its parent's plus the slice offset.
     *
     * @return the address; may be 0 for an empty buffer
     * @throws IllegalStateException when the buffer (or, for a view, its owner) is closed
     */
    long address();

    /**
     * The size in bytes (not elements).
     *
     * @return the size, never negative; readable after close
     */
    long byteSize();

    /**
     * The bytes as a segment; only for {@linkplain MemoryKind#hostAccessible() host-accessible} kinds.
     * The segment is exactly {@link #byteSize()} bytes. Do not keep it past the buffer's close: when
     * closing frees the memory ({@link HostBuffer#allocate}) a later access fails, but for pooled or
     * wrapped memory nothing stops it, and it reads or overwrites whatever the memory's next user
     * put there.
     *
     * @return the memory, shared with the buffer (writes through it change the buffer)
     * @throws UnsupportedOperationException for device memory
     * @throws IllegalStateException         when the buffer is closed
     */
    MemorySegment segment();

    /**
     * A view of {@code length} bytes from {@code offset}; it does not own memory. The view shares
     * the owner's lifetime: it fails once the owner is closed, and {@link #close()} on it throws.
     * A slice of a view is a view of the same owner.
     *
     * @param offset the first byte, from the start of this buffer
     * @param length the number of bytes
     * @return the view, of the same device and kind
     * @throws IndexOutOfBoundsException when {@code [offset, offset + length)} is not inside this buffer
     * @throws IllegalStateException     when the buffer (or its owner) is closed
     */
    Buffer slice(long offset, long length);

    /**
     * Whether the memory is still usable: true until this buffer (or, for a view, its owner) is closed.
     *
     * @return true while open
     */
    boolean isOpen();

    /**
     * Whether this buffer is a view made by {@link #slice}, which cannot be closed.
     *
     * @return true for a view, false for an owning buffer
     */
    boolean isView();

    /**
     * Frees the memory or returns it to its pool; views of it become unusable. Call it once, from
     * the owner.
     *
     * @throws IllegalStateException         when the buffer is already closed
     * @throws UnsupportedOperationException when this buffer is a view
     */
    @Override
    void close();
}
