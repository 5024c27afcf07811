// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.backend.BackendProvider;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.CodecProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

class OpenClBackendTest {

    private OpenClBackend backend;

    @BeforeEach
    void open() {
        backend = OpenCl.openOrSkip();
    }

    @AfterEach
    void noLeaks() {
        if (backend != null) {
            try {
                backend.assertNoLiveBuffers();
            } finally {
                backend.close();
            }
        }
    }

    private static byte[] random(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) r.nextInt();
        }
        return b;
    }

    private byte[] readAll(Buffer b) {
        try (HostBuffer h = (HostBuffer) backend.allocate(Device.CPU, MemoryKind.HOST, b.byteSize())) {
            backend.copy(b, 0, h, 0, b.byteSize());
            return h.segment().toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @Test
    void serviceLoaderFindsTheProviderWhoseProbeNamesEveryDevice() {
        BackendProvider p = ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(x -> x.name().equals("opencl")).findFirst().orElseThrow();
        ProbeResult r = p.probe();
        assertTrue(r.available(), r.reason());
        assertTrue(r.reason().startsWith("OpenCL: "), r.reason());
        assertTrue(r.reason().contains("using " + backend.device()), r.reason());
        assertTrue(r.devices().stream().allMatch(d -> d.type() == DeviceType.OPENCL), r.devices().toString());
        assertTrue(r.devices().contains(backend.device()));
        assertEquals(backend.isGpu() ? 20 : -10, p.priority());
        assertEquals(256, backend.preferredBatchSize());
        assertEquals(List.of(backend.device()), backend.devices());
    }

    @Test
    void serviceLoaderFindsTheCodecProviderForOpenClDevicesOnly() {
        CodecProvider p = ServiceLoader.load(CodecProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(x -> x.name().equals("opencl")).findFirst().orElseThrow();
        assertEquals(java.util.Set.of(DeviceType.OPENCL), p.deviceTypes());
        assertTrue(p.codecNames().containsAll(java.util.Set.of("bytes", "transpose", "crc32c")), p.codecNames().toString());
        assertTrue(p.create("bytes", Map.of(), Device.CPU).isEmpty());
        assertTrue(p.create("rot13", Map.of(), backend.device()).isEmpty());
        assertEquals("opencl", p.create("numcodecs.delta", Map.of("dtype", "<i4"), backend.device()).orElseThrow().provider());
        // blosc decodes on the device, with every compressor blosc 1.x writes
        assertEquals("opencl", p.create("blosc", Map.of(), backend.device()).orElseThrow().provider());
        assertEquals("opencl", p.create("blosc", Map.of("cname", "zlib"), backend.device()).orElseThrow().provider());
        assertEquals("opencl", p.create("blosc", Map.of("cname", "zstd"), backend.device()).orElseThrow().provider());
        var codec = p.create("crc32c", Map.of(), backend.device()).orElseThrow();
        assertEquals("opencl", codec.provider());
        assertEquals(backend.device(), codec.device());
        assertThrows(IllegalArgumentException.class, () -> p.create("bytes", Map.of("endian", "middle"), backend.device()));
    }

    @Test
    void deviceChoiceTakesAnIndexANameOrTheFirstGpu() {
        long gpu = org.lwjgl.opencl.CL10.CL_DEVICE_TYPE_GPU;
        long cpu = org.lwjgl.opencl.CL10.CL_DEVICE_TYPE_CPU;
        var a = new ClDevices.Info(0, 1, 1, "Portable Computing Language", "pthread-haswell", cpu, "OpenCL 3.0", 1, 1, 4096, 1);
        var b = new ClDevices.Info(1, 2, 2, "NVIDIA CUDA", "NVIDIA H200", gpu, "OpenCL 3.0", 1, 1, 1024, 1);
        assertSame(b, ClDevices.choose(List.of(a, b), null).chosen());
        assertSame(a, ClDevices.choose(List.of(a), null).chosen());
        assertSame(a, ClDevices.choose(List.of(a, b), "0").chosen());
        assertSame(a, ClDevices.choose(List.of(a, b), "portable").chosen());
        assertSame(b, ClDevices.choose(List.of(a, b), "h200").chosen());
        String outOfRange = ClDevices.choose(List.of(a, b), "7").problem();
        assertTrue(outOfRange.contains("zarrdirect.opencl.device=7 is out of range") && outOfRange.contains("NVIDIA H200"),
                outOfRange);
        String noMatch = ClDevices.choose(List.of(a, b), "radeon").problem();
        assertTrue(noMatch.contains("\"radeon\" matches no platform or device name"), noMatch);
    }

    @Test
    void allocateReturnsZeroedMemoryOfEveryKind() {
        try (Buffer dirty = backend.allocate(backend.device(), MemoryKind.DEVICE, 5000)) {
            backend.fill(dirty, 0, 5000, MemorySegment.ofArray(new byte[]{7}));
        }
        for (MemoryKind kind : List.of(MemoryKind.DEVICE, MemoryKind.HOST_PINNED, MemoryKind.HOST)) {
            Device d = kind == MemoryKind.DEVICE ? backend.device() : Device.CPU;
            try (Buffer b = backend.allocate(d, kind, 5000)) {
                assertEquals(kind, b.kind());
                assertEquals(5000, b.byteSize());
                assertArrayEquals(new byte[5000], readAll(b), kind.toString());
            }
        }
        try (Buffer empty = backend.allocate(backend.device(), MemoryKind.DEVICE, 0)) {
            assertEquals(0, empty.byteSize());
        }
    }

    @Test
    void allocateRefusesOtherDevicesManagedMemoryAndNegativeSizes() {
        Device other = new Device(DeviceType.OPENCL, backend.device().index() + 1);
        var e = assertThrows(IllegalArgumentException.class, () -> backend.allocate(other, MemoryKind.DEVICE, 8));
        assertTrue(e.getMessage().contains("zarrdirect.opencl.device"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> backend.allocate(backend.device(), MemoryKind.MANAGED, 8));
        assertThrows(IllegalArgumentException.class, () -> backend.allocate(backend.device(), MemoryKind.DEVICE, -1));
        assertThrows(IllegalArgumentException.class,
                () -> backend.allocate(new Device(DeviceType.CUDA, 0), MemoryKind.HOST_PINNED, 8));
    }

    @Test
    void pinnedMemoryIsAHostSegmentThatOutlivesNothing() {
        HostBuffer pinned = (HostBuffer) backend.allocate(Device.CPU, MemoryKind.HOST_PINNED, 4096);
        MemorySegment seg = pinned.segment();
        seg.set(ValueLayout.JAVA_LONG, 8, 0x1122334455667788L);
        assertEquals(Device.CPU, pinned.device());
        assertEquals(1, backend.liveBuffers());
        pinned.close();
        assertEquals(0, backend.liveBuffers());
        assertThrows(IllegalStateException.class, pinned::segment);
        assertThrows(IllegalStateException.class, () -> seg.get(ValueLayout.JAVA_LONG, 8),
                "a segment taken before close must not reach unmapped memory");
    }

    @Test
    void copiesInEveryDirectionMoveRandomBytesAtRandomOffsets() {
        long seed = System.nanoTime();
        SplittableRandom r = new SplittableRandom(seed);
        for (int round = 0; round < 20; round++) {
            int n = r.nextInt(1, 70_000);
            int srcOff = r.nextInt(0, 300);
            int devOff = r.nextInt(0, 300);
            int dev2Off = r.nextInt(0, 300);
            int backOff = r.nextInt(0, 300);
            byte[] data = random(r, n);
            String where = "seed " + seed + " round " + round + " n=" + n;
            MemoryKind hostKind = round % 3 == 0 ? MemoryKind.HOST_PINNED : MemoryKind.HOST;
            try (Buffer host = backend.allocate(Device.CPU, hostKind, srcOff + n);
                 Buffer dev = backend.allocate(backend.device(), MemoryKind.DEVICE, devOff + n + 17);
                 Buffer dev2 = backend.allocate(backend.device(), MemoryKind.DEVICE, dev2Off + n);
                 Buffer back = backend.allocate(Device.CPU, hostKind, backOff + n)) {
                MemorySegment.copy(MemorySegment.ofArray(data), 0, host.segment(), srcOff, n);
                backend.copy(host, srcOff, dev, devOff, n);                    // host -> device
                backend.copy(dev.slice(devOff, n), 0, dev2, dev2Off, n);       // device -> device, via a view
                backend.copy(dev2, dev2Off, back, backOff, n);                 // device -> host
                assertArrayEquals(data, back.segment().asSlice(backOff, n).toArray(ValueLayout.JAVA_BYTE), where);
                // A heap segment on either side goes through native staging.
                byte[] heap = new byte[n];
                backend.copy(dev2, dev2Off, HostBuffer.wrap(MemorySegment.ofArray(heap)), 0, n);
                assertArrayEquals(data, heap, where + " to heap");
                byte[] heap2 = random(r, n);
                backend.copy(HostBuffer.wrap(MemorySegment.ofArray(heap2)), 0, dev, devOff, n);
                assertArrayEquals(heap2, readAll(dev.slice(devOff, n)), where + " from heap");
                // Overlapping device -> device within one buffer, as memmove.
                int shift = r.nextInt(1, 17);
                backend.copy(dev, devOff, dev, devOff + shift, n);
                assertArrayEquals(heap2, readAll(dev.slice(devOff + shift, n)), where + " overlapping shift " + shift);
            }
        }
    }

    @Test
    void eachThreadKeepsToOneQueueAndThreadsSpreadOverThem() throws Exception {
        int n = backend.queueCount();
        assertEquals(backend.openClSettings().queues(), n);
        long mine = backend.queue();
        assertEquals(mine, backend.queue(), "one thread, one queue");
        java.util.Set<Long> seen = new java.util.HashSet<>(List.of(mine));
        for (int t = 1; t < n; t++) {
            long[] q = new long[2];
            Thread th = Thread.ofPlatform().start(() -> {
                q[0] = backend.queue();
                q[1] = backend.queue();
            });
            th.join();
            assertEquals(q[0], q[1], "thread " + t);
            seen.add(q[0]);
        }
        assertEquals(n, seen.size(), "the first " + n + " threads take every queue once");
    }

    @Test
    void copiesGoOnAQueueOfTheirOwnBesideEachLanesLaunches() throws Exception {
        // a copy must not wait behind a kernel another thread of its lane launched: the transfer
        // queues are none of the launch queues, and each thread keeps to one of them too
        int n = backend.queueCount();
        java.util.Set<Long> launch = new java.util.HashSet<>();
        java.util.Set<Long> transfer = new java.util.HashSet<>();
        for (int t = 0; t < n; t++) {
            long[] q = new long[3];
            Thread th = Thread.ofPlatform().start(() -> {
                q[0] = backend.queue();
                q[1] = backend.transferQueue();
                q[2] = backend.transferQueue();
            });
            th.join();
            assertEquals(q[1], q[2], "thread " + t + " keeps to one transfer queue");
            launch.add(q[0]);
            transfer.add(q[1]);
        }
        assertEquals(n, transfer.size(), "a transfer queue for each lane");
        assertTrue(java.util.Collections.disjoint(launch, transfer), launch + " and " + transfer);
    }

    @Test
    void threadsOnDifferentQueuesCopyFillAndLaunchWithoutSeeingEachOthersWork() throws Exception {
        // each thread writes, fills, copies on the device and reads back in a loop, on its own
        // queue; a command that ran before the one it follows on another thread would show here
        long seed = System.nanoTime();
        int threads = backend.queueCount() + 1;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    SplittableRandom r = new SplittableRandom(seed + id);
                    for (int round = 0; round < 25; round++) {
                        int len = r.nextInt(1, 1 << 18);
                        byte[] data = random(r, len);
                        String where = "seed " + seed + " thread " + id + " round " + round + " n=" + len;
                        try (Buffer host = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST_PINNED, len);
                             Buffer a = backend.allocateUninitialized(backend.device(), MemoryKind.DEVICE, len);
                             Buffer b = backend.allocateUninitialized(backend.device(), MemoryKind.DEVICE, len)) {
                            MemorySegment.copy(MemorySegment.ofArray(data), 0, host.segment(), 0, len);
                            backend.copy(host, 0, a, 0, len);
                            backend.fill(b, 0, len, MemorySegment.ofArray(new byte[]{(byte) id}));
                            int half = len / 2;
                            backend.copy(a, 0, b, 0, half);
                            byte[] got = readAll(b);
                            for (int i = 0; i < len; i++) {
                                byte want = i < half ? data[i] : (byte) id;
                                if (got[i] != want) {
                                    fail(where + ": byte " + i + " is " + got[i] + ", expected " + want);
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void copyChecksRangesAndNamesTheBuffer() {
        try (Buffer dev = backend.allocate(backend.device(), MemoryKind.DEVICE, 100);
             Buffer host = backend.allocate(Device.CPU, MemoryKind.HOST, 100)) {
            var e = assertThrows(IndexOutOfBoundsException.class, () -> backend.copy(host, 0, dev, 50, 51));
            assertTrue(e.getMessage().contains("51 bytes at 50 run past the end (length 100) of copy destination"
                    + " OpenClBuffer[opencl:"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> backend.copy(host, -1, dev, 0, 1));
        }
    }

    @Test
    void closedBuffersAndViewsFailLoudlyNamingTheBuffer() {
        OpenClBuffer b = (OpenClBuffer) backend.allocate(backend.device(), MemoryKind.DEVICE, 64 << 10);
        OpenClBuffer view = b.slice(1024, 4096);
        assertEquals(1024, view.offset());
        assertTrue(view.isView());
        var addr = assertThrows(UnsupportedOperationException.class, b::address);
        assertTrue(addr.getMessage().contains("mem() and offset()"), addr.getMessage());
        assertThrows(UnsupportedOperationException.class, b::segment);
        assertThrows(UnsupportedOperationException.class, view::close);
        b.close();
        var closed = assertThrows(IllegalStateException.class, b::mem);
        assertTrue(closed.getMessage().matches("OpenClBuffer\\[opencl:\\d+ DEVICE 64 KiB #\\d+] is closed"),
                closed.getMessage());
        assertThrows(IllegalStateException.class, view::offset);
        assertThrows(IllegalStateException.class, () -> b.slice(0, 1));
        assertThrows(IllegalStateException.class, () -> backend.copy(b, 0, view, 0, 1));
        var twice = assertThrows(IllegalStateException.class, b::close);
        assertTrue(twice.getMessage().endsWith("is already closed"), twice.getMessage());
        assertFalse(view.isOpen());
    }

    @Test
    void fillRepeatsPatternsOfEverySizeAtAnyOffset() {
        SplittableRandom r = new SplittableRandom(42);
        for (int p = 1; p <= 16; p++) {
            byte[] pattern = random(r, p);
            int off = r.nextInt(0, 40);
            int count = r.nextInt(0, 3000);
            try (Buffer dev = backend.allocate(backend.device(), MemoryKind.DEVICE, off + (long) count * p + 9)) {
                backend.fill(dev, off, count, MemorySegment.ofArray(pattern));
                byte[] got = readAll(dev);
                byte[] want = new byte[got.length];
                for (int i = 0; i < count * p; i++) {
                    want[off + i] = pattern[i % p];
                }
                assertArrayEquals(want, got, "pattern of " + p + " bytes at offset " + off + ", count " + count);
            }
        }
    }

    @Test
    void leaksAreReportedWithTheirAllocationStack() {
        Buffer leaked = backend.allocate(backend.device(), MemoryKind.DEVICE, 128);
        var e = assertThrows(IllegalStateException.class, backend::assertNoLiveBuffers);
        assertTrue(e.getMessage().contains("1 buffer of the OpenCL backend on " + backend.device() + " still open"),
                e.getMessage());
        assertTrue(e.getMessage().contains("leaksAreReportedWithTheirAllocationStack"), e.getMessage());
        leaked.close();
        backend.assertNoLiveBuffers();
    }

    @Test
    void closeReleasesEverythingAndIsHarmlessTwice() {
        OpenClBackend other = OpenCl.openOrSkip();
        Buffer dev = other.allocate(other.device(), MemoryKind.DEVICE, 1024);
        Buffer pinned = other.allocate(Device.CPU, MemoryKind.HOST_PINNED, 1024);
        other.close();
        other.close();
        assertEquals(0, other.liveBuffers());
        assertThrows(IllegalStateException.class, () -> other.allocate(other.device(), MemoryKind.DEVICE, 8));
        dev.close(); // its cl_mem went with the backend; closing the handle frees nothing twice
        pinned.close();
    }

    @Test
    void programsAreBuiltOnceAndBuildFailuresCarryTheLog() throws Throwable {
        ProgramCache cache = backend.programs();
        String src = "kernel void zd_probe(global uint *x) { x[get_global_id(0)] = 7u; }\n";
        int before = cache.builds();
        ClKernel k1 = cache.kernel("probe.cl", src, "", "zd_probe");
        ClKernel k2 = cache.kernel("probe.cl", src, "", "zd_probe");
        assertSame(k1, k2);
        assertEquals(before + 1, cache.builds());
        cache.kernel("probe.cl", src, "-DANOTHER=1", "zd_probe");
        assertEquals(before + 2, cache.builds(), "other build options are another program");
        // The driver's compiler may also print the error on the native stderr ("1 error generated."):
        // the build log in the exception is what is checked, so that copy is silenced.
        var e = NativeStderr.silenced(() -> assertThrows(OpenClException.class,
                () -> cache.kernel("broken.cl", "kernel void f(global int *x) { x[0] = undefined_name; }", "", "f")));
        assertTrue(e.getMessage().startsWith("building broken.cl with options \"\" on opencl:"), e.getMessage());
        assertTrue(e.getMessage().contains("CL_BUILD_PROGRAM_FAILURE"), e.getMessage());
        assertTrue(e.getMessage().contains("undefined_name"), "the build log names the error: " + e.getMessage());
        var missing = assertThrows(OpenClException.class, () -> cache.kernel("probe.cl", src, "", "no_such_kernel"));
        assertTrue(missing.getMessage().contains("CL_INVALID_KERNEL_NAME"), missing.getMessage());
    }

    @Test
    void kernelSourcesInlineTheirIncludes() {
        String s = KernelSource.load(OpenClBackend.KERNELS);
        assertTrue(s.contains("kernel void zd_copy_regions"));
        var e = assertThrows(IllegalArgumentException.class, () -> KernelSource.load("dev/zarrdirect/opencl/missing.cl"));
        assertTrue(e.getMessage().contains("dev/zarrdirect/opencl/missing.cl is not on the class path"), e.getMessage());
    }
}
