// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.*;

class HostBufferPoolTest {

    private final HostBufferPool pool = new HostBufferPool(64L << 20, 16L << 20);

    @AfterEach
    void closePool() {
        pool.close();
    }

    @Test
    void sizeClassesHoldTheRequestAndWasteAtMostAQuarter() {
        assertEquals(64, HostBufferPool.sizeClass(0));
        assertEquals(64, HostBufferPool.sizeClass(64));
        assertEquals(128, HostBufferPool.sizeClass(65));
        for (long n = 1; n < (1L << 22); n = n * 3 / 2 + 1) {
            long c = HostBufferPool.sizeClass(n);
            assertTrue(c >= n && c % 64 == 0, "class " + c + " for " + n);
            assertTrue(n <= 256 || c <= n + n / 4 + 64, "class " + c + " wastes too much for " + n);
        }
    }

    @Test
    void aClosedBufferIsReusedAndComesBackZeroed() {
        long address;
        try (HostBuffer a = pool.allocate(10_000, MemoryKind.HOST)) {
            a.segment().fill((byte) 7);
            address = a.address();
            assertEquals(0, a.address() % 64, "64-byte aligned");
        }
        try (HostBuffer b = pool.allocate(9_999, MemoryKind.HOST_PINNED)) {
            assertEquals(address, b.address(), "same size class, same block");
            assertEquals(MemoryKind.HOST_PINNED, b.kind());
            assertEquals(-1, b.segment().mismatch(MemorySegment.ofArray(new byte[9_999])), "zeroed on reuse");
        }
        assertEquals(1, pool.reuseCount());
    }

    @Test
    void uninitializedAllocationSkipsTheClearing() {
        try (HostBuffer a = pool.allocate(4096, MemoryKind.HOST)) {
            a.segment().fill((byte) 7);
        }
        try (HostBuffer b = pool.allocateUninitialized(4096, MemoryKind.HOST)) {
            assertEquals(7, b.segment().get(ValueLayout.JAVA_BYTE, 100));
        }
    }

    @Test
    void closingTwiceThrowsAndUseAfterCloseThrows() {
        HostBuffer b = pool.allocate(100, MemoryKind.HOST);
        b.close();
        IllegalStateException twice = assertThrows(IllegalStateException.class, b::close);
        assertTrue(twice.getMessage().contains("already closed"), twice.getMessage());
        assertThrows(IllegalStateException.class, b::segment);
        assertThrows(IllegalStateException.class, b::address);
        assertThrows(IllegalStateException.class, () -> b.slice(0, 10));
        assertEquals(0, pool.liveBuffers());
    }

    @Test
    void aStaleSegmentFailsLoudlyWhenTracking() {
        pool.trackBuffers(true);
        HostBuffer b = pool.allocate(100, MemoryKind.HOST);
        MemorySegment kept = b.segment();
        b.close();
        assertThrows(IllegalStateException.class, () -> kept.get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void retainedBytesStayUnderTheCapAndHugeBuffersAreNotPooled() {
        List<HostBuffer> bufs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            bufs.add(pool.allocate(10L << 20, MemoryKind.HOST));
        }
        bufs.forEach(HostBuffer::close);
        assertTrue(pool.retainedBytes() <= pool.maxRetainedBytes(), pool.toString());
        assertTrue(pool.retainedBytes() > 0);
        try (HostBuffer huge = pool.allocate(20L << 20, MemoryKind.HOST)) {
            assertEquals(20L << 20, huge.byteSize());
        }
        assertTrue(pool.retainedBytes() <= pool.maxRetainedBytes());
    }

    @Test
    void leaksAreReportedWithTheirAllocationStack() {
        pool.trackBuffers(true);
        HostBuffer leaked = pool.allocate(1 << 20, MemoryKind.HOST);
        IllegalStateException e = assertThrows(IllegalStateException.class, pool::assertNoLiveBuffers);
        assertTrue(e.getMessage().contains("1 buffer") && e.getMessage().contains("1 MiB"), e.getMessage());
        assertTrue(e.getMessage().contains("leaksAreReportedWithTheirAllocationStack"), e.getMessage());
        leaked.close();
        pool.assertNoLiveBuffers();
    }

    @Test
    void eightThreadsAllocatingAndClosingLeaveNothingBehind() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            byte mark = (byte) (t + 1);
            done.add(threads.submit(() -> {
                start.await();
                ThreadLocalRandom r = ThreadLocalRandom.current();
                for (int i = 0; i < 2000; i++) {
                    try (HostBuffer b = pool.allocateUninitialized(1 + r.nextInt(200_000), MemoryKind.HOST)) {
                        MemorySegment s = b.segment();
                        s.fill(mark);
                        // another thread writing into our block would show up here
                        assertEquals(-1, s.mismatch(MemorySegment.ofArray(filled(s.byteSize(), mark))));
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get();
        }
        threads.shutdown();
        assertEquals(0, pool.liveBuffers());
        pool.assertNoLiveBuffers();
        assertTrue(pool.retainedBytes() <= pool.maxRetainedBytes());
        pool.close();
        assertEquals(0, pool.retainedBytes(), "closing the pool frees every free block");
    }

    private static byte[] filled(long n, byte v) {
        byte[] b = new byte[(int) n];
        java.util.Arrays.fill(b, v);
        return b;
    }

    @Test
    void aClosedPoolRefusesAllocationsButBuffersStillOpenStayUsable() {
        HostBuffer open = pool.allocate(64, MemoryKind.HOST);
        pool.close();
        pool.close();
        assertThrows(IllegalStateException.class, () -> pool.allocate(64, MemoryKind.HOST));
        open.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
        open.close();
        assertEquals(0, pool.retainedBytes());
    }
}
