// SPDX-License-Identifier: Apache-2.0
/**
 * Key-value stores holding Zarr hierarchies.
 *
 * <h2>Contract</h2>
 * Missing keys read as empty; ranges that do not fit fail naming key, range and length; writes are
 * atomic per key; keys are validated by {@link dev.zarrdirect.api.store.StoreKeys} so none leaves the
 * store's root; stores are thread-safe; closing twice is harmless.
 */
package dev.zarrdirect.api.store;
