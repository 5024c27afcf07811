// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.grid;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegularChunkGridProperties {

    /** One dimension: the array's extent, the chunk's extent and a selected range within the array. */
    record Dim(long extent, long chunk, long start, long stop) {
    }

    record Case(List<Dim> dims) {
        long[] shape() {
            return dims.stream().mapToLong(Dim::extent).toArray();
        }

        long[] chunk() {
            return dims.stream().mapToLong(Dim::chunk).toArray();
        }

        long[] start() {
            return dims.stream().mapToLong(Dim::start).toArray();
        }

        long[] stop() {
            return dims.stream().mapToLong(Dim::stop).toArray();
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Dim> dim = Arbitraries.longs().between(0, 13).flatMap(extent -> Combinators.combine(
                Arbitraries.longs().between(1, 7),
                Arbitraries.longs().between(0, extent),
                Arbitraries.longs().between(0, extent)).as((c, a, b) -> new Dim(extent, c, Math.min(a, b), Math.max(a, b))));
        return Arbitraries.integers().between(0, 4).flatMap(rank -> dim.list().ofSize(rank)).map(Case::new);
    }

    @Property(tries = 400)
    void forEachChunkCoversEverySelectedElementExactlyOnceInCOrder(@ForAll("cases") Case c) {
        RegularChunkGrid grid = new RegularChunkGrid(c.chunk());
        long[] start = c.start();
        long[] stop = c.stop();
        long[] chunk = c.chunk();
        int rank = start.length;
        long[] outShape = new long[rank];
        for (int d = 0; d < rank; d++) {
            outShape[d] = stop[d] - start[d];
        }
        int[] hits = new int[Math.toIntExact(Shapes.product(outShape))];
        long[] gridShape = grid.gridShape(c.shape());
        long[] previous = {-1};
        grid.forEachChunk(c.shape(), start, stop, (idx, s, e, out) -> {
            long linear = Shapes.linearIndex(idx, gridShape);
            assertTrue(linear > previous[0], "chunks out of C order at " + Arrays.toString(idx));
            previous[0] = linear;
            long[] origin = grid.chunkOrigin(idx);
            for (int d = 0; d < rank; d++) {
                assertTrue(0 <= s[d] && s[d] < e[d] && e[d] <= chunk[d], "local box " + Arrays.toString(s)
                        + " to " + Arrays.toString(e) + " leaves chunk " + Arrays.toString(chunk));
                assertEquals(origin[d] + s[d] - start[d], out[d], "output start in dimension " + d);
            }
            long[] local = new long[rank];
            long[] box = new long[rank];
            for (int d = 0; d < rank; d++) {
                box[d] = e[d] - s[d];
            }
            long n = Shapes.product(box);
            for (long k = 0; k < n; k++) {
                long[] offset = Shapes.unravel(k, box);
                long[] outIndex = new long[rank];
                for (int d = 0; d < rank; d++) {
                    local[d] = s[d] + offset[d];
                    long arrayCoord = origin[d] + local[d];
                    assertTrue(arrayCoord >= start[d] && arrayCoord < stop[d], "element outside the selection");
                    outIndex[d] = out[d] + offset[d];
                    assertEquals(arrayCoord - start[d], outIndex[d]);
                }
                hits[Math.toIntExact(Shapes.linearIndex(outIndex, outShape))]++;
            }
        });
        for (int i = 0; i < hits.length; i++) {
            assertEquals(1, hits[i], "output element " + Arrays.toString(Shapes.unravel(i, outShape)) + " of " + c);
        }
    }

    @Property(tries = 400)
    void gridShapeAndChunkOriginAgreeOnWhichChunkHoldsEachElement(@ForAll("cases") Case c) {
        RegularChunkGrid grid = new RegularChunkGrid(c.chunk());
        long[] shape = c.shape();
        long[] chunk = c.chunk();
        long[] gridShape = grid.gridShape(shape);
        long chunks = grid.chunkCount(shape);
        assertEquals(Shapes.product(gridShape), chunks);
        boolean[] used = new boolean[Math.toIntExact(chunks)];
        long elements = Shapes.product(shape);
        for (long k = 0; k < elements; k++) {
            long[] element = Shapes.unravel(k, shape);
            long[] idx = new long[shape.length];
            for (int d = 0; d < shape.length; d++) {
                idx[d] = element[d] / chunk[d];
            }
            long[] origin = grid.chunkOrigin(idx);
            for (int d = 0; d < shape.length; d++) {
                assertTrue(origin[d] <= element[d] && element[d] < origin[d] + chunk[d]);
            }
            used[Math.toIntExact(Shapes.linearIndex(idx, gridShape))] = true;
        }
        for (int i = 0; i < used.length; i++) {
            assertTrue(used[i], "chunk " + Arrays.toString(Shapes.unravel(i, gridShape)) + " holds no element of " + c);
        }
    }

    @Property(tries = 200)
    void selectingTheWholeArrayVisitsEveryChunkOfTheGrid(@ForAll("cases") Case c) {
        RegularChunkGrid grid = new RegularChunkGrid(c.chunk());
        long[] shape = c.shape();
        long[] count = {0};
        grid.forEachChunk(shape, new long[shape.length], shape, (idx, s, e, out) -> {
            assertArrayEquals(grid.chunkOrigin(idx), out);
            count[0]++;
        });
        assertEquals(grid.chunkCount(shape), count[0]);
    }
}
