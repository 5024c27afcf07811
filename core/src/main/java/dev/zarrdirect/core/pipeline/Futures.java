// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.ZarrDirectException;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** Waiting for the pipeline's futures (plans, fetches, decodes) and rethrowing what they failed with. */
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
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new ZarrDirectException(failed + ": " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZarrDirectException(interrupted, e);
        }
    }
}
