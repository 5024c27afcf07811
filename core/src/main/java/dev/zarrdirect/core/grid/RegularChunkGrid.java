// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.grid;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Zarr v3 {@code regular} chunk grid: every chunk has the shape {@code chunkShape}. Extents are
 * positive; the record holds its own copy of the array and hands out copies.
 *
 * <p>A grid knows only its chunk shape, not the array's shape: methods that need the array's
 * extent take it as an argument, and the last chunk along a dimension may reach past it. All
 * extents and coordinates are in elements. Instances are immutable and thread-safe; two grids are
 * equal when their chunk shapes are.
 *
 * {@snippet :
 * RegularChunkGrid grid = new RegularChunkGrid(new long[] {100, 100});
 * long[] chunks = grid.gridShape(new long[] {250, 100});   // [3, 1]
 * long[] origin = grid.chunkOrigin(new long[] {2, 0});      // [200, 0]
 * }
 *
 * @param chunkShape the extent of every chunk in each dimension, in elements; all positive, length
 *                   equal to the array's rank (0 for a rank-0 array); copied, not kept
 */
public record RegularChunkGrid(long[] chunkShape) {

    /** The grid's name in metadata, {@code "regular"}: the {@code "name"} of a {@code chunk_grid}. */
    public static final String NAME = "regular";

    /**
     * Copies and checks the chunk shape.
     *
     * @throws NullPointerException     if {@code chunkShape} is null
     * @throws IllegalArgumentException if an extent is zero or negative
     */
    public RegularChunkGrid {
        chunkShape = Shapes.copy(chunkShape, "chunkShape");
        for (int i = 0; i < chunkShape.length; i++) {
            if (chunkShape[i] <= 0) {
                throw new IllegalArgumentException("chunk shape " + Shapes.format(chunkShape)
                        + " has the non-positive extent " + chunkShape[i] + " in dimension " + i);
            }
        }
    }

    /**
     * The extent of every chunk in each dimension, in elements.
     *
     * @return a fresh copy, which the caller may change
     */
    @Override
    public long[] chunkShape() {
        return chunkShape.clone();
    }

    /**
     * The number of dimensions.
     *
     * @return the length of the chunk shape; 0 for the grid of a rank-0 array
     */
    public int rank() {
        return chunkShape.length;
    }

    /**
     * The grid as the {@code chunk_grid} value of a {@code zarr.json}:
     * {@code {"name": "regular", "configuration": {"chunk_shape": [...]}}}.
     *
     * @return a new, mutable {@code Map<String, Object>} in that member order whose extents are
     *         {@code Long}s; {@link #parse} reads it back to an equal grid
     */
    public Object toJson() {
        List<Object> extents = new ArrayList<>(chunkShape.length);
        for (long c : chunkShape) {
            extents.add(c);
        }
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("chunk_shape", extents);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", NAME);
        json.put("configuration", config);
        return json;
    }

    /**
     * Reads a {@code chunk_grid} value for an array of rank {@code rank}. Strict: members other
     * than {@code name} and {@code configuration}, and configuration members other than
     * {@code chunk_shape}, are refused.
     *
     * @param json  the parsed {@code chunk_grid} value, in the value model of the metadata package
     *              (a {@code Map<String, Object>} with {@code Long} extents)
     * @param rank  the rank of the array's {@code shape}, which the chunk shape must match
     * @param where what {@code json} is, for messages, such as
     *              {@code "chunk_grid" in "t2m/zarr.json"}
     * @return the grid
     * @throws InvalidMetadataException naming {@code where} for a value that is not an object,
     *                                  another grid name, an unknown member, a missing or mistyped
     *                                  chunk shape, a rank mismatch or a non-positive extent
     */
    public static RegularChunkGrid parse(Object json, int rank, String where) {
        Map<String, Object> obj = Json.object(json, where);
        String name = Json.string(obj.get("name"), Json.child(where, "name"));
        if (!name.equals(NAME)) {
            throw new InvalidMetadataException(where + " names the chunk grid \"" + name
                    + "\", but only \"regular\" is supported");
        }
        for (String k : obj.keySet()) {
            if (!k.equals("name") && !k.equals("configuration")) {
                throw new InvalidMetadataException(where + " has the unknown member \"" + k
                        + "\"; a chunk grid has only \"name\" and \"configuration\"");
            }
        }
        String cfgWhere = Json.child(where, "configuration");
        Map<String, Object> cfg = Json.object(obj.get("configuration"), cfgWhere);
        String shapeWhere = Json.child(cfgWhere, "chunk_shape");
        if (!cfg.containsKey("chunk_shape")) {
            throw new InvalidMetadataException(shapeWhere + " is missing");
        }
        for (String k : cfg.keySet()) {
            if (!k.equals("chunk_shape")) {
                throw new InvalidMetadataException(cfgWhere + " has the unknown member \"" + k
                        + "\"; the regular grid takes only \"chunk_shape\"");
            }
        }
        long[] shape = Json.longArray(cfg.get("chunk_shape"), shapeWhere);
        if (shape.length != rank) {
            throw new InvalidMetadataException(shapeWhere + " is " + Shapes.format(shape) + " of rank " + shape.length
                    + ", but the array's shape has rank " + rank);
        }
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] <= 0) {
                throw new InvalidMetadataException(shapeWhere + " is " + Shapes.format(shape)
                        + ": chunk extents must be positive, dimension " + i + " is " + shape[i]);
            }
        }
        return new RegularChunkGrid(shape);
    }

    /**
     * Chunks per dimension: the ceiling of extent / chunk extent, 0 where the array's extent is 0.
     *
     * @param arrayShape the array's shape, in elements; not changed
     * @return a new array of the grid's rank
     * @throws IllegalArgumentException if the rank differs from the grid's or an extent is negative
     */
    public long[] gridShape(long[] arrayShape) {
        checkArrayShape(arrayShape);
        long[] grid = new long[chunkShape.length];
        for (int i = 0; i < grid.length; i++) {
            grid[i] = ceilDiv(arrayShape[i], chunkShape[i]);
        }
        return grid;
    }

    /**
     * The number of chunks of an array of this shape; 1 for rank 0, 0 if any extent is 0.
     *
     * @param arrayShape the array's shape, in elements
     * @return the product of {@link #gridShape}
     * @throws IllegalArgumentException if the rank differs from the grid's or an extent is negative
     * @throws ArithmeticException      if the count does not fit in a {@code long}
     */
    public long chunkCount(long[] arrayShape) {
        return Shapes.product(gridShape(arrayShape));
    }

    /**
     * The array coordinates of the first element of chunk {@code chunkIndex}: its index times the
     * chunk shape. The index is not checked against any array's grid shape, so the origin may lie
     * past the array's end.
     *
     * @param chunkIndex the chunk's index in the grid, one entry per dimension; not changed
     * @return a new array of element coordinates
     * @throws IllegalArgumentException  if the rank differs from the grid's
     * @throws IndexOutOfBoundsException if an entry is negative
     * @throws ArithmeticException       if a coordinate does not fit in a {@code long}
     */
    public long[] chunkOrigin(long[] chunkIndex) {
        Shapes.checkRank(chunkIndex, chunkShape, "chunk index");
        long[] origin = new long[chunkIndex.length];
        for (int i = 0; i < origin.length; i++) {
            if (chunkIndex[i] < 0) {
                throw new IndexOutOfBoundsException("chunk index " + Shapes.format(chunkIndex)
                        + " is negative in dimension " + i);
            }
            origin[i] = Math.multiplyExact(chunkIndex[i], chunkShape[i]);
        }
        return origin;
    }

    /**
     * Calls {@code v} once for each chunk that intersects the box {@code [selStart, selStop)} of an
     * array of {@code arrayShape}, in C order of chunk index. An empty box visits nothing; rank 0
     * visits the chunk {@code []} once. Runs on the caller's thread; the arguments are read, never
     * changed or kept.
     *
     * {@snippet :
     * RegularChunkGrid grid = new RegularChunkGrid(new long[] {10});
     * grid.forEachChunk(new long[] {25}, new long[] {8}, new long[] {12},
     *         (chunk, from, to, out) -> System.out.println(Arrays.toString(chunk) + " "
     *                 + Arrays.toString(from) + ".." + Arrays.toString(to) + " -> " + Arrays.toString(out)));
     * // [0] [8]..[10] -> [0]
     * // [1] [0]..[2] -> [2]
     * }
     *
     * @param arrayShape the array's shape, in elements
     * @param selStart   first selected element in each dimension (inclusive)
     * @param selStop    end of the selection in each dimension (exclusive); {@code selStart <= selStop
     *                   <= arrayShape}
     * @param v          called once per intersecting chunk
     * @throws IllegalArgumentException if ranks differ, an extent of the array is negative or the box
     *                                  is not within the array
     */
    public void forEachChunk(long[] arrayShape, long[] selStart, long[] selStop, ChunkVisitor v) {
        checkArrayShape(arrayShape);
        Shapes.checkRank(selStart, arrayShape, "selection start");
        Shapes.checkRank(selStop, arrayShape, "selection stop");
        int rank = arrayShape.length;
        for (int i = 0; i < rank; i++) {
            if (selStart[i] < 0 || selStart[i] > selStop[i] || selStop[i] > arrayShape[i]) {
                throw new IllegalArgumentException("selection " + Shapes.format(selStart) + " to "
                        + Shapes.format(selStop) + " is not within array shape " + Shapes.format(arrayShape)
                        + " (dimension " + i + ")");
            }
        }
        for (int i = 0; i < rank; i++) {
            if (selStart[i] == selStop[i]) {
                return;
            }
        }
        long[] first = new long[rank];
        long[] last = new long[rank];
        for (int i = 0; i < rank; i++) {
            first[i] = selStart[i] / chunkShape[i];
            last[i] = (selStop[i] - 1) / chunkShape[i];
        }
        long[] idx = first.clone();
        while (true) {
            long[] localStart = new long[rank];
            long[] localStop = new long[rank];
            long[] outStart = new long[rank];
            for (int i = 0; i < rank; i++) {
                long origin = idx[i] * chunkShape[i];
                long lo = Math.max(selStart[i], origin);
                long hi = Math.min(selStop[i], origin + chunkShape[i]);
                localStart[i] = lo - origin;
                localStop[i] = hi - origin;
                outStart[i] = lo - selStart[i];
            }
            v.visit(idx.clone(), localStart, localStop, outStart);
            int d = rank - 1;
            while (d >= 0 && idx[d] == last[d]) {
                idx[d] = first[d];
                d--;
            }
            if (d < 0) {
                return;
            }
            idx[d]++;
        }
    }

    private void checkArrayShape(long[] arrayShape) {
        Shapes.checkRank(arrayShape, chunkShape, "array shape");
        for (long d : arrayShape) {
            if (d < 0) {
                throw new IllegalArgumentException("array shape " + Shapes.format(arrayShape) + " has a negative extent");
            }
        }
    }

    private static long ceilDiv(long a, long b) {
        // a >= 0 and b > 0 here, so this cannot overflow the way (a + b - 1) / b can.
        return a / b + (a % b == 0 ? 0 : 1);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RegularChunkGrid g && Arrays.equals(g.chunkShape, chunkShape);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(chunkShape);
    }

    @Override
    public String toString() {
        return "RegularChunkGrid" + Shapes.format(chunkShape);
    }
}
