// SPDX-License-Identifier: Apache-2.0
/**
 * A store in native memory.
 *
 * <h2>Use</h2>
 * Tests, and hierarchies built and read within one process. Values are copied in and out, so the
 * store never shares memory with its callers.
 *
 * <h2>Lifetime</h2>
 * {@link dev.zarrdirect.core.store.memory.MemoryStore} is safe for concurrent use. Its values are
 * freed by the garbage collector once dropped or overwritten; {@code close()} drops them all, after
 * which the store refuses every call.
 */
package dev.zarrdirect.core.store.memory;
