// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/** {@link TrackedStores} fails a test that leaves a store open or a read running, and passes one that does not. */
class TrackedStoresTest {

    /** A store of one empty value whose gets wait for {@link #release} when asked to. */
    static final class SlowStore implements Store {
        static final CountDownLatch started = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);
        final boolean slow;

        SlowStore(boolean slow) {
            this.slow = slow;
        }

        @Override
        public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
            if (slow) {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Optional.of(allocator.allocate(0));
        }

        @Override
        public long size(String key) {
            return 0;
        }

        @Override
        public void set(String key, MemorySegment value) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public void delete(String key) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public List<String> list(String prefix) {
            return List.of("k");
        }

        @Override
        public List<String> listDir(String prefix) {
            return List.of("k");
        }

        @Override
        public String toString() {
            return "SlowStore";
        }
    }

    /** Run through the launcher by the tests below, not on their own. */
    static class Cases {
        @RegisterExtension
        final TrackedStores stores = new TrackedStores(100);

        @Test
        void closesWhatItOpens() {
            try (Store s = stores.track(new SlowStore(false)); Arena arena = Arena.ofConfined()) {
                s.get("k", arena);
            }
        }

        @Test
        void leavesAStoreOpen() {
            stores.track(new SlowStore(false));
        }

        @Test
        void leavesAReadRunning() throws InterruptedException {
            Store s = stores.track(new SlowStore(true));
            Thread.ofVirtual().start(() -> s.get("k", Arena.global()));
            SlowStore.started.await();
            s.close();
        }
    }

    private static TestExecutionSummary run(String method) {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(selectMethod(Cases.class, method)).build(), listener);
        return listener.getSummary();
    }

    @Test
    void aTestThatClosesItsStorePasses() {
        assertEquals(1, run("closesWhatItOpens").getTestsSucceededCount());
    }

    @Test
    void aStoreLeftOpenFailsTheTestWithWhereItWasCreated() {
        TestExecutionSummary s = run("leavesAStoreOpen");
        assertEquals(1, s.getTestsFailedCount());
        Throwable e = s.getFailures().getFirst().getException();
        assertTrue(e.getMessage().contains("was never closed"), e.getMessage());
    }

    @Test
    void aReadLeftRunningFailsTheTestWithItsStack() {
        try {
            TestExecutionSummary s = run("leavesAReadRunning");
            assertEquals(1, s.getTestsFailedCount());
            Throwable e = s.getFailures().getFirst().getException();
            assertTrue(e.getMessage().contains("still running"), e.getMessage());
        } finally {
            SlowStore.release.countDown();
        }
    }
}
