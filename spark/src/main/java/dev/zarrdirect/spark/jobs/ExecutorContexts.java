// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import dev.zarrdirect.core.ZarrContext;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link ZarrContext} per backend name and executor JVM, shared by the tasks that run there
 * (a context owns a backend and its threads; starting one per task would cost more than a small
 * task's read). They live as long as the executor.
 */
final class ExecutorContexts {

    private static final Map<String, ZarrContext> CONTEXTS = new ConcurrentHashMap<>();

    private ExecutorContexts() {
    }

    /** The context of {@code backend} ({@code auto}: the best found) in this JVM. */
    static ZarrContext of(String backend) {
        String key = backend == null ? "auto" : backend.trim().toLowerCase(Locale.ROOT);
        return CONTEXTS.computeIfAbsent(key, ZarrContext::open);
    }
}
