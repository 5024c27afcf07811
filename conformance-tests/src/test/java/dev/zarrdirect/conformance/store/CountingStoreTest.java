// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.store;

import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.core.store.memory.MemoryStore;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CountingStoreTest {

    @Test
    void countsGetsBytesAndRangesPerKey() {
        try (CountingStore store = new CountingStore(new MemoryStore()); Arena arena = Arena.ofConfined()) {
            store.set("shard", MemorySegment.ofArray(new byte[100]));
            store.get("shard", ByteRange.suffix(16), arena);
            store.get("shard", ByteRange.of(10, 20), arena);
            store.get("missing", arena);
            assertEquals(2, store.gets("shard"));
            assertEquals(36, store.bytesRead("shard"));
            assertEquals(List.of(ByteRange.suffix(16), ByteRange.of(10, 20)), store.ranges("shard"));
            assertEquals(1, store.gets("missing"));
            assertEquals(3, store.totalGets());
            assertEquals(36, store.totalBytesRead());
            assertEquals(Map.of("missing", 0L, "shard", 36L), store.bytesReadPerKey());
            store.reset();
            assertEquals(0, store.totalGets());
        }
    }
}
