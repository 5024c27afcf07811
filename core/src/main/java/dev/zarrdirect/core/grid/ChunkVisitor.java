// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.grid;

/**
 * Receives one piece of a selection from {@link RegularChunkGrid#forEachChunk}. The arrays are fresh
 * copies for each call, so an implementation may keep them.
 */
@FunctionalInterface
public interface ChunkVisitor {
    /**
     * @param chunkIndex     the chunk's index in the grid
     * @param chunkSelStart  first selected element, in coordinates local to the chunk (inclusive)
     * @param chunkSelStop   end of the selected box, local to the chunk (exclusive)
     * @param outStart       where {@code chunkSelStart} lands in the output, whose origin is the
     *                       selection's start
     */
    void visit(long[] chunkIndex, long[] chunkSelStart, long[] chunkSelStop, long[] outStart);
}
