// SPDX-License-Identifier: Apache-2.0
/**
 * A store in native memory.
 *
 * <h2>Use</h2>
 * Tests, and hierarchies built and read within one process. Values are copied in and out, so the
 * store never shares memory with its callers.
 */
package dev.zarrdirect.core.store.memory;
