// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.store;

import dev.zarrdirect.testing.StoreContract;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.store.memory.MemoryStore;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryStoreTest extends StoreContract {

    @Override
    protected Store newStore(Path dir) {
        return new MemoryStore();
    }

    @Test
    void describesItselfWithItsIdentity() {
        try (MemoryStore other = new MemoryStore()) {
            assertTrue(store.toString().matches("MemoryStore@[0-9a-f]+"), store.toString());
            assertNotEquals(store.toString(), other.toString());
        }
    }

    @Test
    void aKeyAndKeysBelowItCanCoexist() {
        store.set("a", MemorySegment.ofArray(new byte[] {1}));
        store.set("a/b", MemorySegment.ofArray(new byte[] {2}));
        assertEquals(List.of("a", "a/"), store.listDir(""));
        assertEquals(List.of("a", "a/b"), store.list("a"));
    }

    @Test
    void storesAreIndependent() {
        try (MemoryStore other = new MemoryStore()) {
            store.set("k", MemorySegment.ofArray(new byte[] {1}));
            assertEquals(-1, other.size("k"));
        }
    }
}
