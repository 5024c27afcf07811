// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.slots;

import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.InterprocessMemory;
import dev.zarrdirect.api.buffer.Buffer;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Slots in device memory exported to the consumer with CUDA IPC: the batch is gathered straight
 * into them, never copied. Ordering is by the slab's two interprocess events: the consumer's stream
 * waits on {@code ready}, and this side waits on {@code released} before writing the slot again.
 */
public final class IpcSlots implements Slots {

    private final List<InterprocessMemory.SharedSlab> slabs = new ArrayList<>();

    public IpcSlots(Backend backend, InterprocessMemory ipc, int count, long bytes) {
        try {
            for (int i = 0; i < count; i++) {
                slabs.add(ipc.allocate(backend.defaultDevice(), bytes));
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    @Override
    public int count() {
        return slabs.size();
    }

    @Override
    public String memory() {
        return "cuda-ipc";
    }

    @Override
    public Buffer gatherTarget(int slot) {
        return slabs.get(slot).buffer();
    }

    @Override
    public void beforeWrite(int slot) {
        slabs.get(slot).awaitReleased();
    }

    @Override
    public void publish(int slot, long bytes) {
        slabs.get(slot).markReady();
    }

    @Override
    public Map<String, Object> describe(int slot) {
        InterprocessMemory.SharedSlab s = slabs.get(slot);
        HexFormat hex = HexFormat.of();
        return Map.of("slot", slot, "bytes", s.buffer().byteSize(), "handle", hex.formatHex(s.memoryHandle()),
                "ready_event", hex.formatHex(s.readyEventHandle()), "released_event",
                hex.formatHex(s.releasedEventHandle()));
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (InterprocessMemory.SharedSlab s : slabs) {
            try {
                s.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        slabs.clear();
        if (first != null) {
            throw first;
        }
    }
}
