// SPDX-License-Identifier: Apache-2.0
/**
 * Key-value stores holding Zarr hierarchies, as the Zarr v3 abstract store interface describes them.
 *
 * <h2>Contract</h2>
 * A {@link dev.zarrdirect.api.store.Store} maps {@code /}-separated keys ({@code t2m/c/0/3/1}) to
 * bytes. Missing keys read as empty; ranges that do not fit fail naming key, range and length; writes are
 * atomic per key; keys are validated by {@link dev.zarrdirect.api.store.StoreKeys} so none leaves the
 * store's root; stores are thread-safe; closing twice is harmless, and any other call on a closed
 * store throws {@link java.lang.IllegalStateException}. Failures are
 * {@link dev.zarrdirect.api.StoreException}s that name the store and the key.
 *
 * <h2>Ranges and memory</h2>
 * A {@link dev.zarrdirect.api.store.ByteRange} reads part of a value: a span, an open end or a
 * suffix (the shard index at the end of a shard). Reads land in memory from the caller's
 * {@link java.lang.foreign.SegmentAllocator}, so the caller owns and frees what it reads. Values
 * written by others are read with a limit ({@link dev.zarrdirect.api.store.ReadBound}), checked
 * before memory is allocated or bytes are read.
 *
 * <h2>Plugins and options</h2>
 * Stores for URI schemes that {@code core} does not know ({@code s3://}, {@code gs://}) come from a
 * {@link dev.zarrdirect.api.store.StoreProvider} found with {@link java.util.ServiceLoader}; they take
 * {@link dev.zarrdirect.api.store.StoreOptions} (anonymous access, endpoint, region, requests in
 * flight, timeouts) besides the location.
 *
 * <h2>Decorators</h2>
 * {@link dev.zarrdirect.api.store.FilterStore} forwards every call to a wrapped store; counting,
 * caching and fault-injecting stores override only what they change. The implementations
 * (file system, zip, memory, HTTP) live in the core module.
 */
package dev.zarrdirect.api.store;
