// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.grid;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegularChunkGridTest {

    private static final String W = Json.where("chunk_grid", "t2m/zarr.json");

    @Test
    void gridShapeRoundsUpAndIsZeroForEmptyDimensions() {
        RegularChunkGrid g = new RegularChunkGrid(new long[] {1, 1, 256, 256});
        assertArrayEquals(new long[] {32, 16, 3, 6}, g.gridShape(new long[] {32, 16, 721, 1440}));
        assertArrayEquals(new long[] {0, 16, 3, 6}, g.gridShape(new long[] {0, 16, 721, 1440}));
        assertEquals(0, g.chunkCount(new long[] {0, 16, 721, 1440}));
        assertEquals(32 * 16 * 3 * 6, g.chunkCount(new long[] {32, 16, 721, 1440}));
        assertArrayEquals(new long[] {1, 0, 512, 1280}, g.chunkOrigin(new long[] {1, 0, 2, 5}));
    }

    @Test
    void gridShapeDoesNotOverflowNearLongMax() {
        RegularChunkGrid g = new RegularChunkGrid(new long[] {Long.MAX_VALUE - 1});
        assertArrayEquals(new long[] {2}, g.gridShape(new long[] {Long.MAX_VALUE}));
    }

    @Test
    void theRecordCopiesItsChunkShapeAndComparesByContent() {
        long[] cs = {2, 3};
        RegularChunkGrid g = new RegularChunkGrid(cs);
        cs[0] = 99;
        g.chunkShape()[1] = 99;
        assertArrayEquals(new long[] {2, 3}, g.chunkShape());
        assertEquals(new RegularChunkGrid(new long[] {2, 3}), g);
        assertEquals(new RegularChunkGrid(new long[] {2, 3}).hashCode(), g.hashCode());
        assertNotEquals(new RegularChunkGrid(new long[] {3, 2}), g);
        assertThrows(IllegalArgumentException.class, () -> new RegularChunkGrid(new long[] {2, 0}));
    }

    @Test
    void parseReadsTheSpecFormAndToJsonWritesItBack() {
        Object json = Json.parse("{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [1, 721, 1440]}}");
        RegularChunkGrid g = RegularChunkGrid.parse(json, 3, W);
        assertArrayEquals(new long[] {1, 721, 1440}, g.chunkShape());
        assertEquals(json, g.toJson());
    }

    @Test
    void parseRejectsRankMismatchNamingFieldAndKey() {
        Object json = Json.parse("{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [1, 2]}}");
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> RegularChunkGrid.parse(json, 3, W));
        assertEquals("\"chunk_grid.configuration.chunk_shape\" in \"t2m/zarr.json\" is [1, 2] of rank 2,"
                + " but the array's shape has rank 3", e.getMessage());
    }

    @Test
    void parseRejectsZeroAndNegativeChunkExtents() {
        for (String shape : List.of("[4, 0]", "[4, -2]")) {
            Object json = Json.parse("{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": " + shape + "}}");
            InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> RegularChunkGrid.parse(json, 2, W));
            assertTrue(e.getMessage().contains("chunk_grid.configuration.chunk_shape"), e.getMessage());
            assertTrue(e.getMessage().contains("t2m/zarr.json"), e.getMessage());
            assertTrue(e.getMessage().contains("must be positive"), e.getMessage());
        }
    }

    @Test
    void parseRejectsOtherGridsAndMalformedConfigurations() {
        List<String> bad = List.of(
                "{\"name\": \"rectilinear\", \"configuration\": {\"chunk_shape\": [1]}}",
                "{\"configuration\": {\"chunk_shape\": [1]}}",
                "{\"name\": \"regular\"}",
                "{\"name\": \"regular\", \"configuration\": {}}",
                "{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [1], \"x\": 1}}",
                "{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [1.5]}}",
                "{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [1]}, \"extra\": 1}",
                "\"regular\"");
        for (String b : bad) {
            InvalidMetadataException e = assertThrows(InvalidMetadataException.class,
                    () -> RegularChunkGrid.parse(Json.parse(b), 1, W), b);
            assertTrue(e.getMessage().contains("t2m/zarr.json"), e.getMessage());
            assertTrue(e.getMessage().contains("chunk_grid"), e.getMessage());
        }
    }

    @Test
    void forEachChunkSplitsASelectionAcrossChunksInCOrder() {
        RegularChunkGrid g = new RegularChunkGrid(new long[] {4, 4});
        List<String> seen = new ArrayList<>();
        g.forEachChunk(new long[] {10, 10}, new long[] {3, 2}, new long[] {9, 5},
                (idx, s, e, out) -> seen.add(Arrays.toString(idx) + Arrays.toString(s) + Arrays.toString(e)
                        + Arrays.toString(out)));
        assertEquals(List.of(
                "[0, 0][3, 2][4, 4][0, 0]",
                "[0, 1][3, 0][4, 1][0, 2]",
                "[1, 0][0, 2][4, 4][1, 0]",
                "[1, 1][0, 0][4, 1][1, 2]",
                "[2, 0][0, 2][1, 4][5, 0]",
                "[2, 1][0, 0][1, 1][5, 2]"), seen);
    }

    @Test
    void forEachChunkVisitsRankZeroOnceAndEmptySelectionsNever() {
        List<long[]> seen = new ArrayList<>();
        new RegularChunkGrid(new long[0]).forEachChunk(new long[0], new long[0], new long[0], (i, s, e, o) -> seen.add(i));
        assertEquals(1, seen.size());
        assertEquals(0, seen.get(0).length);
        seen.clear();
        RegularChunkGrid g = new RegularChunkGrid(new long[] {2, 2});
        g.forEachChunk(new long[] {4, 0}, new long[] {0, 0}, new long[] {4, 0}, (i, s, e, o) -> seen.add(i));
        g.forEachChunk(new long[] {4, 4}, new long[] {1, 1}, new long[] {1, 4}, (i, s, e, o) -> seen.add(i));
        assertEquals(0, seen.size());
    }

    @Test
    void forEachChunkHandsOutFreshArrays() {
        RegularChunkGrid g = new RegularChunkGrid(new long[] {1});
        List<long[]> kept = new ArrayList<>();
        g.forEachChunk(new long[] {3}, new long[] {0}, new long[] {3}, (i, s, e, o) -> kept.add(i));
        assertArrayEquals(new long[] {0}, kept.get(0));
        assertArrayEquals(new long[] {1}, kept.get(1));
        assertArrayEquals(new long[] {2}, kept.get(2));
    }

    @Test
    void forEachChunkRejectsSelectionsOutsideTheArray() {
        RegularChunkGrid g = new RegularChunkGrid(new long[] {2});
        assertThrows(IllegalArgumentException.class,
                () -> g.forEachChunk(new long[] {4}, new long[] {0}, new long[] {5}, (i, s, e, o) -> { }));
        assertThrows(IllegalArgumentException.class,
                () -> g.forEachChunk(new long[] {4}, new long[] {3}, new long[] {2}, (i, s, e, o) -> { }));
        assertThrows(IllegalArgumentException.class,
                () -> g.forEachChunk(new long[] {4}, new long[] {-1}, new long[] {2}, (i, s, e, o) -> { }));
        assertThrows(IllegalArgumentException.class,
                () -> g.forEachChunk(new long[] {4, 4}, new long[] {0, 0}, new long[] {1, 1}, (i, s, e, o) -> { }));
    }
}
