// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.NoSuchKeyException;
import dev.zarrdirect.api.NoSuchNodeException;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MissingNodeTest {

    @Test
    void openingAPathWithoutANodeThrowsThePublicNoSuchNodeExceptionNamingEveryKeyTried() {
        try (MemoryStore store = new MemoryStore()) {
            NoSuchNodeException e = assertThrows(NoSuchNodeException.class, () -> Zarr.open(store, "a/b"));
            assertEquals("a/b", e.path());
            assertEquals(List.of("a/b/zarr.json", "a/b/.zarray", "a/b/.zgroup"), e.keysTried());
            assertEquals("a/b/zarr.json", e.key());
            assertTrue(e.getMessage().contains("no Zarr array or group at \"/a/b\""), e.getMessage());
            assertTrue(NoSuchKeyException.class.isInstance(e), "callers catching NoSuchKeyException still catch it");
        }
    }
}
