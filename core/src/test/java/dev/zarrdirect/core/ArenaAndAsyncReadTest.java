// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArenaAndAsyncReadTest {

    static ZarrContext ctx;
    static MemoryStore store;
    static ZarrArray array;

    /** [6, 4] float32 in [2, 2] chunks (so a read spans several chunks and workers), holding 0..23. */
    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 3);
        store = new MemoryStore();
        array = Zarr.createArray(ctx, store, "a", ArrayMetadata.create(new long[]{6, 4}, DataType.FLOAT32,
                new long[]{2, 2}, FillValue.zero(DataType.FLOAT32),
                List.of(ArrayFixtures.bytes("little"), ArrayFixtures.zstd(1, false))));
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, 6, 4)) {
            for (int i = 0; i < 24; i++) {
                t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
            }
            array.write(t);
        }
    }

    @AfterAll
    static void stop() {
        store.close();
        ctx.close();
    }

    private static final float[] ROWS_1_TO_3_COLS_1_TO_3 = {5, 6, 9, 10};

    @Test
    void aReadIntoASharedArenaLivesAsLongAsTheArenaAndIsInaccessibleAfterItCloses() {
        Tensor t;
        try (Arena arena = Arena.ofShared()) {
            t = array.read(Selection.parse("1:3,1:3", array.shape()), arena);
            assertFalse(t.ownsBuffer(), "the arena owns the memory, not the tensor");
            assertArrayEquals(ROWS_1_TO_3_COLS_1_TO_3, t.toFloatArray());
            t.close(); // does nothing: the memory is the arena's
            assertEquals(5f, t.getFloat(0, 0));
        }
        assertThrows(IllegalStateException.class, () -> t.getFloat(0, 0));
        assertThrows(IllegalStateException.class, t::toFloatArray);
    }

    @Test
    void aReadIntoAConfinedArenaWorksOnItsOwnerThreadAndDiesWithTheArena() {
        Tensor t;
        try (Arena arena = Arena.ofConfined()) {
            t = array.read(Selection.all(array.shape()), arena);
            assertEquals(23f, t.getFloat(5, 3));
            assertEquals(9f, t.getFloat(2, 1));
        }
        assertThrows(IllegalStateException.class, () -> t.getFloat(0, 0));
    }

    @Test
    void aReadIntoAConfinedArenaOfAnotherThreadFailsLoudly() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            CompletableFuture<Throwable> f = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    array.read(Selection.all(array.shape()), arena);
                    f.complete(null);
                } catch (Throwable e) {
                    f.complete(e);
                }
            });
            assertTrue(f.get(30, TimeUnit.SECONDS) instanceof WrongThreadException);
        }
    }

    @Test
    void anAutomaticArenaGivesATensorTheGarbageCollectorFrees() {
        Tensor t = array.read(Selection.parse("1:3,1:3", array.shape()), Arena.ofAuto());
        assertArrayEquals(ROWS_1_TO_3_COLS_1_TO_3, t.toFloatArray());
    }

    @Test
    void readAsyncCompletesWithAnOwningHostTensor() throws Exception {
        CompletableFuture<Tensor> f = array.readAsync(Selection.parse("1:3,1:3", array.shape()));
        try (Tensor t = f.get(30, TimeUnit.SECONDS)) {
            assertTrue(t.ownsBuffer());
            assertArrayEquals(ROWS_1_TO_3_COLS_1_TO_3, t.toFloatArray());
        }
    }

    @Test
    void manyReadAsyncAtOnceDoNotStarveTheWorkers() throws Exception {
        List<CompletableFuture<Tensor>> fs = new java.util.ArrayList<>();
        for (int i = 0; i < 32; i++) {
            fs.add(array.readAsync(Selection.all(array.shape())));
        }
        for (CompletableFuture<Tensor> f : fs) {
            try (Tensor t = f.get(60, TimeUnit.SECONDS)) {
                assertEquals(23f, t.getFloat(5, 3));
            }
        }
    }

    @Test
    void readAsyncRejectsABadSelectionAtOnceAndReportsReadFailuresThroughTheFuture() {
        assertThrows(IndexOutOfBoundsException.class, () -> array.readAsync(Selection.parse("0:7,:", new long[]{7, 4})));
        try (MemoryStore broken = new MemoryStore()) {
            ZarrArray b = Zarr.createArray(ctx, broken, "b", array.metadata());
            broken.set("b/c/0/0", java.lang.foreign.MemorySegment.ofArray(new byte[]{1, 2, 3}));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> b.readAsync(Selection.parse("0:2,0:2", b.shape())).get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof RuntimeException, String.valueOf(e.getCause()));
        }
    }
}
