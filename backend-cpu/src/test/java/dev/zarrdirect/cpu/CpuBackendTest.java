// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.BackendProvider;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.CodecProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.*;

class CpuBackendTest {

    private final CpuBackend backend = Chunks.trackingBackend();

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    @Test
    void serviceLoaderFindsTheProviderWhoseProbeNamesCoresAndZstd() {
        BackendProvider p = ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(x -> x.name().equals("cpu")).findFirst().orElseThrow();
        assertEquals(0, p.priority());
        ProbeResult r = p.probe();
        assertTrue(r.available());
        assertEquals(List.of(Device.CPU), r.devices());
        assertTrue(r.reason().matches("CPU: \\d+ cores?, zstd-jni 1\\.5\\.7.*"), r.reason());
        try (Backend b = p.open()) {
            assertEquals("cpu", b.name());
            assertEquals(1, b.preferredBatchSize());
            assertEquals(Device.CPU, b.defaultDevice());
        }
    }

    @Test
    void serviceLoaderFindsTheCodecProviderWithEveryCpuCodec() {
        CodecProvider p = ServiceLoader.load(CodecProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(x -> x.name().equals("cpu")).findFirst().orElseThrow();
        assertEquals(java.util.Set.of(DeviceType.CPU), p.deviceTypes());
        assertEquals(java.util.Set.of("bytes", "transpose", "crc32c", "gzip", "zstd", "blosc", "numcodecs.zlib", "zlib",
                "numcodecs.shuffle", "numcodecs.delta"), p.codecNames());
        for (String name : p.codecNames()) {
            Map<String, Object> cfg = name.equals("transpose") ? Map.of("order", List.of(0L))
                    : name.equals("numcodecs.delta") ? Map.of("dtype", "<i4") : Map.of();
            var codec = p.create(name, cfg, Device.CPU).orElseThrow();
            assertEquals(name, codec.name());
            assertEquals(Device.CPU, codec.device());
            assertEquals("cpu", codec.provider());
        }
        assertTrue(p.create("zstd", Map.of(), new Device(DeviceType.CUDA, 0)).isEmpty());
        assertTrue(p.create("blosc", Map.of(), new Device(DeviceType.CUDA, 0)).isEmpty());
        assertTrue(p.create("lz4", Map.of(), Device.CPU).isEmpty());
    }

    @Test
    void allocateReturnsZeroedHostMemoryOfTheKindAskedFor() {
        for (MemoryKind kind : List.of(MemoryKind.HOST, MemoryKind.HOST_PINNED)) {
            try (HostBuffer b = backend.allocate(Device.CPU, kind, 5000)) {
                b.segment().fill((byte) 1);
            }
            try (HostBuffer b = backend.allocate(Device.CPU, kind, 5000)) {
                assertEquals(kind, b.kind());
                assertEquals(Device.CPU, b.device());
                assertEquals(-1, b.segment().mismatch(MemorySegment.ofArray(new byte[5000])));
            }
        }
    }

    @Test
    void allocateRefusesOtherDevicesKindsAndNegativeSizes() {
        IllegalArgumentException dev = assertThrows(IllegalArgumentException.class,
                () -> backend.allocate(new Device(DeviceType.CUDA, 0), MemoryKind.HOST, 1));
        assertTrue(dev.getMessage().contains("cuda:0"), dev.getMessage());
        IllegalArgumentException kind = assertThrows(IllegalArgumentException.class,
                () -> backend.allocate(Device.CPU, MemoryKind.DEVICE, 1));
        assertTrue(kind.getMessage().contains("DEVICE"), kind.getMessage());
        assertThrows(IllegalArgumentException.class, () -> backend.allocate(Device.CPU, MemoryKind.HOST, -1));
    }

    @Test
    void fillRepeatsPatternsOfEverySizeExactlyOverTheRange() {
        for (int p = 1; p <= 16; p++) {
            byte[] pattern = new byte[p];
            for (int i = 0; i < p; i++) {
                pattern[i] = (byte) (i * 37 + 1);
            }
            for (long count : new long[] {0, 1, 7, 4097, 300_001}) {
                long total = count * p;
                try (HostBuffer b = backend.allocate(Device.CPU, MemoryKind.HOST, total + 10)) {
                    b.segment().fill((byte) 0x55);
                    backend.fill(b, 5, count, MemorySegment.ofArray(pattern));
                    MemorySegment s = b.segment();
                    for (long i = 0; i < total; i += (total < 10_000 ? 1 : 997)) {
                        assertEquals(pattern[(int) (i % p)], s.get(ValueLayout.JAVA_BYTE, 5 + i),
                                "pattern " + p + " count " + count + " at " + i);
                    }
                    if (total > 0) {
                        assertEquals(pattern[(int) ((total - 1) % p)], s.get(ValueLayout.JAVA_BYTE, 5 + total - 1));
                    }
                    for (long i = 0; i < 5; i++) {
                        assertEquals(0x55, s.get(ValueLayout.JAVA_BYTE, i), "before the range");
                        assertEquals(0x55, s.get(ValueLayout.JAVA_BYTE, 5 + total + i), "after the range");
                    }
                }
            }
        }
    }

    @Test
    void fillRejectsBadPatternsAndRangesPastTheEnd() {
        try (HostBuffer b = backend.allocate(Device.CPU, MemoryKind.HOST, 64)) {
            assertThrows(IllegalArgumentException.class, () -> backend.fill(b, 0, 1, MemorySegment.ofArray(new byte[17])));
            assertThrows(IllegalArgumentException.class, () -> backend.fill(b, 0, 1, MemorySegment.ofArray(new byte[0])));
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                    () -> backend.fill(b, 8, 15, MemorySegment.ofArray(new byte[4])));
            assertTrue(e.getMessage().contains("60 bytes at 8") && e.getMessage().contains("length 64"), e.getMessage());
        }
    }

    @Test
    void copyMovesBytesBetweenBuffersAndWithinOne() {
        try (HostBuffer a = backend.allocate(Device.CPU, MemoryKind.HOST, 100);
             HostBuffer b = backend.allocate(Device.CPU, MemoryKind.HOST_PINNED, 100)) {
            for (int i = 0; i < 100; i++) {
                a.segment().set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            backend.copy(a, 10, b, 20, 50);
            assertEquals(10, b.segment().get(ValueLayout.JAVA_BYTE, 20));
            assertEquals(59, b.segment().get(ValueLayout.JAVA_BYTE, 69));
            assertEquals(0, b.segment().get(ValueLayout.JAVA_BYTE, 70));
            backend.copy(a, 0, a, 1, 99); // overlapping, as memmove
            assertEquals(0, a.segment().get(ValueLayout.JAVA_BYTE, 1));
            assertEquals(98, a.segment().get(ValueLayout.JAVA_BYTE, 99));
            assertThrows(IndexOutOfBoundsException.class, () -> backend.copy(a, 60, b, 0, 41));
        }
    }

    @Test
    void aLeakedBufferIsReportedUntilClosed() {
        HostBuffer leaked = backend.allocate(Device.CPU, MemoryKind.HOST, 10);
        assertEquals(1, backend.liveBuffers());
        IllegalStateException e = assertThrows(IllegalStateException.class, backend::assertNoLiveBuffers);
        assertTrue(e.getMessage().contains("aLeakedBufferIsReportedUntilClosed"), e.getMessage());
        leaked.close();
        assertEquals(0, backend.liveBuffers());
    }

    @Test
    void closingTheBackendTwiceIsHarmlessAndLaterAllocationsFail() {
        CpuBackend b = new CpuBackend();
        b.close();
        b.close();
        assertThrows(IllegalStateException.class, () -> b.allocate(Device.CPU, MemoryKind.HOST, 1));
    }
}
