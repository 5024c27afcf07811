// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.FilterStore;
import dev.zarrdirect.api.store.Store;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the reads of chunk data (every key but metadata documents) and their bytes, for the scan's
 * metrics: what a pushed-down filter saved shows in the Spark UI as fewer store reads. The reader
 * opens the variables through it and the coordinate arrays through {@link #inner()}, so the count is
 * that of the variables' chunks.
 */
final class CountingStore extends FilterStore {

    private final LongAdder reads = new LongAdder();
    private final LongAdder bytes = new LongAdder();

    CountingStore(Store in) {
        super(in);
    }

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        Optional<MemorySegment> out = in.get(key, range, allocator);
        count(key, out);
        return out;
    }

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, long maxBytes, SegmentAllocator allocator) {
        Optional<MemorySegment> out = in.get(key, range, maxBytes, allocator);
        count(key, out);
        return out;
    }

    private void count(String key, Optional<MemorySegment> value) {
        if (!isMetadata(key)) {
            reads.increment();
            bytes.add(value.map(MemorySegment::byteSize).orElse(0L));
        }
    }

    private static boolean isMetadata(String key) {
        String name = key.substring(key.lastIndexOf('/') + 1);
        return name.equals("zarr.json") || name.startsWith(".z");
    }

    /** The store counted. */
    Store inner() {
        return in;
    }

    /** Reads of chunk data (and shard indexes) so far, including those of absent keys. */
    long reads() {
        return reads.sum();
    }

    /** Bytes those reads returned. */
    long bytes() {
        return bytes.sum();
    }
}
