// SPDX-License-Identifier: Apache-2.0
/**
 * Chunk grids: which chunk holds which element, and what part of a chunk a selection touches.
 *
 * <h2>Regular grid</h2>
 * {@link dev.zarrdirect.core.grid.RegularChunkGrid} is the Zarr v3 {@code regular} grid: chunk
 * {@code i} along a dimension covers elements {@code [i*c, (i+1)*c)}; the last chunk may reach past
 * the array's edge, and those elements are not part of the array.
 *
 * <h2>Selections</h2>
 * {@link dev.zarrdirect.core.grid.RegularChunkGrid#forEachChunk} splits a box selection into one
 * piece per intersecting chunk, in C order of chunk index, giving each piece in chunk-local and in
 * output coordinates, so a reader can copy every chunk straight into its place in the result.
 *
 * <h2>Arithmetic</h2>
 * {@link dev.zarrdirect.core.grid.Shapes} holds shape arithmetic. Products that do not fit in a
 * {@code long} throw instead of wrapping around.
 *
 * <h2>Units and threads</h2>
 * Shapes, indices and extents are {@code long[]}s counted in elements, never bytes, one entry per
 * dimension (rank 0 is the empty array). Every method copies what it keeps and returns fresh
 * arrays; the grid is immutable and every type here is safe for use by many threads.
 */
package dev.zarrdirect.core.grid;
