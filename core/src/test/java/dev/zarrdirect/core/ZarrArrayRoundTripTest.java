// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.buffer.StridedCopy;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.zarrdirect.core.ArrayFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

class ZarrArrayRoundTripTest {

    static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 3);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    static final long SEED = Long.getLong("zd.seed", System.nanoTime());

    static Stream<Arguments> chains() {
        long[] inner = {2, 3, 2};
        return Stream.of(
                Arguments.of("bytes little", List.of(bytes("little"))),
                Arguments.of("bytes big", List.of(bytes("big"))),
                Arguments.of("bytes + zstd", List.of(bytes("little"), zstd(3, false))),
                Arguments.of("bytes + zstd(checksum) + crc32c", List.of(bytes("little"), zstd(1, true), crc32c())),
                Arguments.of("bytes big + gzip", List.of(bytes("big"), gzip(5))),
                Arguments.of("transpose + bytes + zstd", List.of(transpose(2, 0, 1), bytes("little"), zstd(0, false))),
                Arguments.of("sharding end", List.of(sharding(inner, List.of(bytes("little"), zstd(3, false)),
                        List.of(bytes("little"), crc32c()), "end"))),
                Arguments.of("sharding start, big-endian inner", List.of(sharding(inner, List.of(bytes("big"), gzip(1)),
                        List.of(bytes("little"), crc32c()), "start"))),
                Arguments.of("transpose + sharding", List.of(transpose(1, 2, 0), sharding(new long[]{3, 2, 2},
                        List.of(bytes("little")), List.of(bytes("little")), "end"))),
                Arguments.of("nested sharding", List.of(sharding(new long[]{2, 6, 4}, List.of(sharding(new long[]{1, 3, 2},
                        List.of(bytes("little"), zstd(1, false)), List.of(bytes("little"), crc32c()), "end")),
                        List.of(bytes("little"), crc32c()), "start"))),
                Arguments.of("sharding + zstd after it", List.of(sharding(inner, List.of(bytes("little")),
                        List.of(bytes("little"), crc32c()), "end"), zstd(3, true))));
    }

    @ParameterizedTest(name = "{0} round-trips every data type with edge chunks and partial reads")
    @MethodSource("chains")
    void everyDataTypeRoundTripsThroughTheChain(String name, List<CodecMetadata> codecs) {
        Random rnd = new Random(SEED);
        long[] shape = {5, 13, 9};
        long[] chunks = {2, 6, 4};
        for (DataType dt : allTypes()) {
            Store store = new MemoryStore();
            ArrayMetadata md = ArrayMetadata.create(shape, dt, chunks, FillValue.zero(dt), codecs);
            ZarrArray a = Zarr.createArray(ctx, store, "a", md);
            try (Tensor data = random(dt, shape, rnd)) {
                a.write(data);
                ZarrArray reopened = Zarr.openArray(ctx, store, "a");
                try (Tensor back = reopened.read()) {
                    assertSameBytes(data, back, name + " " + dt + " whole read (seed " + SEED + ")");
                }
                for (int k = 0; k < 5; k++) {
                    Selection sel = randomSelection(shape, rnd);
                    try (Tensor part = reopened.read(sel); Tensor expect = slice(data, sel)) {
                        assertSameBytes(expect, part, name + " " + dt + " read of " + sel + " (seed " + SEED + ")");
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}: partial writes patch only the selected elements")
    @MethodSource("chains")
    void partialWritesPatchOnlyTheSelectedElements(String name, List<CodecMetadata> codecs) {
        Random rnd = new Random(SEED + 1);
        long[] shape = {5, 13, 9};
        DataType dt = DataType.INT32;
        Store store = new MemoryStore();
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(shape, dt, new long[]{2, 6, 4},
                FillValue.zero(dt), codecs));
        try (Tensor model = Tensor.allocateHost(dt, shape)) {
            for (int k = 0; k < 6; k++) {
                Selection sel = randomSelection(shape, rnd);
                try (Tensor patch = random(dt, sel.shape(), rnd)) {
                    a.write(sel, patch);
                    // Apply the same patch to the model by element.
                    long[] st = sel.start();
                    new dev.zarrdirect.core.pipeline.HostRegion(model.segment(), 0, shape,
                            dev.zarrdirect.api.buffer.StridedCopy.cByteStrides(shape, 4), 4)
                            .placeFrom(patch.segment(), sel.shape(), new long[3], sel.shape(), st);
                }
            }
            try (Tensor back = a.read()) {
                assertSameBytes(model, back, name + " after partial writes (seed " + SEED + ")");
            }
        }
    }

    @Test
    void chunksNeverWrittenReadAsNaNFill() {
        Store store = new MemoryStore();
        DataType dt = DataType.FLOAT32;
        FillValue nan = FillValue.parse("NaN", dt, "test");
        ZarrArray a = Zarr.createArray(ctx, store, "x", ArrayMetadata.create(new long[]{4, 4}, dt, new long[]{2, 2}, nan,
                List.of(bytes("little"), zstd(3, false))));
        try (Tensor one = Tensor.allocateHost(dt, 2, 2)) {
            one.segment().fill((byte) 0);
            a.write(new long[]{0, 2}, one);
        }
        try (Tensor t = a.read()) {
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 4; j++) {
                    float v = t.segment().getAtIndex(ValueLayout.JAVA_FLOAT, i * 4 + j);
                    if (i < 2 && j >= 2) {
                        assertEquals(0f, v, "written element [" + i + "," + j + "]");
                    } else {
                        assertTrue(Float.isNaN(v), "element [" + i + "," + j + "] of a missing chunk is " + v);
                    }
                }
            }
        }
        assertTrue(store.exists("x/c/0/1"));
        assertFalse(store.exists("x/c/0/0"));
    }

    @Test
    void aChunkOfOnlyTheFillValueIsDeletedNotStored() {
        Store store = new MemoryStore();
        DataType dt = DataType.INT16;
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(new long[]{4}, dt, new long[]{2},
                FillValue.parse(7L, dt, "test"), List.of(bytes("little"))));
        try (Tensor t = Tensor.allocateHost(dt, 2)) {
            t.segment().setAtIndex(ValueLayout.JAVA_SHORT, 0, (short) 1);
            t.segment().setAtIndex(ValueLayout.JAVA_SHORT, 1, (short) 7);
            a.write(new long[]{0}, t);
            assertTrue(store.exists("c/0"));
            t.segment().setAtIndex(ValueLayout.JAVA_SHORT, 0, (short) 7);
            a.write(new long[]{0}, t);
            assertFalse(store.exists("c/0"), "a chunk holding only the fill value should have been deleted");
        }
    }

    @Test
    void zeroLengthDimensionsReadAndWriteNothing() {
        Store store = new MemoryStore();
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(new long[]{0, 5}, DataType.FLOAT64,
                new long[]{3, 3}, FillValue.zero(DataType.FLOAT64), List.of(bytes("little"), zstd(1, false))));
        try (Tensor t = a.read()) {
            assertEquals(0, t.elementCount());
            a.write(t);
        }
        assertEquals(List.of("zarr.json"), store.list(""));
    }

    @Test
    void rankZeroArraysHoldOneElement() {
        Store store = new MemoryStore();
        ZarrArray a = Zarr.createArray(ctx, store, "s", ArrayMetadata.create(new long[]{}, DataType.FLOAT64,
                new long[]{}, FillValue.zero(DataType.FLOAT64), List.of(bytes("big"), gzip(1))));
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT64)) {
            t.segment().set(ValueLayout.JAVA_DOUBLE, 0, 2.5);
            a.write(t);
        }
        assertTrue(store.exists("s/c"));
        try (Tensor back = Zarr.openArray(ctx, store, "s").read()) {
            assertEquals(2.5, back.segment().get(ValueLayout.JAVA_DOUBLE, 0));
        }
    }

    @Test
    void v2ChunkKeysWithDotsAreUsedForStorage() {
        Store store = new MemoryStore();
        ArrayMetadata md = ArrayMetadata.create(new long[]{4, 4}, DataType.UINT8, new long[]{2, 2},
                FillValue.zero(DataType.UINT8), List.of(bytes("little")))
                .withChunkKeyEncoding(new dev.zarrdirect.core.metadata.V2ChunkKeyEncoding('.'));
        ZarrArray a = Zarr.createArray(ctx, store, "v", md);
        try (Tensor t = random(DataType.UINT8, new long[]{4, 4}, new Random(SEED))) {
            t.segment().fill((byte) 3);
            a.write(t);
        }
        assertEquals(List.of("v/0.0", "v/0.1", "v/1.0", "v/1.1", "v/zarr.json"), store.list("v/"));
    }

    @Test
    void concurrentReadsOfOneArrayAgree() throws Exception {
        Store store = new MemoryStore();
        long[] shape = {16, 32, 32};
        ZarrArray a = Zarr.createArray(ctx, store, "", ArrayMetadata.create(shape, DataType.FLOAT32, new long[]{1, 16, 32},
                FillValue.zero(DataType.FLOAT32), List.of(bytes("little"), zstd(3, false))));
        try (Tensor data = random(DataType.FLOAT32, shape, new Random(SEED))) {
            a.write(data);
            List<Thread> threads = new ArrayList<>();
            List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < 6; t++) {
                int seed = t;
                Thread th = new Thread(() -> {
                    Random r = new Random(SEED + seed);
                    try {
                        for (int k = 0; k < 20; k++) {
                            Selection sel = randomSelection(shape, r);
                            try (Tensor part = a.read(sel); Tensor expect = slice(data, sel)) {
                                assertSameBytes(expect, part, "concurrent read of " + sel);
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                });
                threads.add(th);
                th.start();
            }
            for (Thread th : threads) {
                th.join();
            }
            assertEquals(List.of(), errors);
        }
    }

    static List<DataType> allTypes() {
        List<DataType> all = new ArrayList<>(DataType.named());
        all.add(DataType.raw(24));
        return all;
    }

    static Selection randomSelection(long[] shape, Random rnd) {
        long[] a = new long[shape.length];
        long[] b = new long[shape.length];
        for (int i = 0; i < shape.length; i++) {
            long x = rnd.nextLong(shape[i] + 1);
            long y = rnd.nextLong(shape[i] + 1);
            a[i] = Math.min(x, y);
            b[i] = Math.max(x, y);
        }
        return new Selection(a, b);
    }
}
