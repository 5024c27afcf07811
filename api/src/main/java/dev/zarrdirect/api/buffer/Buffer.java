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
 * address, for the backend that owns it. Every operation on a closed buffer throws
 * {@link IllegalStateException} naming the buffer.
 */
public interface Buffer extends AutoCloseable {

    Device device();

    MemoryKind kind();

    /** The raw address: a host address for host kinds, a device pointer otherwise. */
    long address();

    long byteSize();

    /**
     * The bytes as a segment; only for {@linkplain MemoryKind#hostAccessible() host-accessible} kinds.
     *
     * @throws UnsupportedOperationException for device memory
     * @throws IllegalStateException         when the buffer is closed
     */
    MemorySegment segment();

    /** A view of {@code length} bytes from {@code offset}; it does not own memory. */
    Buffer slice(long offset, long length);

    /** True until this buffer (or, for a view, its owner) is closed. */
    boolean isOpen();

    /** True for a slice, which cannot be closed. */
    boolean isView();

    /** Frees the memory or returns it to its pool. */
    @Override
    void close();
}
