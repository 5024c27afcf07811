// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import static dev.zarrdirect.core.ArrayFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

class ShardingPartialReadTest {

    static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 1);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    /** Records every ranged read, so a test can see exactly which bytes a read fetched. */
    static final class RecordingStore extends dev.zarrdirect.api.store.FilterStore {
        final List<String> reads = Collections.synchronizedList(new ArrayList<>());

        RecordingStore(Store inner) {
            super(inner);
        }

        @Override
        public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
            Optional<MemorySegment> r = in.get(key, range, allocator);
            reads.add(key + " " + range + " -> " + r.map(MemorySegment::byteSize).orElse(-1L));
            return r;
        }
    }

    @Test
    void readingOneInnerChunkFetchesOnlyTheIndexAndThatChunk() {
        RecordingStore store = new RecordingStore(new MemoryStore());
        long[] shape = {8, 64};
        DataType dt = DataType.FLOAT64;
        // One shard of 8 x 64 with inner chunks 4 x 8, uncompressed so every inner chunk is 256 bytes.
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(shape, dt, shape, FillValue.zero(dt),
                List.of(sharding(new long[]{4, 8}, List.of(bytes("little")), List.of(bytes("little"), crc32c()), "end"))));
        try (Tensor data = random(dt, shape, new Random(1))) {
            a.write(data);
            store.reads.clear();
            Selection sel = new Selection(new long[]{5, 17}, new long[]{6, 19});
            try (Tensor part = a.read(sel); Tensor expect = slice(data, sel)) {
                assertSameBytes(expect, part, "inner chunk read");
            }
            long indexBytes = 2 * 8 * 16 + 4;
            assertEquals(List.of("c/0/0 last " + indexBytes + " bytes -> " + indexBytes,
                    "c/0/0 bytes " + (8 + 2) * 256 + "-" + (8 + 3) * 256 + " -> 256"), store.reads);
        }
    }

    @Test
    void nearbyInnerChunksAreFetchedInOneCoalescedRead() {
        RecordingStore store = new RecordingStore(new MemoryStore());
        long[] shape = {8, 64};
        DataType dt = DataType.FLOAT64;
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(shape, dt, shape, FillValue.zero(dt),
                List.of(sharding(new long[]{4, 8}, List.of(bytes("little")), List.of(bytes("little"), crc32c()), "start"))));
        try (Tensor data = random(dt, shape, new Random(2))) {
            a.write(data);
            store.reads.clear();
            Selection sel = new Selection(new long[]{0, 0}, new long[]{4, 40});
            try (Tensor part = a.read(sel); Tensor expect = slice(data, sel)) {
                assertSameBytes(expect, part, "coalesced read");
            }
            assertEquals(2, store.reads.size(), "index + one coalesced range, got " + store.reads);
            assertTrue(store.reads.get(1).endsWith("-> " + 5 * 256), store.reads.toString());
        }
    }

    @Test
    void innerChunksNeverWrittenReadAsFillAndAreLeftOutOfTheShard() {
        MemoryStore store = new MemoryStore();
        long[] shape = {4, 4};
        DataType dt = DataType.INT32;
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(shape, dt, shape,
                FillValue.parse(-1L, dt, "test"),
                List.of(sharding(new long[]{2, 2}, List.of(bytes("little")), List.of(bytes("little"), crc32c()), "end"))));
        try (Tensor t = Tensor.allocateHost(dt, 2, 2)) {
            a.write(new long[]{2, 2}, t);
        }
        assertEquals(4 * 16 + 4 + 16, store.size("c/0/0"), "index plus one 16-byte inner chunk");
        try (Tensor back = a.read()) {
            int[] v = back.segment().toArray(java.lang.foreign.ValueLayout.JAVA_INT);
            assertArrayEquals(new int[]{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1, 0, 0}, v);
        }
    }
}
