// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.store;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A store that passes every call to another one: the base of decorators (counting, fault
 * injection, caching) that override only what they change. Closing it closes the wrapped store.
 * Thread-safety is the wrapped store's, plus whatever the subclass adds.
 *
 * {@snippet :
 * final class CountingStore extends FilterStore {
 *     final AtomicLong reads = new AtomicLong();
 *     CountingStore(Store in) { super(in); }
 *     @Override
 *     public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
 *         reads.incrementAndGet();
 *         return super.get(key, range, allocator);
 *     }
 * }
 * }
 *
 * <p>Methods with default implementations in {@link Store} ({@code get(key, allocator)}, the
 * bounded {@code get(key, range, maxBytes, allocator)}, {@link #exists}, {@link #deletePrefix}) are
 * not forwarded: they call this store's own
 * {@link #get(String, ByteRange, SegmentAllocator)}, {@link #size}, {@link #list} and
 * {@link #delete}, so overriding those is enough.
 */
public abstract class FilterStore implements Store {

    /** The wrapped store, which receives every call; owned by this store, which closes it. */
    protected final Store in;

    /**
     * Wraps {@code in}; from now on closing this store closes it.
     *
     * @param in the store to pass calls to
     * @throws NullPointerException when {@code in} is null
     */
    protected FilterStore(Store in) {
        this.in = Objects.requireNonNull(in, "in");
    }

    /** {@inheritDoc} Forwards to the wrapped store. */
    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        return in.get(key, range, allocator);
    }

    /** {@inheritDoc} Forwards to the wrapped store. */
    @Override
    public long size(String key) {
        return in.size(key);
    }

    /** {@inheritDoc} Forwards to the wrapped store. */
    @Override
    public void set(String key, MemorySegment value) {
        in.set(key, value);
    }

    /** {@inheritDoc} Forwards to the wrapped store. */
    @Override
    public void delete(String key) {
        in.delete(key);
    }

    /** {@inheritDoc} Forwards to the wrapped store. */
    @Override
    public List<String> list(String prefix) {
        return in.list(prefix);
    }

    /** {@inheritDoc} Forwards to the wrapped store. */
    @Override
    public List<String> listDir(String prefix) {
        return in.listDir(prefix);
    }

    /** {@inheritDoc} Forwards to the wrapped store. */
    @Override
    public Optional<Path> localPath(String key) {
        return in.localPath(key);
    }

    /** {@inheritDoc} Forwards to the wrapped store. */
    @Override
    public boolean isReadOnly() {
        return in.isReadOnly();
    }

    /** Closes the wrapped store. */
    @Override
    public void close() {
        in.close();
    }

    /**
     * The decorator's simple class name around the wrapped store's description:
     * {@code CountingStore(FileSystemStore(root=/data/era5.zarr))}.
     *
     * @return the description
     */
    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + in + ")";
    }
}
