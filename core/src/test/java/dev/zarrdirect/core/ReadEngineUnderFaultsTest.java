// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.ChecksumMismatchException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.testing.FaultInjectingStore;
import dev.zarrdirect.testing.TrackedStores;
import dev.zarrdirect.testing.TrackingStore;
import dev.zarrdirect.core.store.memory.MemoryStore;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static dev.zarrdirect.core.ArrayFixtures.*;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The read engine on a store that fails, truncates and flips bits ({@link FaultInjectingStore}),
 * watched by a {@link TrackingStore}: every failure names the key, a failed or finished read leaves
 * no {@code get} running and, with buffer tracking on, no host buffer alive (checked after each
 * test, with the stacks that leaked), and the same array reads right once the faults are gone.
 */
class ReadEngineUnderFaultsTest {

    private static final long[] SHAPE = {8, 64};
    private static final long[] CHUNK = {2, 16};
    private static final DataType DT = DataType.FLOAT32;

    static ZarrContext ctx;

    /** Every store a test reads is tracked; after each test none may have a get running or be left open. */
    @RegisterExtension
    final TrackedStores stores = new TrackedStores(2_000);

    private TrackingStore tracking;
    private FaultInjectingStore faults;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.builder().backend("cpu").threads(3).set("zarrdirect.trackBuffers", "true").open();
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    @AfterEach
    void closeTheStoreAndCheckTheBuffers() {
        if (tracking != null) {
            tracking.close(); // then TrackedStores checks that no get is still running
        }
        ((CpuBackend) ctx.backend()).assertNoLiveBuffers();
    }

    /** An array of 16 chunks with {@code codecs} in a store that faults and tracks, and the data written. */
    private Tensor array(List<CodecMetadata> codecs, long seed) {
        MemoryStore mem = new MemoryStore();
        faults = new FaultInjectingStore(mem);
        tracking = stores.track(faults);
        ZarrArray a = Zarr.createArray(ctx, tracking, "t2m", ArrayMetadata.create(SHAPE, DT, CHUNK,
                FillValue.zero(DT), codecs));
        Tensor data = random(DT, SHAPE, new Random(seed));
        a.write(data);
        return data;
    }

    private ZarrArray open() {
        return Zarr.openArray(ctx, tracking, "t2m");
    }

    @Test
    void aFailedGetAnywhereInAReadFailsItNamingTheKeyAndTheArrayStillReadsAfter() {
        try (Tensor data = array(List.of(bytes("little"), zstd(3, false)), 1)) {
            ZarrArray a = open();
            for (int n = 1; n <= 16; n += 4) { // a whole read makes 16 gets
                faults.failNthGet(n);
                RuntimeException e = assertThrows(RuntimeException.class, () -> {
                    try (Tensor t = a.read()) {
                        // not reached
                    }
                }, "get #" + n);
                StoreException se = find(e, StoreException.class);
                assertTrue(se.key() != null && se.key().startsWith("t2m/c/"), "names the chunk's key: " + se);
                tracking.assertQuiet(2_000);
                faults.clearFaults();
            }
            try (Tensor back = a.read()) {
                assertSameBytes(data, back, "after the faults");
            }
        }
    }

    @Test
    void aTruncatedChunkIsCorruptNamingItsKey() {
        try (Tensor data = array(List.of(bytes("little"), zstd(3, false)), 2)) {
            faults.truncate(k -> k.equals("t2m/c/1/2"), 5);
            ZarrArray a = open();
            RuntimeException e = assertThrows(RuntimeException.class, () -> {
                try (Tensor t = a.read()) {
                    // not reached
                }
            });
            CorruptChunkException ce = find(e, CorruptChunkException.class);
            assertTrue(ce.getMessage().contains("t2m/c/1/2"), ce.getMessage());
            // a selection that avoids the chunk is unaffected
            try (Tensor t = a.read(new Selection(new long[]{0, 0}, new long[]{2, 64}))) {
                assertSameBytes(slice(data, new Selection(new long[]{0, 0}, new long[]{2, 64})), t, "rows 0-1");
            }
        }
    }

    @Test
    void aFlippedBitUnderCrc32cIsAChecksumMismatchNamingTheKey() {
        try (Tensor data = array(List.of(bytes("little"), crc32c()), 3)) {
            faults.flipBit(k -> k.equals("t2m/c/3/0"), 17, 4);
            RuntimeException e = assertThrows(RuntimeException.class, () -> {
                try (Tensor t = open().read()) {
                    // not reached
                }
            });
            ChecksumMismatchException ce = find(e, ChecksumMismatchException.class);
            assertTrue(ce.getMessage().contains("t2m/c/3/0"), ce.getMessage());
        }
    }

    @Test
    void shardIndexAndInnerChunkFailuresNameTheShardKey() {
        List<CodecMetadata> sharded = List.of(sharding(new long[]{1, 8}, List.of(bytes("little"), zstd(1, false)),
                List.of(bytes("little"), crc32c()), "end"));
        try (Tensor data = array(sharded, 4)) {
            ZarrArray a = open();
            Selection part = new Selection(new long[]{2, 3}, new long[]{3, 20});
            // cold, the first get reads a shard index; once a read has cached the indexes, an inner chunk
            for (String what : List.of("an index read", "an inner chunk read")) {
                faults.failNthGet(1);
                RuntimeException e = assertThrows(RuntimeException.class, () -> {
                    try (Tensor t = a.read(part)) {
                        // not reached
                    }
                }, what);
                assertTrue(find(e, StoreException.class).key().startsWith("t2m/c/"), e.toString());
                faults.clearFaults();
                try (Tensor t = a.read(part)) {
                    assertSameBytes(slice(data, part), t, "after failing " + what);
                }
            }
            faults.flipBit(k -> k.equals("t2m/c/1/0"), 0, 0); // damages the first inner chunk's frame
            RuntimeException e = assertThrows(RuntimeException.class, () -> {
                try (Tensor t = a.read(part)) {
                    // not reached
                }
            });
            assertTrue(find(e, CorruptChunkException.class).getMessage().contains("t2m/c/1/0"), e.toString());
            faults.clearFaults();
            try (Tensor t = a.read(part)) {
                assertSameBytes(slice(data, part), t, "after the faults");
            }
        }
    }

    @Test
    void anAsyncReadThatFailsCompletesExceptionallyAndStopsReading() {
        try (Tensor data = array(List.of(bytes("little"), zstd(3, false)), 5)) {
            ZarrArray a = open();
            long before = tracking.gets();
            faults.failNthGet(3);
            CompletableFuture<Tensor> f = a.readAsync(new Selection(new long[]{0, 0}, SHAPE));
            CompletionException e = assertThrows(CompletionException.class, f::join);
            assertTrue(find(e, StoreException.class).key().startsWith("t2m/c/"), e.toString());
            tracking.assertQuiet(2_000);
            assertTrue(tracking.gets() - before <= 16, "no chunk read twice: " + (tracking.gets() - before));
            faults.clearFaults();
            try (Tensor back = a.readAsync(new Selection(new long[]{0, 0}, SHAPE)).join()) {
                assertSameBytes(data, back, "after the failure");
            }
        }
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
