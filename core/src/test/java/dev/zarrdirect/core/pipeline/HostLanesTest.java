// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.*;

/** The host part's lanes on threads of their own ({@link HostLanes}). */
class HostLanesTest {

    private static final ExecutorService POOL = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("host-lanes-test-", 0).factory());

    @AfterAll
    static void shutDown() {
        POOL.shutdownNow();
    }

    @Test
    void everyIndexRunsOnceOnAtMostTheThreadsAsked() {
        for (int threads : new int[] {1, 3, 8}) {
            for (int n : new int[] {0, 1, 5, 100}) {
                AtomicIntegerArray runs = new AtomicIntegerArray(Math.max(1, n));
                Set<Thread> seen = ConcurrentHashMap.newKeySet();
                HostLanes.forEach(POOL, threads, n, i -> {
                    runs.incrementAndGet(i);
                    seen.add(Thread.currentThread());
                    Thread.onSpinWait();
                });
                for (int i = 0; i < n; i++) {
                    assertEquals(1, runs.get(i), "index " + i + " of " + n + " on " + threads);
                }
                assertTrue(seen.size() <= Math.max(1, Math.min(threads, n)), seen.size() + " threads for " + threads);
            }
        }
    }

    @Test
    void theCommonPoolIsLeftAlone() {
        Set<Thread> seen = ConcurrentHashMap.newKeySet();
        HostLanes.forEach(POOL, 4, 64, i -> seen.add(Thread.currentThread()));
        assertTrue(seen.stream().noneMatch(t -> t.getName().startsWith("ForkJoinPool")), seen.toString());
    }

    @Test
    void aFailureStopsTheRestAndIsThrownAfterEveryThreadEnded() {
        // one lane other than the caller is slow (300 ms) when another hits a corrupt chunk: the
        // failure must wait for it, since the lanes write into buffers the caller frees on failure
        Thread caller = Thread.currentThread();
        java.util.concurrent.atomic.AtomicBoolean slow = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> HostLanes.forEach(POOL, 4, 1000, i -> {
            running.incrementAndGet();
            try {
                if (i == 3) {
                    throw new IllegalStateException("chunk 3 is corrupt");
                }
                Thread.sleep(Thread.currentThread() != caller && slow.compareAndSet(false, true) ? 300 : 1);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
                ran.incrementAndGet();
            }
        }));
        assertEquals("chunk 3 is corrupt", e.getMessage());
        assertTrue(slow.get(), "a lane other than the caller ran");
        assertEquals(0, running.get(), "a lane still ran when the failure was thrown");
        assertTrue(ran.get() < 1000, "the lanes stopped taking indices: " + ran.get());
    }

    @Test
    void anErrorIsThrownAsItself() {
        assertThrows(OutOfMemoryError.class, () -> HostLanes.forEach(POOL, 3, 10, i -> {
            if (i == 7) {
                throw new OutOfMemoryError("pinned memory");
            }
        }));
    }

    @Test
    void withoutAnExecutorTheCommonPoolRunsIt() {
        AtomicIntegerArray runs = new AtomicIntegerArray(50);
        HostLanes.forEach(null, 4, 50, runs::incrementAndGet);
        for (int i = 0; i < 50; i++) {
            assertEquals(1, runs.get(i));
        }
    }
}
