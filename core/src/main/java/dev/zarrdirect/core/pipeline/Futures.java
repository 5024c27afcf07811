// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.ZarrDirectException;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Function;

/** Waiting for the pipeline's futures (plans, fetches, decodes, host threads) and rethrowing what they failed with. */
public final class Futures {

    private Futures() {
    }

    /**
     * The result of {@code f}. Its failure is rethrown as it was (unwrapped from the
     * {@link CompletionException}s of chained stages) when unchecked, else wrapped with
     * "{@code failed}: cause"; an interrupt keeps the thread's flag and throws with {@code interrupted}.
     */
    public static <T> T await(Future<T> f, String failed, String interrupted) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            // a stage chained after a failed one carries that failure wrapped
            while (cause instanceof CompletionException c && c.getCause() != null) {
                cause = c.getCause();
            }
            rethrow(cause, t -> failed + ": " + t);
            throw new IllegalStateException("unreachable: rethrow returned for " + cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZarrDirectException(interrupted, e);
        }
    }

    /**
     * Throws {@code t} as it is when unchecked, else wrapped in a {@link ZarrDirectException} of
     * {@code message}'s text for it; returns when {@code t} is null (nothing failed).
     */
    public static void rethrow(Throwable t, Function<Throwable, String> message) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        if (t != null) {
            throw new ZarrDirectException(message.apply(t), t);
        }
    }
}
