// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.FilterStore;
import dev.zarrdirect.api.store.Store;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A store that remembers where each read started, for leak checks after a test (as Lucene's
 * {@code MockDirectoryWrapper} remembers open files): a read that returned, failed or was
 * cancelled must not leave a {@code get} running on the store, and a test that opened a store must
 * close it. {@link #assertQuiet} fails with the stack that started each {@code get} still running
 * (after a short grace, since a cancelled read may be finishing its last request), and
 * {@link #assertClosed} with the stack that created the store. Wrap a {@link FaultInjectingStore}
 * to inject failures and track at once. Closing twice is harmless, as for any store.
 */
public final class TrackingStore extends FilterStore {

    private final Map<Long, Throwable> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Throwable created = new Throwable("store created here");
    private volatile boolean closed;

    /**
     * Wraps {@code delegate}; the stack of this call is the one {@link #assertClosed} reports.
     *
     * @param delegate the store read; closed with this one
     */
    public TrackingStore(Store delegate) {
        super(delegate);
    }

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        long id = ids.incrementAndGet();
        inFlight.put(id, new Throwable("get #" + id + " of key \"" + key + "\" (" + range + ") on thread "
                + Thread.currentThread().getName() + " started here"));
        try {
            return in.get(key, range, allocator);
        } finally {
            inFlight.remove(id);
        }
    }

    /**
     * How many gets have started.
     *
     * @return the count since this store was made
     */
    public long gets() {
        return ids.get();
    }

    /**
     * No local files: every read goes through this decorator, even a direct one.
     *
     * @param key any key
     * @return empty
     */
    @Override
    public Optional<java.nio.file.Path> localPath(String key) {
        return Optional.empty();
    }

    /**
     * Fails unless every {@code get} has returned, waiting up to {@code graceMillis} for those still
     * running; the failure carries, as suppressed exceptions, the stack that started each.
     *
     * @param graceMillis how long to wait for gets still running, in milliseconds
     * @throws AssertionError when a get is still running after the grace
     */
    public void assertQuiet(long graceMillis) {
        long deadline = System.nanoTime() + graceMillis * 1_000_000;
        while (!inFlight.isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        if (!inFlight.isEmpty()) {
            AssertionError e = new AssertionError(inFlight.size() + " get(s) still running on " + this + " after "
                    + graceMillis + " ms; their stacks follow");
            inFlight.values().forEach(e::addSuppressed);
            throw e;
        }
    }

    /**
     * Fails, with the stack that created this store, unless it was closed.
     *
     * @throws AssertionError when {@link #close()} was never called
     */
    public void assertClosed() {
        if (!closed) {
            throw new AssertionError(this + " was never closed", created);
        }
    }

    @Override
    public void close() {
        closed = true;
        in.close();
    }

    @Override
    public String toString() {
        return "TrackingStore(" + in + ")";
    }
}
