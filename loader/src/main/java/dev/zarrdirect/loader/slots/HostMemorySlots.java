// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.slots;

import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;

import java.util.ArrayList;
import java.util.List;

/**
 * Slots in host memory, whatever maps it: a host backend gathers straight into the slot; a device
 * backend gathers into one device buffer (the producer finishes one batch at a time) and copies it
 * into the slot.
 */
abstract sealed class HostMemorySlots implements Slots permits HostSlots, ShmSlots {

    private final Backend backend;
    final List<Buffer> slots = new ArrayList<>();
    private Buffer deviceTarget;

    HostMemorySlots(Backend backend) {
        this.backend = backend;
    }

    /** Called by the subclass once its slots exist: the device buffer a device backend gathers into. */
    void allocateDeviceTarget(long bytes) {
        if (!backend.defaultDevice().isHost()) {
            deviceTarget = backend.allocateUninitialized(backend.defaultDevice(), MemoryKind.DEVICE, bytes);
        }
    }

    @Override
    public int count() {
        return slots.size();
    }

    @Override
    public Buffer gatherTarget(int slot) {
        return deviceTarget != null ? deviceTarget : slots.get(slot);
    }

    @Override
    public void beforeWrite(int slot) {
        // the consumer reads on the CPU and releases a slot only when it is done with it
    }

    @Override
    public void publish(int slot, long bytes) {
        if (deviceTarget != null && bytes > 0) {
            backend.copy(deviceTarget, 0, slots.get(slot), 0, bytes);
        }
    }

    /** Frees the slots and the device buffer; safe to call on a partly built instance. */
    void freeMemory() {
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
