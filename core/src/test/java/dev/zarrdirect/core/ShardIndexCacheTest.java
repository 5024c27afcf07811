// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.FilterStore;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.pipeline.ShardIndexCache;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShardIndexCacheTest {

    /** Counts reads of the shard index: ranges that are a suffix of the value (the index is at the end). */
    static final class CountingStore extends FilterStore {
        final AtomicInteger indexReads = new AtomicInteger();
        final AtomicInteger reads = new AtomicInteger();

        CountingStore(Store in) {
            super(in);
        }

        @Override
        public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
            if (key.contains("/c/")) {
                reads.incrementAndGet();
                if (range.equals(ByteRange.suffix(INDEX_BYTES))) {
                    indexReads.incrementAndGet();
                }
            }
            return super.get(key, range, allocator);
        }
    }

    /** [4, 8] int32 in one [4, 8] shard of [2, 4] inner chunks: 4 inner chunks, an index of 4 x 16 bytes. */
    static final long INDEX_BYTES = 4 * 16;

    private static ZarrArray sharded(ZarrContext ctx, Store store) {
        ArrayMetadata md = ArrayMetadata.create(new long[]{4, 8}, DataType.INT32, new long[]{4, 8},
                FillValue.zero(DataType.INT32), List.of(ArrayFixtures.sharding(new long[]{2, 4},
                        List.of(ArrayFixtures.bytes("little")), List.of(ArrayFixtures.bytes("little")), "end")));
        ZarrArray a = Zarr.createArray(ctx, store, "s", md);
        try (Tensor t = Tensor.allocateHost(DataType.INT32, 4, 8)) {
            for (int i = 0; i < 32; i++) {
                t.segment().setAtIndex(ValueLayout.JAVA_INT, i, i);
            }
            a.write(t);
        }
        return a;
    }

    @Test
    void aSecondReadOfTheSameShardDoesNotReadItsIndexAgain() {
        try (ZarrContext ctx = ZarrContext.open("cpu", 2); MemoryStore mem = new MemoryStore()) {
            CountingStore store = new CountingStore(mem);
            ZarrArray a = sharded(ctx, store);
            Selection sel = Selection.parse("0:2,0:4", a.shape());
            int before = store.indexReads.get();
            try (Tensor t = a.read(sel)) {
                assertArrayEquals(new long[]{0, 1, 2, 3, 8, 9, 10, 11}, t.toLongArray());
            }
            assertEquals(before + 1, store.indexReads.get(), "the first read reads the index");
            int readsBefore = store.reads.get();
            try (Tensor t = a.read(sel)) {
                assertEquals(11L, t.getLong(1, 3));
            }
            assertEquals(before + 1, store.indexReads.get(), "the second read takes the index from the cache");
            assertEquals(readsBefore + 1, store.reads.get(), "and reads only the inner chunk");
            // another array object over the same store and key shares the entry
            try (Tensor t = Zarr.openArray(ctx, store, "s").read(sel)) {
                assertEquals(0L, t.getLong(0, 0));
            }
            assertEquals(before + 1, store.indexReads.get());
            assertTrue(ctx.shardIndexCache().hits() >= 2, ctx.shardIndexCache().toString());
            assertEquals(1, ctx.shardIndexCache().size());
        }
    }

    @Test
    void aWriteThroughTheContextInvalidatesTheShardsIndex() {
        try (ZarrContext ctx = ZarrContext.open("cpu", 2); MemoryStore mem = new MemoryStore()) {
            CountingStore store = new CountingStore(mem);
            ZarrArray a = sharded(ctx, store);
            Selection sel = Selection.parse("0:2,4:8", a.shape());
            a.read(sel).close();
            try (Tensor fill = Tensor.allocateHost(DataType.INT32, 2, 4)) {
                a.write(sel, fill); // the inner chunk becomes all fill: left out, so the shard shrinks
            }
            int before = store.indexReads.get();
            try (Tensor t = a.read(sel)) {
                assertEquals(0L, t.getLong(1, 3));
            }
            assertEquals(before + 1, store.indexReads.get(), "the index was read again after the write");
            try (Tensor t = a.read(Selection.parse("2:4,4:8", a.shape()))) {
                assertEquals(31L, t.getLong(1, 3));
            }
        }
    }

    @Test
    void aZeroSizedCacheKeepsNothing() {
        try (ZarrContext ctx = ZarrContext.builder().backend("cpu").threads(2)
                .set("zarrdirect.shardIndexCacheBytes", "0").open(); MemoryStore mem = new MemoryStore()) {
            CountingStore store = new CountingStore(mem);
            ZarrArray a = sharded(ctx, store);
            Selection sel = Selection.parse("0:2,0:4", a.shape());
            a.read(sel).close();
            int before = store.indexReads.get();
            a.read(sel).close();
            assertEquals(before + 1, store.indexReads.get());
            assertEquals(0, ctx.shardIndexCache().size());
        }
    }

    @Test
    void theCacheEvictsLeastRecentlyUsedIndexesBeyondItsBound() {
        try (MemoryStore s1 = new MemoryStore()) {
            // each test index: 4 entries of 16 bytes plus overhead, about 360 bytes
            ShardIndexCache cache = new ShardIndexCache(1024);
            try (ZarrContext ctx = ZarrContext.open("cpu", 1)) {
                ZarrArray a = sharded(ctx, s1);
                var chain = dev.zarrdirect.core.pipeline.CodecChain.build(a.metadata().codecs(),
                        new dev.zarrdirect.api.codec.ChunkSpec(a.dataType(), a.chunkShape()),
                        a.metadata().fillValue().bytes(), new dev.zarrdirect.core.pipeline.CodecStages.Context(
                                ctx.codecs(), dev.zarrdirect.api.Device.CPU, java.util.Map.of()), "test");
                long size = s1.size("s/c/0/0");
                AtomicInteger loads = new AtomicInteger();
                for (int round = 0; round < 2; round++) {
                    for (String layout : List.of("a", "b", "c", "d")) {
                        cache.get(s1, "s/c/0/0", size, layout, () -> {
                            loads.incrementAndGet();
                            return chain.readShardIndex(new dev.zarrdirect.core.pipeline.StoreChunkSource(s1, "s/c/0/0"),
                                    size, "test");
                        });
                    }
                }
                assertTrue(cache.byteSize() <= 1024, cache.toString());
                assertTrue(cache.size() < 4, cache.toString());
                assertEquals(8, loads.get(), "cycling through more than fits evicts each before its reuse");
                cache.invalidateStore(s1);
                assertEquals(0, cache.size());
                assertEquals(0, cache.byteSize());
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new ShardIndexCache(-1));
    }
}
