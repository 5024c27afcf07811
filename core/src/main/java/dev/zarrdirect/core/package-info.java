// SPDX-License-Identifier: Apache-2.0
/**
 * The Zarr engine: open and create arrays and groups, read and write hyper-rectangles.
 *
 * <h2>Entry points</h2>
 * {@link dev.zarrdirect.core.Zarr} opens and creates nodes in a {@link dev.zarrdirect.api.store.Store};
 * {@link dev.zarrdirect.core.ZarrArray} reads and writes {@link dev.zarrdirect.core.Selection}s
 * into and from {@link dev.zarrdirect.api.Tensor}s; {@link dev.zarrdirect.core.ArrayChecksum}
 * gives an implementation-independent SHA-256 of an array's elements;
 * {@link dev.zarrdirect.core.convert.Converter} rewrites an array or group with other chunks,
 * sharding, codecs or Zarr format.
 *
 * <h2>Contexts</h2>
 * A {@link dev.zarrdirect.core.ZarrContext} holds the started backend, the codec registry resolved
 * against it and the worker threads. The core knows no device: it plans and calls the Backend SPI.
 */
package dev.zarrdirect.core;
