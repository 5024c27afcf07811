// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.store.Store;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Leak checks for the stores a test reads, after Lucene's {@code newDirectory()}: each store the
 * test obtains through {@link #track} is a {@link TrackingStore}, and after the test every one of
 * them must have no read still running (after a grace for cancelled reads finishing their last
 * request) and must have been closed; the failure carries the stacks that started the reads left
 * running or created the store left open. Wrap a {@link FaultInjectingStore} to damage reads too.
 *
 * {@snippet :
 * @RegisterExtension
 * final TrackedStores stores = new TrackedStores();
 *
 * @Test
 * void readsFailNamingTheKey() {
 *     FaultInjectingStore faults = new FaultInjectingStore(new MemoryStore()).failNthGet(2);
 *     try (Store store = stores.track(faults)) {
 *         // ... read through store ...
 *     }
 * }   // after the test: every get returned, and the store was closed
 * }
 */
public final class TrackedStores implements AfterEachCallback {

    private final List<TrackingStore> tracked = new CopyOnWriteArrayList<>();
    private final long graceMillis;

    /** Leak checks that wait up to two seconds for reads still running. */
    public TrackedStores() {
        this(2_000);
    }

    /**
     * Leak checks that wait up to {@code graceMillis} for reads still running.
     *
     * @param graceMillis how long a read may go on after the test, in milliseconds
     * @throws IllegalArgumentException when negative
     */
    public TrackedStores(long graceMillis) {
        if (graceMillis < 0) {
            throw new IllegalArgumentException("negative grace " + graceMillis + " ms");
        }
        this.graceMillis = graceMillis;
    }

    /**
     * Wraps {@code store} in a {@link TrackingStore} that is checked after the test.
     *
     * @param store the store the test reads; closed with the returned one
     * @return the tracking store, for the test to use and close
     */
    public TrackingStore track(Store store) {
        TrackingStore t = new TrackingStore(store);
        tracked.add(t);
        return t;
    }

    /**
     * Fails unless every tracked store is quiet and closed; then forgets them.
     *
     * @param context the test that ran
     * @throws AssertionError naming each store left open or with reads running, with their stacks
     */
    @Override
    public void afterEach(ExtensionContext context) {
        List<Throwable> problems = new ArrayList<>();
        for (TrackingStore t : tracked) {
            try {
                t.assertQuiet(graceMillis);
                t.assertClosed();
            } catch (AssertionError e) {
                problems.add(e);
            }
        }
        tracked.clear();
        if (!problems.isEmpty()) {
            AssertionError e = new AssertionError(problems.size() + " store(s) of " + context.getDisplayName()
                    + " leaked: " + problems.stream().map(Throwable::getMessage).toList());
            problems.forEach(e::addSuppressed);
            throw e;
        }
    }
}
