// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CodecMetadataTest {

    private static final String W = Json.where("codecs[1]", "t2m/zarr.json");

    @Test
    void aBareNameIsACodecWithoutConfiguration() {
        CodecMetadata c = CodecMetadata.parse("gzip", W);
        assertEquals(CodecMetadata.of("gzip", Map.of()), c);
        assertTrue(c.mustUnderstand());
        assertEquals(Map.of("name", "gzip"), c.toJson());
    }

    @Test
    void configurationAndMustUnderstandAreReadAndWrittenBack() {
        Object json = Json.parse("{\"name\": \"zstd\", \"configuration\": {\"level\": 5, \"checksum\": false},"
                + " \"must_understand\": false}");
        CodecMetadata c = CodecMetadata.parse(json, W);
        assertEquals("zstd", c.name());
        assertEquals(5L, c.configuration().get("level"));
        assertFalse(c.mustUnderstand());
        assertEquals(json, c.toJson());
        assertEquals(Map.of("name", "bytes"), CodecMetadata.parse(Json.parse("{\"name\": \"bytes\", \"configuration\": {}}"), W)
                .toJson());
    }

    @Test
    void configurationIsADeepCopyThatCannotChange() {
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("order", new java.util.ArrayList<>(List.of(1, 0)));
        CodecMetadata c = CodecMetadata.of("transpose", cfg);
        cfg.put("order", List.of());
        assertEquals(List.of(1L, 0L), c.configuration().get("order"));
        assertThrows(UnsupportedOperationException.class, () -> c.configuration().put("x", 1));
        assertEquals(CodecMetadata.parse(Json.parse("{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}}"), W), c);
    }

    @Test
    void malformedCodecEntriesNameTheirPosition() {
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class,
                () -> CodecMetadata.parse(Json.parse("{\"configuration\": {}}"), W));
        assertEquals("\"codecs[1]\" in \"t2m/zarr.json\" has no \"name\"", e.getMessage());
        e = assertThrows(InvalidMetadataException.class,
                () -> CodecMetadata.parse(Json.parse("{\"name\": \"zstd\", \"configuration\": 5}"), W));
        assertEquals("\"codecs[1].configuration\" in \"t2m/zarr.json\" must be an object, got the number 5", e.getMessage());
        e = assertThrows(InvalidMetadataException.class,
                () -> CodecMetadata.parse(Json.parse("{\"name\": \"zstd\", \"must_understand\": \"no\"}"), W));
        assertTrue(e.getMessage().startsWith("\"codecs[1].must_understand\""), e.getMessage());
        e = assertThrows(InvalidMetadataException.class,
                () -> CodecMetadata.parse(Json.parse("{\"name\": \"zstd\", \"level\": 3}"), W));
        assertTrue(e.getMessage().contains("unknown member \"level\""), e.getMessage());
        assertThrows(InvalidMetadataException.class, () -> CodecMetadata.parse(3L, W));
        assertThrows(InvalidMetadataException.class, () -> CodecMetadata.parse("", W));
    }
}
