// SPDX-License-Identifier: Apache-2.0
/**
 * Pools of device memory (the driver's stream-ordered allocator) and of pinned host memory.
 *
 * <h2>Why pools</h2>
 * Device allocations and pinning cost milliseconds; the core allocates per batch.
 */
package dev.zarrdirect.cuda.memory;
