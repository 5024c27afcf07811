// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A metadata document over {@code zarrdirect.maxMetadataBytes} fails before it is read (issue #25, item 1). */
class MetadataSizeLimitTest {

    @AfterEach
    void clear() {
        System.clearProperty(ZarrContext.MAX_METADATA_BYTES.name());
    }

    @Test
    void oversizedZarrJsonIsRefusedNamingTheSetting() {
        System.setProperty(ZarrContext.MAX_METADATA_BYTES.name(), "1024");
        try (MemoryStore store = new MemoryStore()) {
            String doc = "{\"zarr_format\":3,\"node_type\":\"group\",\"attributes\":{\"pad\":\"" + "x".repeat(4000) + "\"}}";
            store.set("zarr.json", MemorySegment.ofArray(doc.getBytes(StandardCharsets.UTF_8)));
            StoreException e = assertThrows(StoreException.class, () -> Zarr.openGroup(store, ""));
            String m = e.getMessage();
            assertTrue(m.contains("zarr.json"), m);
            assertTrue(m.contains("limit of 1024"), m);
            assertTrue(m.contains(String.valueOf(doc.length())), m);
            assertTrue(m.contains("zarrdirect.maxMetadataBytes"), m);
        }
    }

    @Test
    void documentWithinTheLimitReads() {
        System.setProperty(ZarrContext.MAX_METADATA_BYTES.name(), "1024");
        try (MemoryStore store = new MemoryStore()) {
            String doc = "{\"zarr_format\":3,\"node_type\":\"group\",\"attributes\":{}}";
            store.set("zarr.json", MemorySegment.ofArray(doc.getBytes(StandardCharsets.UTF_8)));
            assertEquals(doc, Stores.readMetadataText(store, "zarr.json").orElseThrow());
        }
    }

    @Test
    void theDefaultIs64MiB() {
        assertEquals(64L << 20, ZarrContext.MAX_METADATA_BYTES.defaultValue());
    }
}
