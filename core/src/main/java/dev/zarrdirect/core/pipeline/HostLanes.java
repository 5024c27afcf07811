// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * Runs a batch's host work, index by index, on several threads, for {@link DeviceDecoder}: in the
 * common fork-join pool, or on threads of a given executor (a shared batch's host part, whose lanes
 * would otherwise take the workers the device part's reads need). Either way every call has ended
 * when the method returns, since the calls write into buffers the caller frees next, and the first
 * failure is thrown with the later ones suppressed.
 */
final class HostLanes {

    private HostLanes() {
    }

    /**
     * Runs {@code body} for 0..n-1: in the common pool ({@link #forEachInCommonPool}) when {@code on} is
     * null, else on {@code threads} threads of {@code on} (the calling thread one of them), each
     * taking the next index until none is left or a call failed. Every call ends before this
     * returns; the first failure is thrown, later ones suppressed.
     */
    static void forEach(ExecutorService on, int threads, int n, IntConsumer body) {
        if (on == null) {
            forEachInCommonPool(n, body);
            return;
        }
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Runnable worker = () -> {
            for (int i; failed.get() == null && (i = next.getAndIncrement()) < n; ) {
                try {
                    body.accept(i);
                } catch (RuntimeException | Error e) {
                    if (!failed.compareAndSet(null, e)) {
                        failed.get().addSuppressed(e);
                    }
                }
            }
        };
        int others = Math.clamp(threads, 1, Math.max(1, n)) - 1;
        List<Future<?>> started = new ArrayList<>(others);
        for (int t = 0; t < others; t++) {
            started.add(on.submit(worker));
        }
        worker.run();
        // every thread ends before this returns, interrupted or not: they write into the caller's buffers
        boolean interrupted = false;
        for (Future<?> f : started) {
            while (true) {
                try {
                    f.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    // the worker catches what body throws: only a failure of its own lands here
                    if (!failed.compareAndSet(null, e.getCause())) {
                        failed.get().addSuppressed(e.getCause());
                    }
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Futures.rethrow(failed.get(), t -> "a host decode thread failed");
    }

    /** Runs {@code body} for 0..n-1 on all cores; every call ends before this returns; the first failure is thrown. */
    static void forEachInCommonPool(int n, IntConsumer body) {
        AtomicReference<RuntimeException> failed = new AtomicReference<>();
        IntStream.range(0, n).parallel().forEach(i -> {
            if (failed.get() != null) {
                return;
            }
            try {
                body.accept(i);
            } catch (RuntimeException e) {
                if (!failed.compareAndSet(null, e)) {
                    failed.get().addSuppressed(e);
                }
            }
        });
        if (failed.get() != null) {
            throw failed.get();
        }
    }
}
