// SPDX-License-Identifier: Apache-2.0
/**
 * The stores that hold Zarr hierarchies, and {@link dev.zarrdirect.core.store.Stores#open} to pick one
 * from a location string.
 *
 * <h2>Implementations</h2>
 * <ul>
 *   <li>{@link dev.zarrdirect.core.store.fs.FileSystemStore}: a directory, with atomic writes
 *       (temporary file and rename) and positional reads straight into the caller's memory.</li>
 *   <li>{@link dev.zarrdirect.core.store.memory.MemoryStore}: values in native memory.</li>
 *   <li>{@link dev.zarrdirect.core.store.zip.ZipStore}: a zip file, read through a memory mapping
 *       of the archive, or written as a new archive that appears when the store is closed.</li>
 *   <li>{@link dev.zarrdirect.core.store.http.HttpStore}: read-only over HTTP(S), with range
 *       requests, retries with backoff and a limit on requests in flight.</li>
 * </ul>
 *
 * <h2>Contract</h2>
 * Every store follows {@link dev.zarrdirect.api.store.Store}: keys are validated with
 * {@link dev.zarrdirect.api.store.StoreKeys}, ranges that do not fit throw a
 * {@link dev.zarrdirect.api.StoreException} naming the key, the range and the value's length,
 * and writes are atomic per key. {@code StoreContract} in the conformance tests checks each one.
 *
 * <h2>Ownership and lifetime</h2>
 * Whoever opens a store closes it: {@code Stores.open} and the factories of each implementation hand
 * the store to the caller. Values are copied into memory from the caller's allocator, so what a read
 * returns lives as long as the caller decides and outlives the store. Every store is safe for
 * concurrent use; closing twice is harmless, and any other call after closing throws
 * {@link java.lang.IllegalStateException}. Writing to a read-only store (an {@code HttpStore}, a
 * {@code ZipStore} opened for reading, {@code FileSystemStore.openReadOnly}) throws a
 * {@link dev.zarrdirect.api.StoreException}.
 *
 * <h2>Object stores</h2>
 * {@code s3://} and {@code gs://} locations are opened by a
 * {@link dev.zarrdirect.api.store.StoreProvider} found at run time (the artifact
 * {@code zarr-direct-store-cloud}), so that this module needs no cloud SDK; without one on the path,
 * {@code Stores.open} says which artifact to add. Other schemes ({@code az://}) are not supported.
 */
package dev.zarrdirect.core.store;
