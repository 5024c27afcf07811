// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.slots;

import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;

import java.util.Map;

/**
 * Slots in this process's host memory, for a consumer in the same JVM (the Java loader API and
 * tests).
 */
public final class HostSlots extends HostMemorySlots {

    public HostSlots(Backend backend, int count, long bytes) {
        super(backend);
        try {
            for (int i = 0; i < count; i++) {
                slots.add(HostBuffer.allocate(bytes));
            }
            allocateDeviceTarget(bytes);
        } catch (RuntimeException | Error e) {
            freeMemory();
            throw e;
        }
    }

    /** Slot {@code slot}'s memory, for the consumer. */
    public Buffer slot(int slot) {
        return slots.get(slot);
    }

    @Override
    public String memory() {
        return "host";
    }

    @Override
    public Map<String, Object> describe(int slot) {
        return Map.of("slot", slot, "bytes", slots.get(slot).byteSize());
    }

    @Override
    public void close() {
        freeMemory();
    }
}
