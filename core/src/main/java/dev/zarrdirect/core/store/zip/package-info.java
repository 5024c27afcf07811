// SPDX-License-Identifier: Apache-2.0
/**
 * A store in a single zip file.
 *
 * <h2>Reading</h2>
 * {@link dev.zarrdirect.core.store.zip.ZipStore#open} maps the archive and reads its central
 * directory (Zip64 included) with a reader of its own, so that a range of a STORED entry is copied
 * straight from the mapping without inflating anything; DEFLATED entries are inflated from their
 * start. The hierarchy may sit at the root or under one top-level folder.
 *
 * <h2>Writing</h2>
 * {@link dev.zarrdirect.core.store.zip.ZipStore#create} writes a new archive of STORED entries to a
 * temporary file and renames it into place when the store is closed. Closing is what commits the
 * archive: a store that is never closed leaves only its temporary file, and a failed close throws
 * {@link dev.zarrdirect.api.StoreException} with the target unchanged.
 *
 * <h2>Threads</h2>
 * {@link dev.zarrdirect.core.store.zip.ZipStore} is safe for concurrent use; writes are appended
 * one at a time.
 *
 * <h2>Missing</h2>
 * Updating an existing archive in place, zip files read over HTTP, and compression methods other
 * than STORED and DEFLATED.
 */
package dev.zarrdirect.core.store.zip;
