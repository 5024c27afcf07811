// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

/** A chunk stored under one key of a store. */
public record StoreChunkSource(Store store, String key) implements ChunkSource {

    @Override
    public MemorySegment read(ByteRange range, SegmentAllocator allocator) {
        return store.get(key, range, allocator).orElse(null);
    }

    @Override
    public String describe() {
        return "key \"" + key + "\" in " + store;
    }
}
