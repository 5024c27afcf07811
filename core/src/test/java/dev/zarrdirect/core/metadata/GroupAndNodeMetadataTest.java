// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.JsonException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GroupAndNodeMetadataTest {

    private static final String GROUP = """
            {
              "zarr_format": 3,
              "node_type": "group",
              "attributes": {
                "title": "ERA5 subset",
                "spatial": {
                  "resolution": 0.25,
                  "crs": "EPSG:4326"
                },
                "years": [1979, 2023]
              }
            }
            """;

    @Test
    void aGroupWritesBackByteForByte() {
        GroupMetadata g = GroupMetadata.parse(GROUP, "era5/zarr.json");
        assertEquals("ERA5 subset", g.attributes().get("title"));
        assertEquals(Map.of("resolution", 0.25, "crs", "EPSG:4326"), g.attributes().get("spatial"));
        assertEquals(GROUP, g.toJson());
    }

    @Test
    void anEmptyGroupHasEmptyAttributesAndReadsBack() {
        GroupMetadata g = GroupMetadata.empty();
        assertEquals(Map.of(), g.attributes());
        assertEquals(g, GroupMetadata.parse(g.toJson(), "zarr.json"));
        assertEquals(g, GroupMetadata.parse("{\"zarr_format\": 3, \"node_type\": \"group\"}", "zarr.json"));
        assertEquals(Map.of("a", 1L), g.withAttributes(Map.of("a", 1)).attributes());
    }

    @Test
    void zarrPythonsNullConsolidatedMetadataIsTolerated() {
        String doc = "{\"attributes\": {}, \"zarr_format\": 3, \"consolidated_metadata\": null, \"node_type\": \"group\"}";
        GroupMetadata g = GroupMetadata.parse(doc, "zarr.json");
        assertTrue(g.extraFields().containsKey("consolidated_metadata"));
        assertEquals(g, GroupMetadata.parse(g.toJson(), "zarr.json"));
    }

    @Test
    void groupsFollowTheMustUnderstandRule() {
        GroupMetadata g = GroupMetadata.parse("{\"zarr_format\": 3, \"node_type\": \"group\","
                + " \"consolidated_metadata\": {\"kind\": \"inline\", \"must_understand\": false, \"metadata\": {}}}", "g/zarr.json");
        assertEquals(List.of("consolidated_metadata"), List.copyOf(g.extraFields().keySet()));
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> GroupMetadata.parse(
                "{\"zarr_format\": 3, \"node_type\": \"group\", \"shape\": [1]}", "g/zarr.json"));
        assertEquals("group metadata \"g/zarr.json\" has the extension field \"shape\" that this reader does not"
                + " understand (its must_understand is not false)", e.getMessage());
    }

    @Test
    void malformedGroupsNameKeyAndField() {
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> GroupMetadata.parse(
                "{\"zarr_format\": 3, \"node_type\": \"group\", \"attributes\": []}", "g/zarr.json"));
        assertEquals("\"attributes\" in \"g/zarr.json\" must be an object, got an array of 0 elements", e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> GroupMetadata.parse(
                "{\"zarr_format\": 3, \"node_type\": \"array\"}", "g/zarr.json"));
        assertTrue(e.getMessage().startsWith("\"node_type\" in \"g/zarr.json\" is \"array\""), e.getMessage());
    }

    @Test
    void parseNodeDispatchesOnNodeType() {
        assertInstanceOf(GroupMetadata.class, Metadata.parseNode(GROUP, "era5/zarr.json"));
        String array = "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [], \"data_type\": \"bool\","
                + " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": []}},"
                + " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": false, \"codecs\": [\"bytes\"]}";
        assertInstanceOf(ArrayMetadata.class, Metadata.parseNode(array, "flag/zarr.json"));
    }

    @Test
    void parseNodeExplainsV2DocumentsAndGarbage() {
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class,
                () -> Metadata.parseNode("{\"zarr_format\": 2}", "g/.zgroup"));
        assertEquals("metadata \"g/.zgroup\" is Zarr v2 metadata, which this v3 parser does not read; open the node with Zarr.open, which reads both versions", e.getMessage());
        JsonException je = assertThrows(JsonException.class, () -> Metadata.parseNode("\u0000\u0001garbage", "x/zarr.json"));
        assertTrue(je.getMessage().startsWith("metadata \"x/zarr.json\" is not valid JSON at line 1"), je.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> Metadata.parseNode("\"hello\"", "x/zarr.json"));
        assertTrue(e.getMessage().contains("x/zarr.json"), e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> Metadata.parseNode("{\"node_type\": \"array\"}", "x/zarr.json"));
        assertTrue(e.getMessage().contains("has no \"zarr_format\""), e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> Metadata.parseNode("{\"zarr_format\": 3}", "x/zarr.json"));
        assertTrue(e.getMessage().contains("has no \"node_type\""), e.getMessage());
        e = assertThrows(InvalidMetadataException.class,
                () -> Metadata.parseNode("{\"zarr_format\": 3, \"node_type\": \"link\"}", "x/zarr.json"));
        assertEquals("\"node_type\" in \"x/zarr.json\" is \"link\"; it must be \"array\" or \"group\"", e.getMessage());
        e = assertThrows(InvalidMetadataException.class,
                () -> Metadata.parseNode("{\"zarr_format\": 4, \"node_type\": \"array\"}", "x/zarr.json"));
        assertEquals("\"zarr_format\" in \"x/zarr.json\" must be 3, got the number 4", e.getMessage());
    }
}
