// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.exec;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.pipeline.DeviceDecoder;
import dev.zarrdirect.core.plan.ReadPlan;
import dev.zarrdirect.core.plan.ReadPlanner;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** How a plan is cut into device batches: sizes, the ramp, requests split across batches, fills. */
class DeviceBatchesTest {

    private static List<Integer> sizes(ArrayDeque<List<DeviceDecoder.Range>> batches) {
        List<Integer> out = new ArrayList<>();
        for (List<DeviceDecoder.Range> b : batches) {
            out.add(b.stream().filter(r -> r.key() != null).mapToInt(r -> r.tasks().size()).sum());
        }
        return out;
    }

    /** A sharded array of 5 shards x 12 inner chunks, shard 2 never written. */
    private static ReadPlan shardedPlan(ZarrContext ctx) {
        long[] shape = {5, 12, 8};
        CodecMetadata le = CodecMetadata.of("bytes", Map.of("endian", "little"));
        ZarrArray a = Zarr.createArray(ctx, new MemoryStore(), "", ArrayMetadata.create(shape, DataType.UINT16,
                new long[]{1, 12, 8}, FillValue.zero(DataType.UINT16), List.of(CodecMetadata.of("sharding_indexed",
                        Map.of("chunk_shape", List.of(1L, 1L, 8L), "codecs", List.of(le.toJson()),
                                "index_codecs", List.of(le.toJson()), "index_location", "end")))));
        try (Tensor t = Tensor.allocateHost(DataType.UINT16, shape)) {
            t.segment().fill((byte) 7);
            a.write(t);
        }
        a.store().delete(a.chunkKey(new long[]{2, 0, 0}));
        return a.plan(List.of(new ReadPlanner.Request(new long[]{0, 0, 0}, shape, new long[]{0, 0, 0})), shape);
    }

    @Test
    void batchesRampUpSplitRequestsAndCarryEachFillOnce() {
        try (ZarrContext ctx = ZarrContext.open("cpu", 1)) {
            ReadPlan plan = shardedPlan(ctx);
            assertEquals(48, plan.chunkCount());
            assertEquals(4, plan.ranges().size(), "one coalesced request per written shard");
            assertEquals(1, plan.fills().size());
            assertEquals(List.of(10, 10, 10, 10, 8), sizes(DevicePipeline.batches(plan, 10, 10)));
            assertEquals(List.of(3, 6, 10, 10, 10, 9), sizes(DevicePipeline.batches(plan, 10, 3)));
            assertEquals(List.of(48), sizes(DevicePipeline.batches(plan, 128, 128)));
            ArrayDeque<List<DeviceDecoder.Range>> b = DevicePipeline.batches(plan, 7, 7);
            // shard 2's fill rides with the batch that reaches its place in the plan, once
            assertEquals(1, b.stream().flatMap(List::stream).filter(r -> r.key() == null).count());
            List<DeviceDecoder.Range> withFill = b.stream().filter(x -> x.stream().anyMatch(r -> r.key() == null))
                    .findFirst().orElseThrow();
            List<String> keys = withFill.stream().map(r -> String.valueOf(r.key())).toList();
            assertEquals(List.of("c/1/0/0", "null", "c/3/0/0"), keys, "shard 2's fill sits between shards 1 and 3");
            // a request split over batches reads only the span of its own chunks, in order
            for (List<DeviceDecoder.Range> batch : b) {
                for (DeviceDecoder.Range r : batch) {
                    if (r.key() == null) {
                        continue;
                    }
                    long lo = r.tasks().stream().mapToLong(DeviceDecoder.Task::offset).min().orElseThrow();
                    long hi = r.tasks().stream().mapToLong(t -> t.offset() + t.length()).max().orElseThrow();
                    assertEquals(lo, r.offset());
                    assertEquals(hi - lo, r.length());
                }
            }
            int total = sizes(b).stream().mapToInt(Integer::intValue).sum();
            assertEquals(48, total);
        }
    }

    @Test
    void anEmptyPlanHasNoBatches() {
        try (ZarrContext ctx = ZarrContext.open("cpu", 1)) {
            long[] shape = {4, 4};
            ZarrArray a = Zarr.createArray(ctx, new MemoryStore(), "", ArrayMetadata.create(shape, DataType.UINT8,
                    new long[]{2, 2}, FillValue.zero(DataType.UINT8), List.of(CodecMetadata.of("bytes", Map.of()))));
            ReadPlan plan = a.plan(List.of(new ReadPlanner.Request(new long[]{1, 1}, new long[]{1, 3}, new long[]{0, 0})),
                    new long[]{0, 2});
            assertEquals(0, plan.chunkCount());
            assertTrue(DevicePipeline.batches(plan, 4, 4).isEmpty());
        }
    }

    @Test
    void batchSizeIsCutByBytesAndNeverZero() {
        try (ZarrContext ctx = ZarrContext.builder().backend("cpu").threads(1)
                .readSettings(new dev.zarrdirect.core.ReadSettings(3, 16, 1000, 0, false)).open()) {
            ReadEngine e = dev.zarrdirect.core.ContextInternals.engine(ctx);
            assertEquals(10, e.batchSize(100));
            assertEquals(16, e.batchSize(10));
            assertEquals(1, e.batchSize(1L << 40));
            assertEquals(16, e.batchSize(0));
        }
    }
}
