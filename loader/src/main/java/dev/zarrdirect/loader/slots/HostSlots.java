package dev.zarrdirect.loader.slots;

import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Slots in this process's host memory, for a consumer in the same JVM (the Java loader API and
 * tests). A device backend gathers into one device buffer and copies into the slot.
 */
public final class HostSlots implements Slots {

    private final Backend backend;
    private final List<Buffer> slots = new ArrayList<>();
    private final Buffer deviceTarget;

    public HostSlots(Backend backend, int count, long bytes) {
        this.backend = backend;
        try {
            for (int i = 0; i < count; i++) {
                slots.add(HostBuffer.allocate(bytes));
            }
            deviceTarget = backend.defaultDevice().isHost() ? null
                    : backend.allocateUninitialized(backend.defaultDevice(), MemoryKind.DEVICE, bytes);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** Slot {@code slot}'s memory, for the consumer. */
    public Buffer slot(int slot) {
        return slots.get(slot);
    }

    @Override
    public int count() {
        return slots.size();
    }

    @Override
    public String memory() {
        return "host";
    }

    @Override
    public Buffer gatherTarget(int slot) {
        return deviceTarget != null ? deviceTarget : slots.get(slot);
    }

    @Override
    public void beforeWrite(int slot) {
    }

    @Override
    public void publish(int slot, long bytes) {
        if (deviceTarget != null && bytes > 0) {
            backend.copy(deviceTarget, 0, slots.get(slot), 0, bytes);
        }
    }

    @Override
    public Map<String, Object> describe(int slot) {
        return Map.of("slot", slot, "bytes", slots.get(slot).byteSize());
    }

    @Override
    public void close() {
        for (Buffer b : slots) {
            if (b.isOpen()) {
                b.close();
            }
        }
        if (deviceTarget != null && deviceTarget.isOpen()) {
            deviceTarget.close();
        }
    }
}
