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
 */
public abstract class FilterStore implements Store {

    protected final Store in;

    protected FilterStore(Store in) {
        this.in = Objects.requireNonNull(in, "in");
    }

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        return in.get(key, range, allocator);
    }

    @Override
    public long size(String key) {
        return in.size(key);
    }

    @Override
    public void set(String key, MemorySegment value) {
        in.set(key, value);
    }

    @Override
    public void delete(String key) {
        in.delete(key);
    }

    @Override
    public List<String> list(String prefix) {
        return in.list(prefix);
    }

    @Override
    public List<String> listDir(String prefix) {
        return in.listDir(prefix);
    }

    @Override
    public Optional<Path> localPath(String key) {
        return in.localPath(key);
    }

    @Override
    public boolean isReadOnly() {
        return in.isReadOnly();
    }

    @Override
    public void close() {
        in.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + in + ")";
    }
}
