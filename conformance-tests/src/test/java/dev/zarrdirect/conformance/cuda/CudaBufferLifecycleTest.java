// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.CudaBuffer;
import dev.zarrdirect.cuda.driver.CudaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.*;

/** Device, pinned and managed buffers of the cuda backend follow the Buffer contract. */
class CudaBufferLifecycleTest {

    CudaBackend backend;
    Device cuda0;

    @BeforeEach
    void open() {
        backend = CudaTests.open();
        cuda0 = backend.defaultDevice();
    }

    @AfterEach
    void close() {
        if (backend != null) {
            try {
                backend.assertNoLiveBuffers();
            } finally {
                backend.close();
            }
        }
    }

    @Test
    void everyOperationOnAClosedDeviceBufferFailsNamingIt() {
        Buffer b = backend.allocate(cuda0, MemoryKind.DEVICE, 64L << 20);
        Buffer view = b.slice(1024, 4096);
        assertInstanceOf(CudaBuffer.class, b);
        assertEquals(MemoryKind.DEVICE, b.kind());
        assertEquals(new Device(DeviceType.CUDA, 0), b.device());
        assertNotEquals(0, b.address());
        assertEquals(b.address() + 1024, view.address());
        assertTrue(view.isView());
        assertThrows(UnsupportedOperationException.class, view::close);
        assertThrows(UnsupportedOperationException.class, b::segment);
        b.close();
        assertFalse(b.isOpen());
        assertFalse(view.isOpen());
        List<Consumer<Buffer>> ops = List.of(Buffer::address, x -> x.slice(0, 1), Buffer::segment,
                x -> backend.copy(x, 0, x, 8, 8), x -> backend.fill(x, 0, 1, MemorySegment.ofArray(new byte[]{1})));
        for (Buffer x : List.of(b, view)) {
            for (Consumer<Buffer> op : ops) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> op.accept(x));
                assertTrue(e.getMessage().contains("CudaBuffer[cuda:0 DEVICE") && e.getMessage().endsWith("is closed"),
                        e.getMessage());
            }
        }
        IllegalStateException twice = assertThrows(IllegalStateException.class, b::close);
        assertTrue(twice.getMessage().contains("already closed"), twice.getMessage());
    }

    @Test
    void liveBuffersCountsWhatIsOpenAndAssertNamesIt() {
        long before = backend.liveBuffers();
        Buffer d = backend.allocate(cuda0, MemoryKind.DEVICE, 1000);
        Buffer p = backend.allocate(cuda0, MemoryKind.HOST_PINNED, 1000);
        assertEquals(before + 2, backend.liveBuffers());
        IllegalStateException e = assertThrows(IllegalStateException.class, backend::assertNoLiveBuffers);
        assertTrue(e.getMessage().contains("CudaBuffer[cuda:0 DEVICE"), e.getMessage());
        assertTrue(e.getMessage().contains("HOST_PINNED"), e.getMessage());
        d.close();
        p.close();
        assertEquals(before, backend.liveBuffers());
    }

    @Test
    void deviceMemoryIsZeroedAndPinnedMemoryIsHostAccessible() {
        try (Buffer d = backend.allocate(cuda0, MemoryKind.DEVICE, 1 << 20);
             Buffer p = backend.allocate(cuda0, MemoryKind.HOST_PINNED, 1 << 20)) {
            assertEquals(DeviceType.CUDA_HOST, p.device().type());
            p.segment().fill((byte) 0x33);
            backend.copy(d, 0, p, 0, 1 << 20);
            for (long i = 0; i < (1 << 20); i++) {
                assertEquals(0, p.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, i), "byte " + i);
            }
        }
    }

    @Test
    void zeroByteBuffersWork() {
        try (Buffer d = backend.allocate(cuda0, MemoryKind.DEVICE, 0);
             Buffer p = backend.allocate(cuda0, MemoryKind.HOST_PINNED, 0)) {
            backend.copy(p, 0, d, 0, 0);
            assertEquals(0, d.byteSize());
        }
    }

    @Test
    void managedMemoryIsHostAccessibleAndNeverMoreThanIsFree() {
        try (Buffer m = backend.allocate(cuda0, MemoryKind.MANAGED, 1 << 20);
             Buffer d = backend.allocate(cuda0, MemoryKind.DEVICE, 1 << 20)) {
            m.segment().fill((byte) 7);
            backend.copy(m, 0, d, 0, 1 << 20);
            backend.fill(m, 0, 1 << 20, MemorySegment.ofArray(new byte[]{0}));
            backend.copy(d, 0, m, 0, 1 << 20);
            assertEquals(7, m.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, (1 << 20) - 1));
        }
        long free = backend.driver().memGetInfo()[0];
        CudaException e = assertThrows(CudaException.class,
                () -> backend.allocate(cuda0, MemoryKind.MANAGED, free + (1L << 30)));
        assertTrue(e.getMessage().contains("MANAGED") && e.getMessage().contains("free"), e.getMessage());
    }

    @Test
    void allocationsBeyondTheDeviceFailWithTheFreeMemory() {
        long total = backend.cudaDevice(cuda0).totalMemory();
        CudaException e = assertThrows(CudaException.class, () -> backend.allocate(cuda0, MemoryKind.DEVICE, 2 * total));
        assertTrue(e.getMessage().contains("free"), e.getMessage());
    }

    @Test
    void closingTheBackendTwiceIsHarmlessAndItRefusesWorkAfterwards() {
        CudaBackend other = CudaTests.open();
        Buffer leaked = other.allocate(cuda0, MemoryKind.DEVICE, 4096);
        other.close();
        other.close();
        assertThrows(IllegalStateException.class, () -> other.allocate(cuda0, MemoryKind.DEVICE, 1));
        leaked.close(); // frees nothing more: the backend freed it
    }
}
