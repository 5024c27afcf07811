// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store.memory;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreKeys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A {@link Store} that keeps every value in native memory, for tests and for small hierarchies
 * built on the fly.
 *
 * <h2>Ownership</h2>
 * {@link #set} copies the value into a segment of its own (GC-managed, so an overwritten value is
 * freed once no reader is copying from it), and {@link #get} copies into memory from the caller's
 * allocator: no caller ever holds memory that the store owns, and no value is limited to 2 GiB.
 *
 * <h2>Keys</h2>
 * Keys are validated with {@link StoreKeys}. Unlike a file system, this store lets {@code a} and
 * {@code a/b} both hold values; portable code does not rely on it.
 *
 * <h2>Threads and lifetime</h2>
 * Safe for concurrent use: a value is replaced by swapping one map entry, so readers see the old
 * value or the new one. {@link #close()} drops every value; closing twice is harmless, any other
 * call after close throws {@link IllegalStateException}.
 */
public final class MemoryStore implements Store {

    private final ConcurrentSkipListMap<String, MemorySegment> values = new ConcurrentSkipListMap<>();
    private final String description = "MemoryStore@" + Integer.toHexString(System.identityHashCode(this));
    private volatile boolean closed;

    /** An empty store. */
    public MemoryStore() {
    }

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(allocator, "allocator");
        StoreKeys.validate(description, key);
        ensureOpen();
        MemorySegment value = values.get(key);
        if (value == null) {
            return Optional.empty();
        }
        long size = value.byteSize();
        if (!range.fits(size)) {
            throw new StoreException(description, key, "range " + range + " does not fit in key \""
                    + key + "\" (length " + size + ") in " + description);
        }
        long length = range.lengthIn(size);
        MemorySegment dst = allocator.allocate(length);
        MemorySegment.copy(value, range.start(size), dst, 0, length);
        return Optional.of(dst);
    }

    @Override
    public long size(String key) {
        StoreKeys.validate(description, key);
        ensureOpen();
        MemorySegment value = values.get(key);
        return value == null ? -1 : value.byteSize();
    }

    @Override
    public void set(String key, MemorySegment value) {
        Objects.requireNonNull(value, "value");
        StoreKeys.validate(description, key);
        ensureOpen();
        MemorySegment copy = Arena.ofAuto().allocate(value.byteSize());
        copy.copyFrom(value);
        values.put(key, copy.asReadOnly());
    }

    @Override
    public void delete(String key) {
        StoreKeys.validate(description, key);
        ensureOpen();
        values.remove(key);
    }

    @Override
    public List<String> list(String prefix) {
        StoreKeys.validatePrefix(description, prefix);
        ensureOpen();
        List<String> keys = new ArrayList<>();
        for (String key : values.tailMap(prefix).keySet()) {
            if (!key.startsWith(prefix)) {
                break;
            }
            keys.add(key);
        }
        return keys;
    }

    @Override
    public List<String> listDir(String prefix) {
        String dirPrefix = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
        StoreKeys.validatePrefix(description, dirPrefix);
        ensureOpen();
        List<String> children = new ArrayList<>();
        Map.Entry<String, MemorySegment> entry = values.ceilingEntry(dirPrefix);
        while (entry != null && entry.getKey().startsWith(dirPrefix)) {
            String key = entry.getKey();
            int slash = key.indexOf('/', dirPrefix.length());
            if (slash < 0) {
                children.add(key);
                entry = values.higherEntry(key);
            } else {
                String subdir = key.substring(0, slash + 1);
                children.add(subdir);
                // '0' follows '/' in UTF-16 order, so this skips every key under subdir at once.
                entry = values.ceilingEntry(key.substring(0, slash) + '0');
            }
        }
        return children;
    }

    @Override
    public void close() {
        closed = true;
        values.clear();
    }

    @Override
    public String toString() {
        return description;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(description + " is closed");
        }
    }
}
