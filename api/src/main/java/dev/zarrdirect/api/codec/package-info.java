// SPDX-License-Identifier: Apache-2.0
/**
 * The codec SPI, in the three kinds of the Zarr v3 specification, batch-first.
 *
 * <h2>Batches</h2>
 * A {@link dev.zarrdirect.api.codec.CodecBatch} carries many chunks through one stage: a GPU codec runs
 * one launch per batch. Each chunk gets its own result or failure, so one corrupt chunk never spoils
 * the others.
 *
 * <h2>Plugins</h2>
 * A {@link dev.zarrdirect.api.codec.CodecProvider} listed in {@code META-INF/services} offers
 * implementations for devices; the core's registry chooses among providers (per read or array, then
 * {@code zarrdirect.codec.NAME}, then native to the device, then the CPU).
 */
package dev.zarrdirect.api.codec;
