// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.InterprocessMemory;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.CudaBuffer;
import dev.zarrdirect.cuda.ipc.CudaIpcMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.*;

/**
 * CUDA IPC slabs ({@code CudaBackend.interprocess()}): 64-byte handles, distinct per slab; a gather
 * into a slab; the events (markReady, awaitReleased on an event never recorded); close and leaks; and
 * a real hand-off to a second process ({@link CudaIpcConsumer}) that opens the handles, waits for
 * {@code ready}, reads the batch, overwrites it and records {@code released}. Skips without CUDA.
 */
class CudaIpcMemoryTest {

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

    InterprocessMemory ipc() {
        return backend.interprocess().orElseThrow(() -> new AssertionError("the cuda backend offers no CUDA IPC"));
    }

    @Test
    void slabsHaveSixtyFourByteHandlesDistinctPerSlab() {
        InterprocessMemory ipc = ipc();
        assertInstanceOf(CudaIpcMemory.class, ipc);
        try (var a = ipc.allocate(cuda0, 1 << 20); var b = ipc.allocate(cuda0, 3 << 20)) {
            List<byte[]> handles = new ArrayList<>();
            for (var s : List.of(a, b)) {
                for (byte[] h : List.of(s.memoryHandle(), s.readyEventHandle(), s.releasedEventHandle())) {
                    assertEquals(64, h.length);
                    for (byte[] seen : handles) {
                        assertFalse(java.util.Arrays.equals(seen, h), "two handles are the same bytes");
                    }
                    handles.add(h);
                }
                assertArrayEquals(s.memoryHandle(), s.memoryHandle(), "a handle is the same on every call");
                assertEquals(MemoryKind.DEVICE, s.buffer().kind());
                assertEquals(cuda0, s.buffer().device());
                assertTrue(s.buffer().isView(), "the slab's buffer is a view: the slab owns the memory");
                assertThrows(UnsupportedOperationException.class, () -> s.buffer().close());
            }
            assertEquals(1 << 20, a.buffer().byteSize());
            assertEquals(2, backend.liveBuffers());
        }
        assertEquals(0, backend.liveBuffers());
    }

    @Test
    void aGatherIntoASlabIsWhatRunOnHostWritesAndTheEventsWork() {
        long pe = 721 * 1440 / 16;
        Random r = CudaTests.random("ipc gather");
        try (Arena ar = Arena.ofConfined();
             var slab = ipc().allocate(cuda0, 4 * pe * 2);
             Buffer src = backend.allocate(cuda0, MemoryKind.DEVICE, 3 * pe * 4)) {
            MemorySegment host = ar.allocate(3 * pe * 4, 64);
            for (long i = 0; i < 3 * pe; i++) {
                host.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) (r.nextGaussian() * 50));
            }
            backend.copy(HostBuffer.wrap(host), 0, src, 0, host.byteSize());
            long[] sp = {2, 0, 2, 1};
            long[] dp = {3, 1, 0, 2};
            float[] sc = {0.1f, 0.2f, 0.3f, 0.4f};
            float[] sh = {1, -1, 0, 5};
            MemorySegment want = ar.allocate(4 * pe * 2, 64);
            new PlaneGather(HostBuffer.wrap(host), 0, DataType.FLOAT32, HostBuffer.wrap(want), 0,
                    PlaneGather.Output.BFLOAT16, pe, sp, dp, sc, sh, false, 0).runOnHost(0, 4);
            backend.gather(new PlaneGather(src, 0, DataType.FLOAT32, slab.buffer(), 0, PlaneGather.Output.BFLOAT16, pe,
                    sp, dp, sc, sh, false, 0));
            slab.markReady();
            slab.awaitReleased(); // never recorded by a consumer: returns at once
            MemorySegment got = ar.allocate(want.byteSize(), 64);
            backend.copy(slab.buffer(), 0, HostBuffer.wrap(got), 0, got.byteSize());
            assertEquals(-1, want.mismatch(got), "seed " + CudaTests.SEED);
            slab.markReady(); // again, for the next batch
        }
    }

    @Test
    void aClosedSlabFailsLoudlyAndClosingItTwiceThrows() {
        var slab = ipc().allocate(cuda0, 4096);
        CudaBuffer view = (CudaBuffer) slab.buffer();
        assertEquals(1, backend.liveBuffers());
        slab.close();
        assertEquals(0, backend.liveBuffers());
        var e = assertThrows(IllegalStateException.class, slab::close);
        assertTrue(e.getMessage().contains("already closed"), e.getMessage());
        assertThrows(IllegalStateException.class, slab::buffer);
        assertThrows(IllegalStateException.class, slab::memoryHandle);
        assertThrows(IllegalStateException.class, slab::markReady);
        assertThrows(IllegalStateException.class, slab::awaitReleased);
        assertThrows(IllegalStateException.class, view::address);
        assertThrows(IllegalArgumentException.class, () -> ipc().allocate(cuda0, 0));
        assertThrows(IllegalArgumentException.class, () -> ipc().allocate(Device.CPU, 64));
    }

    @Test
    void slabsLeftOpenAreReportedAndFreedWithTheBackend() {
        var slab = ipc().allocate(cuda0, 1 << 16);
        var e = assertThrows(IllegalStateException.class, backend::assertNoLiveBuffers);
        assertTrue(e.getMessage().contains("1 buffer(s)"), e.getMessage());
        backend.close();
        assertThrows(IllegalStateException.class, slab::buffer);
        slab.close(); // its owner's one close, after the backend freed it: nothing more
        assertThrows(IllegalStateException.class, slab::close);
        backend = null;
    }

    /**
     * The class path of the consumer: where this test's classes and the backend's came from, then the
     * JVM's own path. Under surefire java.class.path has it all; under the JUnit console launcher of
     * the GPU machine the classes come through its --class-path and only their code sources say where.
     */
    private static String childClassPath() throws Exception {
        java.util.LinkedHashSet<String> parts = new java.util.LinkedHashSet<>();
        for (Class<?> c : List.of(CudaIpcConsumer.class, dev.zarrdirect.cuda.CudaBackend.class,
                dev.zarrdirect.api.backend.Backend.class, dev.zarrdirect.kernels.ZdStatus.class)) {
            parts.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        }
        parts.addAll(List.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator)));
        return String.join(java.io.File.pathSeparator, parts);
    }

    @Test
    void anotherProcessOpensTheSlabWaitsForReadyReadsTheBatchAndReleasesIt() throws Exception {
        int bytes = (5 << 20) + 12;
        byte[] data = new byte[bytes];
        CudaTests.random("ipc child").nextBytes(data);
        CRC32 crc = new CRC32();
        crc.update(data);
        try (Arena ar = Arena.ofConfined(); var slab = ipc().allocate(cuda0, bytes)) {
            MemorySegment host = ar.allocate(bytes, 64);
            MemorySegment.copy(data, 0, host, ValueLayout.JAVA_BYTE, 0, bytes);
            backend.copy(HostBuffer.wrap(host), 0, slab.buffer(), 0, bytes);
            slab.markReady();
            HexFormat hex = HexFormat.of();
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", childClassPath(),
                    CudaIpcConsumer.class.getName(), hex.formatHex(slab.memoryHandle()),
                    hex.formatHex(slab.readyEventHandle()), hex.formatHex(slab.releasedEventHandle()),
                    Integer.toString(bytes), "90");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out;
            try {
                out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the consumer process did not end");
            } finally {
                p.destroyForcibly();
            }
            assertEquals(0, p.exitValue(), "the consumer process failed:\n" + out);
            assertTrue(out.contains("crc32 " + crc.getValue() + " first " + (data[0] & 0xFF)),
                    "the consumer read other bytes than were written:\n" + out);
            slab.awaitReleased();
            backend.copy(slab.buffer(), 0, HostBuffer.wrap(host), 0, bytes);
            byte[] after = host.toArray(ValueLayout.JAVA_BYTE);
            for (int i = 0; i < bytes; i++) {
                if (after[i] != 90) {
                    fail("byte " + i + " of the slab is " + after[i] + " after the consumer released it, not 90");
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot start a consumer process", e);
        }
    }
}
