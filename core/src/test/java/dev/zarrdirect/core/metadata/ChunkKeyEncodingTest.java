// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChunkKeyEncodingTest {

    private static final String W = Json.where("chunk_key_encoding", "t2m/zarr.json");

    @ParameterizedTest(name = "{0} with {1} encodes [0, 3, 1] as {2} and [] as {3}")
    @CsvSource(delimiter = ' ', value = {
            "default / c/0/3/1 c",
            "default . c.0.3.1 c",
            "v2 . 0.3.1 0",
            "v2 / 0/3/1 0"})
    void everyNameAndSeparatorEncodesDecodesAndRoundTrips(String name, char sep, String key, String rankZeroKey) {
        ChunkKeyEncoding e = ChunkKeyEncoding.parse(
                Json.parse("{\"name\": \"" + name + "\", \"configuration\": {\"separator\": \"" + sep + "\"}}"), W);
        assertEquals(name, e.name());
        assertEquals(sep, e.separator());
        assertEquals(key, e.encode(new long[] {0, 3, 1}));
        assertEquals(rankZeroKey, e.encode(new long[0]));
        assertArrayEquals(new long[] {0, 3, 1}, e.decode(key, 3));
        assertArrayEquals(new long[0], e.decode(rankZeroKey, 0));
        assertEquals(e, ChunkKeyEncoding.parse(Json.parse(Json.write(e.toJson())), W));
    }

    @Test
    void separatorDefaultsToSlashForDefaultAndDotForV2() {
        assertEquals(new DefaultChunkKeyEncoding('/'), ChunkKeyEncoding.parse(Json.parse("{\"name\": \"default\"}"), W));
        assertEquals(new V2ChunkKeyEncoding('.'), ChunkKeyEncoding.parse(Json.parse("{\"name\": \"v2\"}"), W));
        assertEquals(new DefaultChunkKeyEncoding('/'),
                ChunkKeyEncoding.parse(Json.parse("{\"name\": \"default\", \"configuration\": {}}"), W));
        assertEquals(new V2ChunkKeyEncoding('.'), ChunkKeyEncoding.parse("v2", W));
    }

    @Test
    void toJsonAlwaysWritesTheSeparator() {
        assertEquals(Json.parse("{\"name\": \"default\", \"configuration\": {\"separator\": \"/\"}}"),
                new DefaultChunkKeyEncoding('/').toJson());
        assertEquals(Json.parse("{\"name\": \"v2\", \"configuration\": {\"separator\": \".\"}}"),
                new V2ChunkKeyEncoding('.').toJson());
    }

    @Test
    void largeIndicesAreWrittenInFull() {
        assertEquals("c/9223372036854775807/0", new DefaultChunkKeyEncoding('/').encode(new long[] {Long.MAX_VALUE, 0}));
        assertThrows(IllegalArgumentException.class, () -> new V2ChunkKeyEncoding('.').encode(new long[] {-1}));
    }

    @Test
    void decodeRefusesKeysThatAreNotChunksOfThatRank() {
        DefaultChunkKeyEncoding d = new DefaultChunkKeyEncoding('/');
        for (String k : List.of("zarr.json", "c/0/1", "c/0/1/2/3", "c/0/x/1", "c/0//1", "c/01/0/0", "c.0.0.0",
                "d/0/0/0", "c/-1/0/0", "c/99999999999999999999/0/0")) {
            assertNull(d.decode(k, 3), k);
        }
        assertNull(new V2ChunkKeyEncoding('.').decode("0/1", 2));
        assertNull(new V2ChunkKeyEncoding('.').decode("c", 0));
        assertNull(d.decode("0", 0));
    }

    @Test
    void unknownNamesSeparatorsAndMembersAreRejectedNamingTheField() {
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class,
                () -> ChunkKeyEncoding.parse(Json.parse("{\"name\": \"v3\"}"), W));
        assertEquals("\"chunk_key_encoding\" in \"t2m/zarr.json\" names the chunk key encoding \"v3\"; supported are"
                + " \"default\" and \"v2\"", e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> ChunkKeyEncoding.parse(
                Json.parse("{\"name\": \"default\", \"configuration\": {\"separator\": \"-\"}}"), W));
        assertEquals("\"chunk_key_encoding.configuration.separator\" in \"t2m/zarr.json\" must be \"/\" or \".\","
                + " got \"-\"", e.getMessage());
        for (String bad : List.of("{}", "{\"name\": 2}", "[]", "{\"name\": \"default\", \"configuration\": []}",
                "{\"name\": \"default\", \"configuration\": {\"sep\": \"/\"}}",
                "{\"name\": \"default\", \"other\": 1}")) {
            e = assertThrows(InvalidMetadataException.class, () -> ChunkKeyEncoding.parse(Json.parse(bad), W), bad);
            assertTrue(e.getMessage().contains("t2m/zarr.json"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new DefaultChunkKeyEncoding('-'));
    }
}
