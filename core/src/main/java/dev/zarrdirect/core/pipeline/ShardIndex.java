// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.core.grid.Shapes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The decoded index of one shard: for each inner chunk, where its encoded bytes lie in the shard,
 * or that it was never written. Entries are checked when they are asked for: with the shard's size
 * known, an entry must lie in the data part (not past the end, not over the index itself).
 */
public final class ShardIndex {

    private static final long MISSING = -1L;

    /**
     * Two inner-chunk ranges of one shard closer than this are read as one request, trading a few
     * wasted bytes for a request (the read planner and the in-memory shard decoder both use it).
     */
    public static final long COALESCE_GAP = 64 * 1024;

    /** Where an inner chunk's bytes lie in its shard. */
    public record Entry(long offset, long length) {
    }

    private final long[] shardShape;
    private final long[] innerShape;
    private final long[] innerGrid;
    private final MemorySegment entries;
    private final long dataStart;
    private final long dataEnd;
    private final long shardSize;
    private final String what;

    /**
     * @param entries  (offset, length) uint64 pairs in C order of the inner grid
     * @param dataEnd  the end of the data part, -1 when the shard's size is not known
     * @param what     the shard, for messages
     */
    ShardIndex(long[] shardShape, long[] innerShape, long[] innerGrid, MemorySegment entries, long dataStart,
               long dataEnd, long shardSize, String what) {
        this.shardShape = shardShape;
        this.innerShape = innerShape;
        this.innerGrid = innerGrid;
        this.entries = entries;
        this.dataStart = dataStart;
        this.dataEnd = dataEnd;
        this.shardSize = shardSize;
        this.what = what;
    }

    /** About how many heap bytes this index holds: its entries and a fixed overhead, for {@link ShardIndexCache}. */
    long footprint() {
        return entries.byteSize() + 256 + 24L * shardShape.length;
    }

    /** The shard's shape, in elements. */
    public long[] shardShape() {
        return shardShape.clone();
    }

    /** The inner chunks' shape, in elements. */
    public long[] innerShape() {
        return innerShape.clone();
    }

    /**
     * The entry of the inner chunk at {@code innerIndex}; null when it was never written.
     *
     * @throws CorruptChunkException when the entry points outside the shard's data
     */
    public Entry entry(long[] innerIndex) {
        long lin = Shapes.linearIndex(innerIndex, innerGrid);
        long off = entries.get(ValueLayout.JAVA_LONG_UNALIGNED, lin * 16);
        long len = entries.get(ValueLayout.JAVA_LONG_UNALIGNED, lin * 16 + 8);
        if (off == MISSING && len == MISSING) {
            return null;
        }
        if (off < 0 || len < 0 || (dataEnd >= 0 && (off < dataStart || off > dataEnd - len))) {
            throw new CorruptChunkException("sharding_indexed", what + " has an index entry for inner chunk "
                    + Arrays.toString(innerIndex) + " at offset " + Long.toUnsignedString(off) + " length "
                    + Long.toUnsignedString(len) + (shardSize >= 0 ? ", outside its " + shardSize + " bytes" : ""));
        }
        return new Entry(off, len);
    }
}
