// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.grid;

/**
 * Receives one piece of a selection from {@link RegularChunkGrid#forEachChunk}. The arrays are fresh
 * copies for each call, so an implementation may keep them.
 */
@FunctionalInterface
public interface ChunkVisitor {
    /**
     * Takes the part of the selection that lies in one chunk. Called on the thread that called
     * {@code forEachChunk}, once per intersecting chunk, never with an empty piece. An exception
     * thrown here stops the walk and propagates out of {@code forEachChunk}.
     *
     * <p>All coordinates are in elements, not bytes, and every array has the grid's rank.
     *
     * @param chunkIndex     the chunk's index in the grid
     * @param chunkSelStart  first selected element, in coordinates local to the chunk (inclusive)
     * @param chunkSelStop   end of the selected box, local to the chunk (exclusive)
     * @param outStart       where {@code chunkSelStart} lands in the output, whose origin is the
     *                       selection's start
     */
    void visit(long[] chunkIndex, long[] chunkSelStart, long[] chunkSelStop, long[] outStart);
}
