// SPDX-License-Identifier: Apache-2.0
/**
 * Memory on a device: {@link dev.zarrdirect.api.buffer.Buffer} and its host implementation.
 *
 * <h2>Ownership</h2>
 * Whoever allocates closes; slices are views that never own; use after close fails loudly; closing
 * an owning buffer twice throws. {@link dev.zarrdirect.api.buffer.Region} describes a strided box of a
 * buffer, the unit of chunk placement; {@link dev.zarrdirect.api.buffer.StridedCopy} is the host
 * implementation every backend shares.
 */
package dev.zarrdirect.api.buffer;
