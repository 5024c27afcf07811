// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.FilterStore;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.metadata.InlineConsolidatedMetadata;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InlineConsolidatedMetadataTest {

    static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 2);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    /** Records every key read and refuses to list, as a store over HTTP without listing would. */
    static final class NoListingStore extends FilterStore {
        final List<String> reads = new ArrayList<>();

        NoListingStore(Store in) {
            super(in);
        }

        @Override
        public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
            synchronized (reads) {
                reads.add(key);
            }
            return super.get(key, range, allocator);
        }

        @Override
        public long size(String key) {
            synchronized (reads) {
                reads.add("size " + key);
            }
            return super.size(key);
        }

        @Override
        public List<String> list(String prefix) {
            throw new UnsupportedOperationException("this store cannot list (asked for \"" + prefix + "\")");
        }

        @Override
        public List<String> listDir(String prefix) {
            throw new UnsupportedOperationException("this store cannot list (asked for \"" + prefix + "\")");
        }
    }

    private static String array(String dtype, String shape, String chunks) {
        return """
                {"zarr_format": 3, "node_type": "array", "shape": %s, "data_type": "%s",
                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": %s}},
                 "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                 "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                 "attributes": {"units": "K"}, "storage_transformers": []}""".formatted(shape, dtype, chunks);
    }

    /**
     * The root zarr.json zarr-python 3 writes after {@code zarr.consolidate_metadata}: flat relative
     * keys, child groups with {@code "consolidated_metadata": null}. Written by hand (zarr-python 3 is
     * not installed here), following its format; no child zarr.json exists in the store, so anything
     * that reads one fails.
     */
    private static void handWrittenFixture(Store store) {
        String root = """
                {"zarr_format": 3, "node_type": "group", "attributes": {"title": "fixture"},
                 "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {
                   "a": %s,
                   "g": {"zarr_format": 3, "node_type": "group", "attributes": {"k": 1}, "consolidated_metadata": null},
                   "g/b": %s}}}""".formatted(array("float32", "[4]", "[2]"), array("int32", "[2, 2]", "[2, 2]"));
        store.set("zarr.json", MemorySegment.ofArray(root.getBytes(StandardCharsets.UTF_8)));
        float[] chunk = {1.5f, 2.5f};
        MemorySegment c = MemorySegment.ofArray(new byte[8]);
        for (int i = 0; i < 2; i++) {
            c.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, chunk[i]);
        }
        store.set("a/c/1", c);
    }

    @Test
    void aGroupWithInlineConsolidatedMetadataListsAndOpensMembersWithoutListingOrReadingTheirDocuments() {
        try (MemoryStore mem = new MemoryStore()) {
            handWrittenFixture(mem);
            NoListingStore store = new NoListingStore(mem);
            ZarrGroup root = Zarr.openGroup(ctx, store, "");
            assertEquals("fixture", root.attributes().get("title"));
            assertEquals(List.of("a", "g"), root.members());
            ZarrArray a = root.openArray("a");
            assertEquals(DataType.FLOAT32, a.dataType());
            assertEquals("K", a.attributes().get("units"));
            ZarrGroup g = root.openGroup("g");
            assertEquals(1L, g.attributes().get("k"));
            assertEquals(List.of("b"), g.members());
            ZarrArray b = g.openArray("b");
            assertEquals("g/b", b.path());
            assertArrayEquals(new long[]{2, 2}, b.shape());
            assertEquals("g/b", root.openArray("g/b").path(), "a deeper path opens from the root's entries too");
            assertEquals(List.of("zarr.json"), store.reads, "only the root document was read");
            try (Tensor t = a.read()) {
                assertArrayEquals(new float[]{0, 0, 1.5f, 2.5f}, t.toFloatArray());
            }
        }
    }

    @Test
    void aChildGroupsNestedConsolidatedMetadataIsReadAsItsDescendants() {
        try (MemoryStore mem = new MemoryStore()) {
            String root = """
                    {"zarr_format": 3, "node_type": "group", "attributes": {},
                     "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {
                       "g": {"zarr_format": 3, "node_type": "group", "attributes": {},
                             "consolidated_metadata": {"kind": "inline", "must_understand": false,
                                                       "metadata": {"b": %s}}}}}}""".formatted(array("int32", "[2]", "[2]"));
            mem.set("zarr.json", MemorySegment.ofArray(root.getBytes(StandardCharsets.UTF_8)));
            NoListingStore store = new NoListingStore(mem);
            ZarrGroup r = Zarr.openGroup(ctx, store, "");
            assertEquals(List.of("g", "g/b"), r.consolidatedMetadata().orElseThrow().paths());
            assertEquals(List.of("b"), r.openGroup("g").members());
            assertEquals(DataType.INT32, r.openArray("g/b").dataType());
        }
    }

    @Test
    void aMemberMissingFromTheSnapshotIsStillOpenedFromItsOwnDocument() {
        try (MemoryStore store = new MemoryStore()) {
            handWrittenFixture(store);
            Zarr.createGroup(ctx, store, "later", Map.of("added", true));
            ZarrGroup root = Zarr.openGroup(ctx, store, "");
            assertEquals(List.of("a", "g"), root.members(), "the snapshot answers members()");
            assertEquals(true, root.openGroup("later").attributes().get("added"));
        }
    }

    @Test
    void openingTheWrongKindFromConsolidatedMetadataFailsClearly() {
        try (MemoryStore store = new MemoryStore()) {
            handWrittenFixture(store);
            ZarrGroup root = Zarr.openGroup(ctx, store, "");
            InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> root.openArray("g"));
            assertTrue(e.getMessage().contains("describes a group, not an array"), e.getMessage());
            assertThrows(InvalidMetadataException.class, () -> root.openGroup("a"));
        }
    }

    @Test
    void consolidateV3WritesWhatZarrPythonWritesAndAReopenedGroupUsesIt() {
        try (MemoryStore mem = new MemoryStore()) {
            Zarr.createGroup(ctx, mem, "", Map.of("title", "made here"));
            ArrayMetadata md = ArrayMetadata.create(new long[]{3}, DataType.FLOAT64, new long[]{3},
                    FillValue.zero(DataType.FLOAT64), List.of(ArrayFixtures.bytes("little")));
            Zarr.createArray(ctx, mem, "x", md);
            Zarr.createGroup(ctx, mem, "sub", Map.of());
            Zarr.createArray(ctx, mem, "sub/y", md);

            InlineConsolidatedMetadata c = Zarr.consolidateV3(mem, "");
            assertEquals(List.of("sub", "sub/y", "x"), c.paths());

            String json = Zarr.readText(mem, "zarr.json").orElseThrow();
            assertTrue(json.contains("\"consolidated_metadata\""), json);
            assertTrue(json.contains("\"kind\":\"inline\"") || json.contains("\"kind\": \"inline\""), json);
            assertTrue(json.contains("\"must_understand\":false") || json.contains("\"must_understand\": false"), json);
            assertTrue(json.contains("\"sub/y\""), "keys are flat relative paths: " + json);

            NoListingStore store = new NoListingStore(mem);
            ZarrGroup root = Zarr.openGroup(ctx, store, "");
            assertEquals("made here", root.attributes().get("title"));
            assertEquals(List.of("sub", "x"), root.members());
            assertEquals(List.of("y"), root.openGroup("sub").members());
            assertArrayEquals(new long[]{3}, root.openGroup("sub").openArray("y").shape());
            assertEquals(List.of("zarr.json"), store.reads);

            // consolidating again replaces the field, it does not nest the old one
            Zarr.consolidateV3(mem, "");
            assertEquals(json, Zarr.readText(mem, "zarr.json").orElseThrow());
        }
    }

    @Test
    void consolidateV3OfASubgroupCoversOnlyItsDescendantsAndRefusesArrays() {
        try (MemoryStore mem = new MemoryStore()) {
            Zarr.createGroup(ctx, mem, "", Map.of());
            Zarr.createGroup(ctx, mem, "sub", Map.of());
            ArrayMetadata md = ArrayMetadata.create(new long[]{3}, DataType.INT8, new long[]{3},
                    FillValue.zero(DataType.INT8), List.of(ArrayFixtures.bytes("little")));
            Zarr.createArray(ctx, mem, "sub/y", md);
            Zarr.createArray(ctx, mem, "z", md);
            assertEquals(List.of("y"), Zarr.consolidateV3(mem, "sub").paths());
            assertTrue(Zarr.openGroup(ctx, mem, "").consolidatedMetadata().isEmpty());
            InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> Zarr.consolidateV3(mem, "z"));
            assertTrue(e.getMessage().contains("describes an array"), e.getMessage());
        }
    }

    @Test
    void aMalformedConsolidatedEntryIsNamedInTheError() {
        try (MemoryStore store = new MemoryStore()) {
            String root = """
                    {"zarr_format": 3, "node_type": "group",
                     "consolidated_metadata": {"kind": "inline", "must_understand": false,
                       "metadata": {"bad": {"zarr_format": 3, "node_type": "array"}}}}""";
            store.set("zarr.json", MemorySegment.ofArray(root.getBytes(StandardCharsets.UTF_8)));
            ZarrGroup g = Zarr.openGroup(ctx, store, "");
            assertEquals(List.of("bad"), g.members());
            InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> g.open("bad"));
            assertTrue(e.getMessage().contains("consolidated metadata of \"zarr.json\" [\"bad\"]"), e.getMessage());
        }
    }
}
