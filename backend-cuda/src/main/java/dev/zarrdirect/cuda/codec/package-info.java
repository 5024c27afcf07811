// SPDX-License-Identifier: Apache-2.0
/**
 * The CUDA codecs: {@code zstd} (decode), {@code crc32c}, {@code bytes}, {@code transpose}.
 *
 * <h2>Batches</h2>
 * Each stage of a batch is one launch (or one per run of back-to-back outputs for byte swaps); per-item
 * addresses and sizes travel in one packed table ({@link dev.zarrdirect.cuda.codec.ItemTable}) uploaded once,
 * and status words come back in one copy. A bad item fails alone.
 */
package dev.zarrdirect.cuda.codec;
