// SPDX-License-Identifier: Apache-2.0
/**
 * The codec SPI, in the three kinds of the Zarr v3 specification, batch-first.
 *
 * <h2>Kinds</h2>
 * A chain holds array-to-array codecs ({@link dev.zarrdirect.api.codec.ArrayToArrayCodec},
 * {@code transpose}), then exactly one array-to-bytes codec
 * ({@link dev.zarrdirect.api.codec.ArrayToBytesCodec}, {@code bytes}), then bytes-to-bytes codecs
 * ({@link dev.zarrdirect.api.codec.BytesToBytesCodec}, {@code zstd}, {@code crc32c}); decoding runs
 * them in reverse. An array representation is a {@link dev.zarrdirect.api.codec.ChunkSpec}: packed,
 * C-order and little-endian in memory.
 *
 * <h2>Batches</h2>
 * A {@link dev.zarrdirect.api.codec.CodecBatch} carries many chunks through one stage: a GPU codec runs
 * one launch per batch. Each chunk gets its own result or failure, so one corrupt chunk never spoils
 * the others. The caller owns every buffer of a batch; codecs keep nothing.
 *
 * <h2>Plugins</h2>
 * A {@link dev.zarrdirect.api.codec.CodecProvider} listed in {@code META-INF/services} offers
 * implementations for devices; the core's registry chooses among providers (per read or array, then
 * {@code zarrdirect.codec.NAME}, then native to the device, then the CPU). When none offers a codec
 * the metadata names, opening the array fails with a {@link dev.zarrdirect.api.MissingCodecException}.
 * The configuration rules shared by every device's implementation of a codec are in
 * {@link dev.zarrdirect.api.codec.spec}.
 */
package dev.zarrdirect.api.codec;
