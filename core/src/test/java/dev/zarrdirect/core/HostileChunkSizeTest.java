// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static dev.zarrdirect.core.ArrayFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Chunks larger than their codecs can produce fail before they are read (issue #25, item 1): a
 * sparse 20 GiB chunk file, and a shard index that claims 2^40 bytes for an inner chunk.
 */
class HostileChunkSizeTest {

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    static ZarrContext ctx;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 1);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    @Test
    void sparseTwentyGibChunkIsRefusedBeforeItIsRead() throws IOException {
        long[] shape = {8, 8};
        DataType dt = DataType.FLOAT64;
        try (FileSystemStore store = FileSystemStore.open(dir)) {
            ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(shape, dt, shape, FillValue.zero(dt),
                    List.of(bytes("little"))));
            try (Tensor data = random(dt, shape, new Random(3))) {
                a.write(data);
            }
            try (RandomAccessFile f = new RandomAccessFile(dir.resolve("c/0/0").toFile(), "rw")) {
                f.setLength(20L << 30);
            }
            RuntimeException e = assertThrows(RuntimeException.class, () -> {
                try (Tensor t = a.read(new Selection(new long[]{0, 0}, shape))) {
                    // not reached
                }
            });
            StoreException se = find(e, StoreException.class);
            assertTrue(se.getMessage().contains("21474836480"), se.getMessage());
            assertTrue(se.getMessage().contains("more than the limit"), se.getMessage());
            assertEquals("c/0/0", se.key());
        }
    }

    @Test
    void shardIndexClaimingHugeInnerChunkIsCorruptBeforeItIsRead() {
        Store store = new MemoryStore();
        long[] shape = {8, 64};
        DataType dt = DataType.FLOAT64;
        // index without a checksum, so that the test can rewrite it
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(shape, dt, shape, FillValue.zero(dt),
                List.of(sharding(new long[]{4, 8}, List.of(bytes("little")), List.of(bytes("little")), "end"))));
        try (Tensor data = random(dt, shape, new Random(4)); Arena arena = Arena.ofConfined()) {
            a.write(data);
            MemorySegment shard = store.get("c/0/0", arena).orElseThrow();
            long indexAt = shard.byteSize() - 16 * 16;
            shard.set(U64, indexAt + 8, 1L << 40); // the first inner chunk's length
            store.set("c/0/0", shard);
            // a partial read (index, then ranges) and a whole-shard read both refuse it
            for (Selection sel : List.of(new Selection(new long[]{0, 0}, new long[]{2, 2}),
                    new Selection(new long[]{0, 0}, shape))) {
                RuntimeException e = assertThrows(RuntimeException.class, () -> {
                    try (Tensor t = a.read(sel)) {
                        // not reached
                    }
                });
                CorruptChunkException ce = find(e, CorruptChunkException.class);
                assertTrue(ce.getMessage().contains(String.valueOf(1L << 40)), ce.getMessage());
            }
        }
    }

    @Test
    void innerChunkLongerThanItsCodecsCanProduceIsCorruptBeforeItIsRead() {
        Store store = new MemoryStore();
        long[] shape = {8, 64};
        DataType dt = DataType.FLOAT64;
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(shape, dt, shape, FillValue.zero(dt),
                List.of(sharding(new long[]{4, 8}, List.of(bytes("little")), List.of(bytes("little")), "start"))));
        try (Tensor data = random(dt, shape, new Random(6)); Arena arena = Arena.ofConfined()) {
            a.write(data);
            MemorySegment shard = store.get("c/0/0", arena).orElseThrow();
            // 200 KB of padding after the data, so that the lie fits in the shard: only the codecs'
            // bound (256 bytes of float64 at most, plus slack) can catch it
            MemorySegment padded = arena.allocate(shard.byteSize() + 200_000);
            padded.copyFrom(shard);
            long claimed = 150_000;
            padded.set(U64, 8, claimed); // the first inner chunk's length
            store.set("c/0/0", padded);
            for (Selection sel : List.of(new Selection(new long[]{0, 0}, new long[]{2, 2}),
                    new Selection(new long[]{0, 0}, shape))) {
                RuntimeException e = assertThrows(RuntimeException.class, () -> {
                    try (Tensor t = a.read(sel)) {
                        // not reached
                    }
                });
                CorruptChunkException ce = find(e, CorruptChunkException.class);
                assertTrue(ce.getMessage().contains(String.valueOf(claimed)), ce.getMessage());
                assertTrue(ce.getMessage().contains("can produce at most"), ce.getMessage());
            }
        }
    }

    @Test
    void boundedStoreReadsOfNormalChunksStillWork() {
        Store store = new MemoryStore();
        long[] shape = {8, 8};
        DataType dt = DataType.FLOAT64;
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(shape, dt, shape, FillValue.zero(dt),
                List.of(bytes("little"))));
        try (Tensor data = random(dt, shape, new Random(5));
             Tensor back = (writeThen(a, data)).read(new Selection(new long[]{0, 0}, shape))) {
            assertSameBytes(data, back, "round trip with bounded reads");
        }
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(512, store.get("c/0/0", ByteRange.ALL, 512, arena).orElseThrow().byteSize());
            assertThrows(StoreException.class, () -> store.get("c/0/0", ByteRange.ALL, 511, arena));
        }
    }

    private static ZarrArray writeThen(ZarrArray a, Tensor data) {
        a.write(data);
        return a;
    }

    private static <T extends Throwable> T find(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + e, e);
    }
}
