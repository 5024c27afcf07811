// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.exec.ReadListener;
import dev.zarrdirect.core.exec.TraceListener;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.plan.ChunkRead;
import dev.zarrdirect.core.plan.FetchRange;
import dev.zarrdirect.core.plan.ReadPlan;
import dev.zarrdirect.core.plan.ReadPlanner;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static dev.zarrdirect.core.ArrayFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Read plans over many regions at once (a loader's batch of windows): each chunk is read and
 * decoded once however many windows need it, and the result is what reading each window alone gives.
 */
class ReadPlansTest {

    static final long SEED = Long.getLong("zd.seed", System.nanoTime());
    static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 3);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    private static final long[] SHAPE = {12, 3, 10, 14};

    private static List<List<CodecMetadata>> chains() {
        return List.of(List.of(bytes("little"), zstd(3, false)),
                List.of(transpose(0, 1, 3, 2), bytes("big"), gzip(1)),
                List.of(sharding(new long[]{1, 1, 5, 7}, List.of(bytes("little"), zstd(1, false)),
                        List.of(bytes("little"), crc32c()), "end")),
                // nested: read through the host chain of the outer shard
                List.of(sharding(new long[]{1, 3, 5, 7}, List.of(sharding(new long[]{1, 1, 5, 7},
                        List.of(bytes("little")), List.of(bytes("little")), "start")), List.of(bytes("little")), "end")));
    }

    /** An array of 2-step chunks (or shards) with a few chunks never written. */
    private static ZarrArray array(Store store, List<CodecMetadata> codecs, Random rnd) {
        ZarrArray a = Zarr.createArray(ctx, store, "v", ArrayMetadata.create(SHAPE, DataType.FLOAT32,
                new long[]{2, 3, 10, 14}, FillValue.parse("NaN", DataType.FLOAT32, "test"), codecs));
        try (Tensor t = random(DataType.FLOAT32, SHAPE, rnd)) {
            a.write(t);
        }
        store.delete("v/" + a.metadata().chunkKey(new long[]{3, 0, 0, 0}));
        return a;
    }

    @Test
    void overlappingWindowsReadEachChunkOnceAndMatchReadingEachWindowAlone() {
        Random rnd = new Random(SEED);
        for (List<CodecMetadata> codecs : chains()) {
            String what = codecs.stream().map(CodecMetadata::name).toList() + " (seed " + SEED + ")";
            ShardingPartialReadTest.RecordingStore store = new ShardingPartialReadTest.RecordingStore(new MemoryStore());
            ZarrArray a = array(store, codecs, rnd);
            // windows of 3 steps starting at random places: they overlap and share chunks
            int windows = 5;
            List<ReadPlanner.Request> requests = new ArrayList<>();
            List<Selection> sels = new ArrayList<>();
            for (int w = 0; w < windows; w++) {
                long s = rnd.nextInt((int) SHAPE[0] - 2);
                long y = rnd.nextInt(4);
                Selection sel = new Selection(new long[]{s, 0, y, 1}, new long[]{s + 3, 3, y + 6, 13});
                sels.add(sel);
                requests.add(new ReadPlanner.Request(sel.start(), sel.stop(), new long[]{3L * w, 0, 0, 0}));
            }
            long[] dest = {3L * windows, 3, 6, 12};
            ReadPlan plan = a.plan(requests, dest);
            // every chunk of the plan is distinct
            List<String> ids = new ArrayList<>();
            for (FetchRange r : plan.ranges()) {
                for (ChunkRead c : r.chunks()) {
                    ids.add(c.key() + "@" + c.offset());
                }
            }
            assertEquals(ids.size(), ids.stream().distinct().count(), what + ": a chunk planned twice: " + ids);
            assertTrue(plan.placementCount() >= plan.chunkCount(), what);
            store.reads.clear();
            try (Tensor got = Tensor.allocateHost(DataType.FLOAT32, dest)) {
                a.read(plan, got);
                List<String> reads = new ArrayList<>(store.reads);
                assertEquals(reads.size(), reads.stream().distinct().count(), what + ": a range read twice: " + reads);
                assertEquals(plan.ranges().size(), reads.size(), what + ": one store read a planned request: " + reads);
                for (int w = 0; w < windows; w++) {
                    Selection one = new Selection(new long[]{3L * w, 0, 0, 0}, new long[]{3L * w + 3, 3, 6, 12});
                    try (Tensor expect = a.read(sels.get(w)); Tensor part = slice(got, one)) {
                        assertSameBytes(expect, part, what + " window " + w + " " + sels.get(w));
                    }
                }
            }
        }
    }

    @Test
    void aShardsInnerChunksAreOneRequestAndMissingOnesAreFills() {
        Random rnd = new Random(SEED);
        MemoryStore store = new MemoryStore();
        ZarrArray a = array(store, chains().get(2), rnd);
        // one shard = [2, 3, 10, 14] in inner chunks of [1, 1, 5, 7]: 24 inner chunks, stored back to back
        ReadPlan plan = a.plan(List.of(new ReadPlanner.Request(new long[]{0, 0, 0, 0}, new long[]{2, 3, 10, 14},
                new long[]{0, 0, 0, 0})), new long[]{2, 3, 10, 14});
        assertTrue(plan.innerChunks());
        assertEquals(1, plan.ranges().size(), plan.ranges().toString());
        assertEquals(24, plan.chunkCount());
        assertEquals(List.of(), plan.fills());
        // the deleted shard [3]: its box is one fill, and nothing of it is fetched
        ReadPlan missing = a.plan(List.of(new ReadPlanner.Request(new long[]{6, 0, 0, 0}, new long[]{8, 3, 10, 14},
                new long[]{0, 0, 0, 0})), new long[]{2, 3, 10, 14});
        assertEquals(0, missing.ranges().size());
        assertEquals(1, missing.fills().size());
        try (Tensor got = Tensor.allocateHost(DataType.FLOAT32, 2, 3, 10, 14)) {
            got.segment().fill((byte) 0x55);
            a.read(missing, got);
            for (long i = 0; i < got.elementCount(); i++) {
                assertTrue(Float.isNaN(got.segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i)), "element " + i);
            }
        }
    }

    @Test
    void requestsOutsideTheArrayOrTheDestinationAreRefused() {
        MemoryStore store = new MemoryStore();
        ZarrArray a = array(store, chains().getFirst(), new Random(SEED));
        assertThrows(IllegalArgumentException.class, () -> a.plan(List.of(new ReadPlanner.Request(
                new long[]{10, 0, 0, 0}, new long[]{13, 3, 10, 14}, new long[]{0, 0, 0, 0})), new long[]{3, 3, 10, 14}));
        assertThrows(IllegalArgumentException.class, () -> a.plan(List.of(new ReadPlanner.Request(
                new long[]{0, 0, 0, 0}, new long[]{3, 3, 10, 14}, new long[]{1, 0, 0, 0})), new long[]{3, 3, 10, 14}));
    }

    @Test
    void listenersHearEachReadStartAndEndWithItsSpans() {
        MemoryStore store = new MemoryStore();
        ZarrArray a = array(store, chains().getFirst(), new Random(SEED));
        List<String> heard = Collections.synchronizedList(new ArrayList<>());
        ReadListener l = new ReadListener() {
            @Override
            public void readStarted(long id, String what, ReadPlan plan) {
                heard.add("start " + plan.chunkCount());
            }

            @Override
            public void span(long id, String name, long start, long end, String detail) {
                assertTrue(end >= start);
                heard.add("span " + name);
            }

            @Override
            public void readFinished(long id, Throwable failure) {
                heard.add("end " + (failure == null ? "ok" : failure.getClass().getSimpleName()));
            }
        };
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        TraceListener trace = new TraceListener(new PrintStream(printed, true, StandardCharsets.UTF_8));
        ctx.engine().addListener(l);
        ctx.engine().addListener(trace);
        try {
            try (Tensor t = a.read(Selection.parse("0:4", SHAPE))) {
                assertEquals(List.of("start 2", "span read", "end ok"), heard);
            }
            heard.clear();
            store.set("v/" + a.metadata().chunkKey(new long[]{0, 0, 0, 0}), java.lang.foreign.MemorySegment.ofArray(new byte[]{1, 2, 3}));
            assertThrows(RuntimeException.class, () -> a.read(Selection.parse("0:2", SHAPE)));
            assertEquals("start 1", heard.getFirst());
            assertTrue(heard.getLast().startsWith("end ") && !heard.getLast().equals("end ok"), heard.toString());
        } finally {
            ctx.engine().removeListener(l);
            ctx.engine().removeListener(trace);
        }
        String out = printed.toString(StandardCharsets.UTF_8);
        assertTrue(out.startsWith("trace read array \"/v\""), out);
        assertTrue(out.contains("  read "), out);
        assertTrue(out.contains("(failed: "), out);
    }
}
