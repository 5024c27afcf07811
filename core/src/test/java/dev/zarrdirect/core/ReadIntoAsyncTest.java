// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.buffer.ExternalBuffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.plan.ReadPlan;
import dev.zarrdirect.core.plan.ReadPlanner;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReadIntoAsyncTest {

    @Test
    void aPlanIsReadIntoTheCallersBufferAndMemoryOfAnotherDeviceIsRefused() throws Exception {
        try (MemoryStore store = new MemoryStore(); ZarrContext ctx = ZarrContext.open("cpu")) {
            ZarrArray a = Zarr.createArray(ctx, store, "a", ArrayMetadata.create(new long[] {4, 6}, DataType.INT32,
                    new long[] {2, 4}, FillValue.zero(DataType.INT32),
                    List.of(CodecMetadata.of("bytes", Map.of("endian", "little")))));
            try (Tensor t = Tensor.allocateHost(DataType.INT32, 4, 6)) {
                for (int i = 0; i < 24; i++) {
                    t.segment().setAtIndex(ValueLayout.JAVA_INT, i, i);
                }
                a.write(t);
            }
            // rows 3 and 1, columns 2..5, stacked: the second request lands in row 0 of the destination
            ReadPlan plan = a.plan(List.of(new ReadPlanner.Request(new long[] {3, 2}, new long[] {4, 5}, new long[] {1, 0}),
                    new ReadPlanner.Request(new long[] {1, 2}, new long[] {2, 5}, new long[] {0, 0})), new long[] {2, 3});
            try (HostBuffer dest = HostBuffer.allocate(64)) {
                a.readIntoAsync(plan, dest).get();
                int[] got = new int[6];
                for (int i = 0; i < 6; i++) {
                    got[i] = dest.segment().getAtIndex(ValueLayout.JAVA_INT, i);
                }
                assertArrayEquals(new int[] {8, 9, 10, 20, 21, 22}, got);
            }
            var device = ExternalBuffer.of(0x1000, 64, new Device(DeviceType.CUDA, 0), MemoryKind.DEVICE, () -> { });
            assertThrows(IllegalArgumentException.class, () -> a.readIntoAsync(plan, device));
            try (HostBuffer small = HostBuffer.allocate(8)) {
                assertThrows(IllegalArgumentException.class, () -> a.readIntoAsync(plan, small));
            }
        }
    }
}
