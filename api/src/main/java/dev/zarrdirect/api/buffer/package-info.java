// SPDX-License-Identifier: Apache-2.0
/**
 * Memory on a device: {@link dev.zarrdirect.api.buffer.Buffer}, its host and external
 * implementations, and the strided host copies every backend shares.
 *
 * <h2>Kinds of memory</h2>
 * A buffer has a {@link dev.zarrdirect.api.buffer.MemoryKind}: pageable host memory, pinned host
 * memory, device memory or managed memory. Only the host kinds expose their bytes to Java as a
 * {@link java.lang.foreign.MemorySegment}; device and managed memory are an address for the backend
 * of their device. {@link dev.zarrdirect.api.buffer.HostBuffer} holds host memory (allocated, pooled
 * or wrapped); {@link dev.zarrdirect.api.buffer.ExternalBuffer} holds memory a native producer
 * handed over (a DLPack tensor on a GPU).
 *
 * <h2>Ownership</h2>
 * Whoever allocates closes; slices are views that never own; use after close fails loudly with
 * {@link java.lang.IllegalStateException}; closing an owning buffer twice throws, and closing a view
 * throws {@link java.lang.UnsupportedOperationException}. Sizes are in bytes and have no 2 GiB limit.
 *
 * <h2>Regions and copies</h2>
 * {@link dev.zarrdirect.api.buffer.Region} describes a strided box of a buffer, the unit of chunk
 * placement (offsets and strides in bytes, extents in elements);
 * {@link dev.zarrdirect.api.buffer.StridedCopy} is the host implementation of region copies and
 * fills that every backend shares. {@link dev.zarrdirect.api.buffer.Sizes} formats byte counts for
 * messages.
 */
package dev.zarrdirect.api.buffer;
