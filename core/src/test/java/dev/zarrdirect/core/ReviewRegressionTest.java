// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.pipeline.CodecChain;
import dev.zarrdirect.core.pipeline.CodecStages;
import dev.zarrdirect.core.plan.ReadPlanner;
import dev.zarrdirect.core.pipeline.DeviceDecoder;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

import static dev.zarrdirect.core.ArrayFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/** Regressions for bugs found in review: each failed before its fix. */
class ReviewRegressionTest {

    /** A memory store whose gets take a while, so a read is still in flight when the context closes. */
    static final class SlowStore extends dev.zarrdirect.api.store.FilterStore {
        SlowStore() {
            super(new MemoryStore());
        }

        @Override
        public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return in.get(key, range, allocator);
        }
    }

    @Test
    @Timeout(60)
    void closingTheContextDuringAReadDoesNotHangTheRead() throws Exception {
        ZarrContext ctx = ZarrContext.open("cpu", 2);
        Store store = new SlowStore();
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(new long[]{64, 4}, DataType.INT32,
                new long[]{1, 4}, FillValue.zero(DataType.INT32), List.of(bytes("little"))));
        try (Tensor t = random(DataType.INT32, new long[]{64, 4}, new Random(1))) {
            a.write(t);
        }
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            try (Tensor t = a.read()) {
                outcome.set(null);
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        reader.start();
        Thread.sleep(100);
        ctx.close();
        reader.join(30_000);
        assertFalse(reader.isAlive(), "the read is still waiting after its context closed");
    }

    /** A one-shard array whose index entry for inner chunk 0 says it is 2^50 bytes long. */
    static MemoryStore shardWithHugeIndexEntry(ZarrContext ctx) {
        MemoryStore store = new MemoryStore();
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(new long[]{4, 8}, DataType.UINT8,
                new long[]{4, 8}, FillValue.zero(DataType.UINT8),
                List.of(sharding(new long[]{2, 8}, List.of(bytes("little")), List.of(bytes("little")), "end"))));
        try (Tensor t = random(DataType.UINT8, new long[]{4, 8}, new Random(2))) {
            t.segment().fill((byte) 1);
            a.write(t);
        }
        try (Arena arena = Arena.ofConfined()) {
            byte[] shard = store.get("c/0/0", arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE);
            int idx = shard.length - 2 * 16;
            MemorySegment.ofArray(shard).set(ValueLayout.JAVA_LONG_UNALIGNED, idx + 8, 1L << 50);
            store.set("c/0/0", MemorySegment.ofArray(shard));
        }
        return store;
    }

    @Test
    void readPlansCheckShardIndexEntriesAgainstTheShardSize() {
        try (ZarrContext ctx = ZarrContext.open("cpu", 1)) {
            MemoryStore store = shardWithHugeIndexEntry(ctx);
            ZarrArray a = Zarr.openArray(ctx, store, "");
            CodecChain chain = CodecChain.build(a.metadata().codecs(), new dev.zarrdirect.api.codec.ChunkSpec(DataType.UINT8,
                    new long[]{4, 8}), FillValue.zero(DataType.UINT8).bytes(), new CodecStages.Context(ctx.codecs(),
                    dev.zarrdirect.api.Device.CPU, java.util.Map.of()), "test");
            ReadPlanner planner = new ReadPlanner(a.metadata(), chain, store, "", "test");
            CorruptChunkException e = assertThrows(CorruptChunkException.class, () -> planner.plan(List.of(
                    new ReadPlanner.Request(new long[]{0, 0}, new long[]{2, 8}, new long[]{0, 0})), new long[]{2, 8}, null));
            assertTrue(e.getMessage().contains("outside"), e.getMessage());
        }
    }

    @Test
    void aPartialReadOfACorruptNestedShardIsACorruptChunk() {
        try (ZarrContext ctx = ZarrContext.open("cpu", 1)) {
            MemoryStore store = new MemoryStore();
            ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(new long[]{8}, DataType.UINT8,
                    new long[]{8}, FillValue.zero(DataType.UINT8), List.of(sharding(new long[]{8},
                            List.of(sharding(new long[]{2}, List.of(bytes("little")), List.of(bytes("little")), "end")),
                            List.of(bytes("little")), "end"))));
            try (Tensor t = random(DataType.UINT8, new long[]{8}, new Random(3))) {
                t.segment().fill((byte) 9);
                a.write(t);
            }
            try (Arena arena = Arena.ofConfined()) {
                byte[] shard = store.get("c/0", arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE);
                // The outer index (last 16 bytes) points at the inner shard; its own index ends just before.
                int innerIndexEnd = shard.length - 16;
                MemorySegment.ofArray(shard).set(ValueLayout.JAVA_LONG_UNALIGNED, innerIndexEnd - 4 * 16, 1000L);
                store.set("c/0", MemorySegment.ofArray(shard));
            }
            assertThrows(CorruptChunkException.class, () -> a.read(Selection.parse("0:1", a.shape())).close());
        }
    }
}
