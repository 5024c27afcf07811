// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.exec;

import dev.zarrdirect.core.plan.ReadPlan;

/**
 * Receives what the read engine does: each read's start and end, and the spans of its stages
 * (planning, each batch's fetch, its decode). Tracing, metrics and tests listen here; the engine's
 * code paths take no tracing parameter.
 *
 * <p>Called on the engine's threads, concurrently for the spans of one read: implementations are
 * thread-safe and quick. Times are {@link System#nanoTime()} values. An exception thrown by a
 * listener is not caught: a listener must not throw.
 */
public interface ReadListener {

    /** A read with the given id (unique within an engine) starts; {@code plan} is what it will do. */
    default void readStarted(long readId, String what, ReadPlan plan) {
    }

    /** A span of read {@code readId}: {@code name} such as {@code fetch 0}, from {@code startNanos} to {@code endNanos}. */
    default void span(long readId, String name, long startNanos, long endNanos, String detail) {
    }

    /** Read {@code readId} ended, successfully when {@code failure} is null. */
    default void readFinished(long readId, Throwable failure) {
    }

    /** A listener that hears nothing. */
    ReadListener NONE = new ReadListener() {
    };
}
