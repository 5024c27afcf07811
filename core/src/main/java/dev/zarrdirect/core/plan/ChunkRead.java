// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.plan;

import java.util.Arrays;
import java.util.List;

/**
 * One chunk a plan reads and decodes once, and every place in the destination it feeds. Made by
 * {@link ReadPlanner}; the read engine decodes it with the array's chain, or with the shards'
 * inner chain when the plan's {@link ReadPlan#innerChunks()} is true.
 *
 * <p>The placement list is copied and unmodifiable; {@code chunkIndex} is kept as given, not
 * copied, so {@code equals} compares it by identity. Do not change it.
 *
 * @param key        the store key holding its bytes, such as {@code t2m/c/0/3}
 * @param offset     where its bytes start in that value, in bytes (0 for a whole chunk)
 * @param length     how many bytes, or -1 for the whole value (a chunk that is not inside a shard)
 * @param chunkIndex its index in the array's chunk grid, or in its shard's inner grid (grid
 *                   coordinates, not elements)
 * @param label      what it is, for messages: {@code chunk [0, 3] of array "/t2m" ... inner chunk [0, 1]}
 * @param placements the boxes of it the destination needs, at least one, in the order requests
 *                   reached them
 */
public record ChunkRead(String key, long offset, long length, long[] chunkIndex, String label,
                        List<Placement> placements) {

    /**
     * Copies the placements.
     *
     * @throws NullPointerException     if {@code placements} or one of its elements is null
     * @throws IllegalArgumentException if {@code placements} is empty
     */
    public ChunkRead {
        placements = List.copyOf(placements);
        if (placements.isEmpty()) {
            throw new IllegalArgumentException("a chunk read needs at least one placement: " + label);
        }
    }

    /**
     * Whether the chunk is the whole value at {@link #key()} rather than a byte range of it.
     *
     * @return true when {@link #length()} is negative (-1): a whole chunk, not an inner chunk of a shard
     */
    public boolean whole() {
        return length < 0;
    }

    @Override
    public String toString() {
        return "ChunkRead[" + key + " @" + offset + "+" + length + " " + Arrays.toString(chunkIndex) + " x"
                + placements.size() + "]";
    }
}
