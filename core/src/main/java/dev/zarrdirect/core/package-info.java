// SPDX-License-Identifier: Apache-2.0
/**
 * The Zarr engine: open and create arrays and groups, read and write hyper-rectangles.
 *
 * <h2>Entry points</h2>
 * {@link dev.zarrdirect.core.Zarr} opens and creates nodes in a {@link dev.zarrdirect.api.store.Store};
 * {@link dev.zarrdirect.core.ZarrArray} reads and writes {@link dev.zarrdirect.core.Selection}s
 * (boxes) into and from {@link dev.zarrdirect.api.Tensor}s, and reads
 * {@link dev.zarrdirect.core.ArraySlice}s (NumPy basic indexes, with steps and dropped dimensions);
 * {@link dev.zarrdirect.core.ZarrArray#plan} batches many windows into one read;
 * {@link dev.zarrdirect.core.ZarrGroup} lists and
 * opens its members; {@link dev.zarrdirect.core.ArrayChecksum}
 * gives an implementation-independent SHA-256 of an array's elements;
 * {@link dev.zarrdirect.core.convert.Converter} rewrites an array or group with other chunks,
 * sharding, codecs or Zarr format.
 *
 * {@snippet :
 * try (ZarrArray a = Zarr.openArray("/data/era5.zarr", "t2m");
 *      Tensor t = a.read(Selection.parse("0:2", a.shape()))) {
 *     float first = t.getFloat(0, 0, 0);
 * }
 * }
 *
 * <h2>Ownership</h2>
 * Whoever opens a thing closes it. An array or group opened from a location string owns the store
 * it opened and closes it; one opened on a store the caller passed in owns nothing. No node closes
 * its {@link dev.zarrdirect.core.ZarrContext}. A tensor returned by a read owns native memory
 * outside the heap and must be closed, unless it was read into an arena the caller gave
 * ({@link dev.zarrdirect.core.ZarrArray#read(dev.zarrdirect.core.Selection, java.lang.foreign.Arena)}),
 * whose closing frees it. Closing arrays, groups and contexts twice is harmless.
 *
 * <h2>Contexts</h2>
 * A {@link dev.zarrdirect.core.ZarrContext} holds the started backend, the codec registry resolved
 * against it and the worker threads. The core knows no device: it plans and calls the Backend SPI.
 * Methods that take no context use {@link dev.zarrdirect.core.ZarrContext#defaultContext()}, which
 * is started on first use and never closed. {@link dev.zarrdirect.core.ReadSettings} tunes how
 * reads run.
 *
 * <h2>Threads and errors</h2>
 * Arrays, groups and contexts are safe for use by many threads. Every exception thrown on purpose is
 * an unchecked {@link dev.zarrdirect.api.ZarrDirectException} (store failures, invalid metadata,
 * corrupt chunks, missing codecs or backends) whose message names the store, key, codec and chunk
 * involved; bad arguments throw {@link java.lang.IllegalArgumentException} or
 * {@link java.lang.IndexOutOfBoundsException} before anything is read or written.
 */
package dev.zarrdirect.core;
