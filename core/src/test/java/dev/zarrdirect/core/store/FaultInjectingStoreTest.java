// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.core.store.memory.MemoryStore;
import dev.zarrdirect.testing.FaultInjectingStore;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultInjectingStoreTest {

    private final MemoryStore base = new MemoryStore();
    private final FaultInjectingStore store = new FaultInjectingStore(base);
    private final Arena arena = Arena.ofConfined();

    FaultInjectingStoreTest() {
        base.set("a/c/0", MemorySegment.ofArray(new byte[] {0, 1, 2, 3, 4, 5, 6, 7}));
        base.set("a/zarr.json", MemorySegment.ofArray(new byte[] {9, 9}));
    }

    @AfterEach
    void close() {
        store.close();
        arena.close();
    }

    private byte[] read(String key, ByteRange range) {
        return store.get(key, range, arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void theNthGetFailsWithAnIoCauseAndTheNextSucceeds() {
        store.failNthGet(2);
        read("a/c/0", ByteRange.ALL);
        StoreException e = assertThrows(StoreException.class, () -> store.get("a/zarr.json", arena));
        assertInstanceOf(IOException.class, e.getCause());
        assertTrue(e.getMessage().contains("\"a/zarr.json\"") && e.getMessage().contains("get #2"), e.getMessage());
        assertArrayEquals(new byte[] {9, 9}, read("a/zarr.json", ByteRange.ALL));
        assertEquals(3, store.gets());
    }

    @Test
    void truncationShortensMatchingKeysOnlyAndRangesPastItFail() {
        store.truncate(k -> k.startsWith("a/c/"), 5);
        assertEquals(5, store.size("a/c/0"));
        assertArrayEquals(new byte[] {0, 1, 2, 3, 4}, read("a/c/0", ByteRange.ALL));
        assertArrayEquals(new byte[] {3, 4}, read("a/c/0", ByteRange.suffix(2)));
        StoreException e = assertThrows(StoreException.class, () -> store.get("a/c/0", ByteRange.of(4, 2), arena));
        assertTrue(e.getMessage().contains("length 5"), e.getMessage());
        assertEquals(2, store.size("a/zarr.json"));
    }

    @Test
    void aBitFlipChangesOneBitOfMatchingKeysWhereverTheRangeCoversIt() {
        store.flipBit(k -> k.equals("a/c/0"), 6, 7);
        assertArrayEquals(new byte[] {0, 1, 2, 3, 4, 5, (byte) 0x86, 7}, read("a/c/0", ByteRange.ALL));
        assertArrayEquals(new byte[] {(byte) 0x86, 7}, read("a/c/0", ByteRange.suffix(2)));
        assertArrayEquals(new byte[] {(byte) 0x86}, read("a/c/0", ByteRange.of(6, 1)));
        assertArrayEquals(new byte[] {0, 1}, read("a/c/0", ByteRange.of(0, 2)));
        assertArrayEquals(new byte[] {9, 9}, read("a/zarr.json", ByteRange.ALL));
        store.clearFaults();
        assertArrayEquals(new byte[] {6, 7}, read("a/c/0", ByteRange.suffix(2)));
    }

    @Test
    void faultsDoNotChangeTheStoredBytes() {
        store.flipBit(k -> true, 0, 0).truncate(k -> true, 1);
        read("a/c/0", ByteRange.ALL);
        assertEquals(8, base.size("a/c/0"));
        assertEquals(0, base.get("a/c/0", arena).orElseThrow().get(ValueLayout.JAVA_BYTE, 0));
    }
}
