// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.store.ByteRange;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

/** Where a chunk's encoded bytes come from: a store key, or a slice of bytes already in memory (an inner chunk). */
public interface ChunkSource {

    /**
     * The bytes of {@code range} of the value, or null when the chunk was never written.
     */
    MemorySegment read(ByteRange range, SegmentAllocator allocator);

    /** What this is, for messages: {@code key "t2m/c/0/3/1"} or {@code bytes 100-200 of key "..."}. */
    String describe();

    /** A source over bytes already in memory. */
    static ChunkSource ofMemory(MemorySegment bytes, String description) {
        return new ChunkSource() {
            @Override
            public MemorySegment read(ByteRange range, SegmentAllocator allocator) {
                long size = bytes.byteSize();
                if (!range.fits(size)) {
                    throw new IndexOutOfBoundsException(range + " outside " + size + " bytes of " + description);
                }
                return bytes.asSlice(range.start(size), range.lengthIn(size));
            }

            @Override
            public String describe() {
                return description;
            }
        };
    }
}
