// SPDX-License-Identifier: Apache-2.0
/**
 * Batch assembly: plan a batch's reads ({@link dev.zarrdirect.loader.assemble.BatchAssembly}),
 * read them into reused staging buffers ({@link dev.zarrdirect.loader.assemble.BatchAssembler}),
 * gather into slots, and keep several batches in flight
 * ({@link dev.zarrdirect.loader.assemble.BatchProducer}).
 *
 * <h2>Memory</h2>
 * Staging buffers and slots are allocated once per loader and sized for the worst batch; nothing
 * is allocated per batch. A batch reads each distinct time step once, however many of its samples
 * share it.
 */
package dev.zarrdirect.loader.assemble;
