// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

/**
 * A chunk stored under one key of a store, read with at most {@code maxBytes} per read (the chain's
 * {@link CodecChain#maxEncodedBytes()}), so that a hostile store cannot make a read allocate more
 * than a chunk can hold; {@link Long#MAX_VALUE} reads without a bound.
 */
public record StoreChunkSource(Store store, String key, long maxBytes) implements ChunkSource {

    /** A chunk read without a bound: for values this process wrote itself. */
    public StoreChunkSource(Store store, String key) {
        this(store, key, Long.MAX_VALUE);
    }

    @Override
    public MemorySegment read(ByteRange range, SegmentAllocator allocator) {
        if (maxBytes == Long.MAX_VALUE) {
            return store.get(key, range, allocator).orElse(null);
        }
        return store.get(key, range, maxBytes, allocator).orElse(null);
    }

    @Override
    public String describe() {
        return "key \"" + key + "\" in " + store;
    }
}
