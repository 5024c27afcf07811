// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.exec;

import dev.zarrdirect.core.pipeline.Futures;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one task per chunk on the context's workers with a bounded number in flight, so that a
 * read of millions of chunks neither queues millions of tasks nor holds their memory. The first
 * failure stops the submission of further tasks and is rethrown, with later ones suppressed.
 */
public final class ParallelChunks implements AutoCloseable {

    private final ExecutorService workers;
    private final Semaphore slots;
    private final int capacity;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicInteger running = new AtomicInteger();
    private final boolean inline;

    ParallelChunks(ExecutorService workers, int parallelism, boolean inline) {
        this.workers = workers;
        this.capacity = Math.max(2, parallelism * 2);
        this.slots = new Semaphore(capacity);
        this.inline = inline;
    }

    /** Submits a task, waiting while the bound is reached; returns false once something failed. */
    public boolean submit(Runnable task) {
        if (failure.get() != null) {
            return false;
        }
        if (inline) {
            try {
                task.run();
            } catch (Throwable t) {
                record(t);
            }
            return failure.get() == null;
        }
        slots.acquireUninterruptibly();
        running.incrementAndGet();
        try {
            workers.execute(() -> {
                try {
                    if (failure.get() == null) {
                        task.run();
                    }
                } catch (Throwable t) {
                    record(t);
                } finally {
                    running.decrementAndGet();
                    slots.release();
                }
            });
        } catch (RuntimeException e) {
            running.decrementAndGet();
            slots.release();
            throw e;
        }
        return true;
    }

    private void record(Throwable t) {
        if (!failure.compareAndSet(null, t)) {
            Throwable first = failure.get();
            if (first != t && first.getSuppressed().length < 8) {
                first.addSuppressed(t);
            }
        }
    }

    /** Waits for every submitted task and rethrows the first failure. */
    public void await() {
        slots.acquireUninterruptibly(capacity);
        slots.release(capacity);
        Futures.rethrow(failure.get(), Throwable::toString);
    }

    @Override
    public void close() {
        slots.acquireUninterruptibly(capacity);
        slots.release(capacity);
    }
}
