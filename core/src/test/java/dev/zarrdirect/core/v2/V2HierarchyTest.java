// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.v2;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.NoSuchKeyException;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.v2.ConsolidatedMetadata;
import dev.zarrdirect.core.metadata.v2.V2ArrayMetadata;
import dev.zarrdirect.core.metadata.v2.V2DataType;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;

import static dev.zarrdirect.core.v2.V2Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/** v2 groups, attributes, consolidated metadata and the errors of Zarr.open. */
class V2HierarchyTest {

    static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 2);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    /** A consolidated .zmetadata as zarr-python 2's consolidate_metadata writes it. */
    static final String ZMETADATA = """
            {
                "metadata": {
                    ".zattrs": {
                        "title": "era5 excerpt"
                    },
                    ".zgroup": {
                        "zarr_format": 2
                    },
                    "surface/.zgroup": {
                        "zarr_format": 2
                    },
                    "surface/t2m/.zarray": {
                        "chunks": [
                            2,
                            3
                        ],
                        "compressor": null,
                        "dtype": "<f4",
                        "fill_value": "NaN",
                        "filters": null,
                        "order": "C",
                        "shape": [
                            2,
                            5
                        ],
                        "zarr_format": 2
                    },
                    "surface/t2m/.zattrs": {
                        "units": "K"
                    },
                    "time/.zarray": {
                        "chunks": [
                            4
                        ],
                        "compressor": null,
                        "dtype": "<i8",
                        "fill_value": null,
                        "filters": null,
                        "order": "C",
                        "shape": [
                            4
                        ],
                        "zarr_format": 2
                    }
                },
                "zarr_consolidated_format": 1
            }""";

    @Test
    void consolidatedMetadataAloneOpensTheWholeHierarchy() {
        Store store = new MemoryStore();
        put(store, ".zmetadata", ZMETADATA);
        byte[] chunk = new byte[24];
        java.lang.foreign.MemorySegment.ofArray(chunk).setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 4, 288.5f);
        put(store, "surface/t2m/0.1", chunk); // no per-node documents in the store at all

        ZarrGroup root = Zarr.openGroup(ctx, store, "");
        assertEquals(Map.of("title", "era5 excerpt"), root.attributes());
        assertEquals(List.of("surface", "time"), root.members());
        ZarrGroup surface = root.openGroup("surface");
        assertEquals(List.of("t2m"), surface.members());
        ZarrArray t2m = surface.openArray("t2m");
        assertEquals(Map.of("units", "K"), t2m.attributes());
        assertEquals(2, t2m.zarrFormat());
        try (Tensor t = t2m.read()) {
            // Chunk [0,1] covers columns 3..5 (5 is past the edge); element 4 of it is [1, 4].
            assertEquals(288.5f, t.segment().getAtIndex(ValueLayout.JAVA_FLOAT, 9));
            assertEquals(0f, t.segment().getAtIndex(ValueLayout.JAVA_FLOAT, 3));
            assertTrue(Float.isNaN(t.segment().getAtIndex(ValueLayout.JAVA_FLOAT, 0)), "chunk [0,0] was never written");
        }
        assertTrue(Zarr.openArray(ctx, store, "time").v2Metadata().orElseThrow().hasNoFillValue());
    }

    @Test
    void consolidatedMetadataWinsOverPerNodeDocuments() {
        Store store = new MemoryStore();
        put(store, ".zmetadata", ZMETADATA);
        put(store, "surface/t2m/.zarray", "{\"zarr_format\": 2}"); // stale and malformed: never read
        put(store, "surface/t2m/.zattrs", "{\"units\": \"degC\"}");
        assertEquals(Map.of("units", "K"), Zarr.openArray(ctx, store, "surface/t2m").attributes());
    }

    @Test
    void nodesMissingFromConsolidatedMetadataAreReadFromTheirOwnDocuments() {
        Store store = new MemoryStore();
        put(store, ".zmetadata", ZMETADATA);
        Zarr.createGroupV2(ctx, store, "extra", Map.of("added", true));
        assertEquals(Map.of("added", true), Zarr.openGroup(ctx, store, "extra").attributes());
    }

    @Test
    void consolidateWritesEveryDocumentOfTheHierarchyAndOpeningUsesIt() {
        Store store = new MemoryStore();
        ZarrGroup root = Zarr.createGroupV2(ctx, store, "", Map.of("title", "t"));
        Zarr.createGroupV2(ctx, store, "a", Map.of());
        V2ArrayMetadata md = V2ArrayMetadata.builder(new long[]{3}, new long[]{2}, V2DataType.big(DataType.INT32))
                .attributes(Map.of("long_name", "counts")).dimensionSeparator('/').build();
        ZarrArray x = Zarr.createArrayV2(ctx, store, "a/x", md);
        try (Tensor t = Tensor.allocateHost(DataType.INT32, 3)) {
            t.segment().setAtIndex(ValueLayout.JAVA_INT, 2, 42);
            x.write(t);
        }
        ConsolidatedMetadata c = Zarr.consolidate(store);
        assertEquals(List.of(".zattrs", ".zgroup", "a/.zgroup", "a/x/.zarray", "a/x/.zattrs"),
                c.metadata().keySet().stream().sorted().toList(), "chunk keys are never consolidated");
        Map<String, Object> doc = Json.object(Json.parse(text(store, ".zmetadata")), "test");
        assertEquals(1L, doc.get("zarr_consolidated_format"));
        assertEquals(md.document(), Json.object(doc.get("metadata"), "m").get("a/x/.zarray"));

        store.delete("a/x/.zarray");
        store.delete("a/x/.zattrs");
        assertEquals(List.of("a"), root.members());
        ZarrArray back = Zarr.openArray(ctx, store, "a/x");
        assertEquals(Map.of("long_name", "counts"), back.attributes());
        try (Tensor t = back.read()) {
            assertEquals(42, t.segment().getAtIndex(ValueLayout.JAVA_INT, 2));
        }
    }

    @Test
    void groupsWithoutConsolidationListTheirV2AndV3Children() {
        Store store = new MemoryStore();
        Zarr.createGroupV2(ctx, store, "", Map.of());
        Zarr.createGroupV2(ctx, store, "g", Map.of("k", 1L));
        Zarr.createArrayV2(ctx, store, "arr", V2ArrayMetadata.builder(new long[]{2}, new long[]{2},
                V2DataType.little(DataType.UINT8)).build());
        Zarr.createGroup(ctx, store, "v3", Map.of());
        put(store, "not-a-node/readme.txt", "hello");
        ZarrGroup root = Zarr.openGroup(ctx, store, "");
        assertEquals(List.of("arr", "g", "v3"), root.members());
        assertEquals("{\n  \"zarr_format\": 2\n}\n", text(store, "g/.zgroup"));
        assertEquals(Map.of("k", 1L), root.openGroup("g").attributes());
        assertFalse(store.exists(".zattrs"), "empty attributes write no .zattrs");
    }

    @Test
    void openingAPathWithoutANodeNamesEveryKeyLookedFor() {
        Store store = new MemoryStore();
        NoSuchKeyException e = assertThrows(NoSuchKeyException.class, () -> Zarr.open(ctx, store, "a/b"));
        assertEquals("a/b/zarr.json", e.key());
        for (String k : List.of("\"a/b/zarr.json\"", "\"a/b/.zarray\"", "\"a/b/.zgroup\"")) {
            assertTrue(e.getMessage().contains(k), "message lacks " + k + ": " + e.getMessage());
        }
        put(store, ".zmetadata", ZMETADATA);
        e = assertThrows(NoSuchKeyException.class, () -> Zarr.open(ctx, store, "a/b"));
        assertTrue(e.getMessage().contains(".zmetadata"), e.getMessage());
    }

    @Test
    void aMalformedZarrayNamesItsKeyWhenOpened() {
        Store store = new MemoryStore();
        put(store, "t/.zarray", """
                {"chunks": [2], "compressor": null, "dtype": "<f4", "fill_value": 0.0, "filters": null,
                 "order": "C", "shape": "ten", "zarr_format": 2}""");
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> Zarr.open(ctx, store, "t"));
        assertTrue(e.getMessage().contains("\"shape\" in \"t/.zarray\""), e.getMessage());
        assertTrue(e.getMessage().contains("ten"), e.getMessage());

        put(store, "u/.zarray", "{\"chunks\": [2,");
        e = assertThrows(InvalidMetadataException.class, () -> Zarr.open(ctx, store, "u"));
        assertTrue(e.getMessage().contains("u/.zarray"), e.getMessage());

        put(store, "w/.zgroup", "{\"zarr_format\": 2}");
        put(store, "w/.zattrs", "[1, 2]");
        e = assertThrows(InvalidMetadataException.class, () -> Zarr.open(ctx, store, "w"));
        assertTrue(e.getMessage().contains("w/.zattrs"), e.getMessage());

        put(store, "v/.zgroup", "{\"zarr_format\": 2}");
        put(store, "v/.zarray", "{\"zarr_format\": 2}");
        e = assertThrows(InvalidMetadataException.class, () -> Zarr.open(ctx, store, "v"));
        assertTrue(e.getMessage().contains("v/.zarray") && e.getMessage().contains("v/.zgroup"), e.getMessage());
    }

    @Test
    void aMalformedZmetadataNamesItsKeyAndField() {
        Store store = new MemoryStore();
        put(store, ".zmetadata", "{\"zarr_consolidated_format\": 2, \"metadata\": {}}");
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> Zarr.open(ctx, store, "x"));
        assertTrue(e.getMessage().contains("\"zarr_consolidated_format\" in \".zmetadata\""), e.getMessage());
    }

    @Test
    void anArrayWhoseCodecCannotBeResolvedFailsBeforeAnythingIsWritten() {
        Store store = new MemoryStore();
        // blosc with snappy: a valid numcodecs configuration that no blosc implementation here offers
        // (MissingCodecException while blosc is missing, InvalidMetadataException from blosc after).
        V2ArrayMetadata md = V2ArrayMetadata.builder(new long[]{4}, new long[]{2}, V2DataType.little(DataType.INT32))
                .compressor(Map.of("id", "blosc", "cname", "snappy", "clevel", 5, "shuffle", 1, "blocksize", 0)).build();
        dev.zarrdirect.api.ZarrDirectException e = assertThrows(dev.zarrdirect.api.ZarrDirectException.class,
                () -> Zarr.createArrayV2(ctx, store, "b", md));
        assertTrue(e.getMessage().contains("blosc"), e.getMessage());
        assertFalse(store.exists("b/.zarray"));
    }
}
