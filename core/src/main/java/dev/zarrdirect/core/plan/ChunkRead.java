// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.plan;

import java.util.Arrays;
import java.util.List;

/**
 * One chunk a plan reads and decodes once, and every place in the destination it feeds.
 *
 * @param key        the store key holding its bytes
 * @param offset     where its bytes start in that value (0 for a whole chunk)
 * @param length     how many bytes, or -1 for the whole value (a chunk that is not inside a shard)
 * @param chunkIndex its index in the array's chunk grid, or in its shard's inner grid
 * @param label      what it is, for messages: {@code chunk [0, 3] of array "/t2m" ... inner chunk [0, 1]}
 * @param placements the boxes of it the destination needs, at least one
 */
public record ChunkRead(String key, long offset, long length, long[] chunkIndex, String label,
                        List<Placement> placements) {

    public ChunkRead {
        placements = List.copyOf(placements);
        if (placements.isEmpty()) {
            throw new IllegalArgumentException("a chunk read needs at least one placement: " + label);
        }
    }

    /** True when the read is the whole value at {@link #key()}. */
    public boolean whole() {
        return length < 0;
    }

    @Override
    public String toString() {
        return "ChunkRead[" + key + " @" + offset + "+" + length + " " + Arrays.toString(chunkIndex) + " x"
                + placements.size() + "]";
    }
}
