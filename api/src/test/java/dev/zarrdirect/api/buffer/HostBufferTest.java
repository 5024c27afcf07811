// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import dev.zarrdirect.api.Device;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostBufferTest {

    @Test
    void allocateGivesZeroedSixtyFourByteAlignedHostMemory() {
        try (HostBuffer b = HostBuffer.allocate(1000)) {
            assertEquals(1000, b.byteSize());
            assertEquals(0, b.address() % 64);
            assertEquals(Device.CPU, b.device());
            assertEquals(MemoryKind.HOST, b.kind());
            assertEquals(-1, b.segment().mismatch(Arena.global().allocate(1000)));
        }
        try (HostBuffer empty = HostBuffer.allocate(0)) {
            assertEquals(0, empty.byteSize());
        }
        assertThrows(IllegalArgumentException.class, () -> HostBuffer.allocate(-1));
    }

    @Test
    void closingTwiceThrowsAndRunsTheReleaseOnlyOnce() {
        AtomicInteger released = new AtomicInteger();
        try (Arena arena = Arena.ofConfined()) {
            HostBuffer b = HostBuffer.of(arena.allocate(16), MemoryKind.HOST_PINNED, Device.CPU, released::incrementAndGet);
            b.close();
            IllegalStateException e = assertThrows(IllegalStateException.class, b::close);
            assertTrue(e.getMessage().contains("HostBuffer[cpu:0 HOST_PINNED 16 B]"), e.getMessage());
            assertEquals(1, released.get());
        }
    }

    @Test
    void viewsCannotBeClosedAndShareTheirOwnersLifetime() {
        HostBuffer b = HostBuffer.allocate(64);
        HostBuffer view = b.slice(8, 16);
        HostBuffer viewOfView = view.slice(4, 4);
        assertTrue(view.isView());
        assertFalse(b.isView());
        assertEquals(b.address() + 12, viewOfView.address());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, view::close);
        assertTrue(e.getMessage().contains("view"), e.getMessage());
        assertTrue(view.isOpen());
        b.close();
        assertFalse(view.isOpen());
        assertFalse(viewOfView.isOpen());
        assertThrows(IllegalStateException.class, view::segment);
    }

    @Test
    void everyAccessAfterCloseFailsNamingTheBuffer() {
        HostBuffer b = HostBuffer.allocate(2048);
        HostBuffer view = b.slice(0, 1024);
        b.close();
        List<Consumer<HostBuffer>> ops = List.of(HostBuffer::segment, HostBuffer::address, x -> x.slice(0, 1));
        for (HostBuffer x : List.of(b, view)) {
            for (Consumer<HostBuffer> op : ops) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> op.accept(x));
                assertTrue(e.getMessage().startsWith("HostBuffer[cpu:0 HOST ") && e.getMessage().endsWith("is closed"),
                        e.getMessage());
            }
        }
    }

    @Test
    void sliceRefusesRangesOutsideTheBufferIncludingOverflowingOnes() {
        try (HostBuffer b = HostBuffer.allocate(32)) {
            assertEquals(0, b.slice(32, 0).byteSize());
            assertEquals(32, b.slice(0, 32).byteSize());
            for (long[] r : new long[][]{{-1, 1}, {0, -1}, {0, 33}, {30, 3}, {33, 0}, {1, Long.MAX_VALUE}}) {
                IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> b.slice(r[0], r[1]));
                assertTrue(e.getMessage().contains("[" + r[0] + ", ") && e.getMessage().contains("HostBuffer["),
                        e.getMessage());
            }
        }
    }

    @Test
    void ofRefusesDeviceKinds() {
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class,
                    () -> HostBuffer.of(arena.allocate(8), MemoryKind.DEVICE, Device.CPU, () -> { }));
        }
    }

    @Test
    void wrapNeverFreesTheCallersMemory() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mine = arena.allocate(8);
            HostBuffer b = HostBuffer.wrap(mine);
            b.close();
            mine.set(JAVA_LONG, 0, 42);
            assertEquals(42, mine.get(JAVA_LONG, 0));
        }
    }

    @Test
    void threadsWriteDisjointSlicesConcurrentlyAndRacingClosesReleaseOnce() throws Exception {
        int threads = 8;
        long perThread = 1 << 16;
        AtomicInteger released = new AtomicInteger();
        HostBuffer big = HostBuffer.allocate(threads * perThread * 8);
        HostBuffer b = HostBuffer.of(big.segment(), MemoryKind.HOST, Device.CPU, () -> {
            released.incrementAndGet();
            big.close();
        });
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long first = t * perThread;
                writes.add(pool.submit(() -> {
                    MemorySegment s = b.slice(first * 8, perThread * 8).segment();
                    for (long i = 0; i < perThread; i++) {
                        s.setAtIndex(JAVA_LONG, i, first + i);
                    }
                }));
            }
            for (Future<?> f : writes) {
                f.get();
            }
            MemorySegment all = b.segment();
            for (long i = 0; i < threads * perThread; i++) {
                assertEquals(i, all.getAtIndex(JAVA_LONG, i), "element " + i);
            }

            CountDownLatch start = new CountDownLatch(1);
            List<Callable<Boolean>> closers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                closers.add(() -> {
                    start.await();
                    try {
                        b.close();
                        return true;
                    } catch (IllegalStateException alreadyClosed) {
                        return false;
                    }
                });
            }
            List<Future<Boolean>> results = new ArrayList<>();
            for (Callable<Boolean> c : closers) {
                results.add(pool.submit(c));
            }
            start.countDown();
            int wins = 0;
            for (Future<Boolean> f : results) {
                wins += f.get() ? 1 : 0;
            }
            assertEquals(1, wins, "exactly one close may succeed");
            assertEquals(1, released.get());
            assertFalse(big.isOpen());
        } finally {
            pool.shutdownNow();
        }
    }
}
