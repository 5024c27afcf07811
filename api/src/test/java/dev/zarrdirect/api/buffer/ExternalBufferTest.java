// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExternalBufferTest {

    private static final Device GPU = new Device(DeviceType.CUDA, 0);

    @Test
    void deviceMemoryExposesItsAddressButNoSegment() {
        ExternalBuffer b = ExternalBuffer.of(0x1000, 256, GPU, MemoryKind.DEVICE, () -> { });
        assertEquals(0x1000, b.address());
        assertEquals(256, b.byteSize());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, b::segment);
        assertTrue(e.getMessage().contains("ExternalBuffer[cuda:0 DEVICE 256 B at 0x1000]"), e.getMessage());
        b.close();
    }

    @Test
    void hostKindsExposeTheSameBytesAsASegment() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mem = arena.allocate(16);
            mem.set(JAVA_INT, 4, 77);
            ExternalBuffer b = ExternalBuffer.of(mem.address(), 16, Device.CPU, MemoryKind.HOST_PINNED, () -> { });
            assertEquals(77, b.segment().get(JAVA_INT, 4));
            assertEquals(77, b.slice(4, 4).segment().get(JAVA_INT, 0));
            b.close();
        }
    }

    @Test
    void closeRunsTheReleaseExactlyOnceAndASecondCloseThrows() {
        AtomicInteger released = new AtomicInteger();
        ExternalBuffer b = ExternalBuffer.of(0x2000, 64, GPU, MemoryKind.MANAGED, released::incrementAndGet);
        b.close();
        assertThrows(IllegalStateException.class, b::close);
        assertEquals(1, released.get());
        IllegalStateException e = assertThrows(IllegalStateException.class, b::address);
        assertTrue(e.getMessage().endsWith("is closed"), e.getMessage());
    }

    @Test
    void slicesAreViewsThatCannotBeClosedAndDieWithTheirOwner() {
        ExternalBuffer b = ExternalBuffer.of(0x4000, 100, GPU, MemoryKind.DEVICE, () -> { });
        ExternalBuffer view = b.slice(10, 20).slice(5, 5);
        assertTrue(view.isView());
        assertEquals(0x4000 + 15, view.address());
        assertThrows(UnsupportedOperationException.class, view::close);
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(90, 11));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(-1, 1));
        b.close();
        assertFalse(view.isOpen());
        assertThrows(IllegalStateException.class, view::address);
    }

    @Test
    void ofRefusesNegativeSizesAndNullAddressesForNonEmptyMemory() {
        assertThrows(IllegalArgumentException.class, () -> ExternalBuffer.of(0x1000, -1, GPU, MemoryKind.DEVICE, () -> { }));
        assertThrows(IllegalArgumentException.class, () -> ExternalBuffer.of(0, 8, GPU, MemoryKind.DEVICE, () -> { }));
        ExternalBuffer.of(0, 0, GPU, MemoryKind.DEVICE, () -> { }).close();
    }
}
