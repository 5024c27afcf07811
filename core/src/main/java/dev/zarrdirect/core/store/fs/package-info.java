// SPDX-License-Identifier: Apache-2.0
/**
 * A store over a local directory.
 *
 * <h2>Layout</h2>
 * Key {@code a/b/c} is the file {@code <root>/a/b/c}; directories hold no values. Temporary files
 * of writes in progress start with {@code .} and end in {@code .tmp}; listings skip them.
 *
 * <h2>Guarantees</h2>
 * Atomic replacement per key, no escape from the root through {@code ..} or symbolic links, and
 * optional durability ({@link dev.zarrdirect.core.store.fs.FileSystemStore#withFsync}).
 *
 * <h2>Opening</h2>
 * {@link dev.zarrdirect.core.store.fs.FileSystemStore#open} and
 * {@link dev.zarrdirect.core.store.fs.FileSystemStore#openReadOnly} need an existing directory;
 * {@link dev.zarrdirect.core.store.fs.FileSystemStore#create} makes it. The store holds no open
 * files between calls, but the caller still closes it, after which it refuses every call.
 */
package dev.zarrdirect.core.store.fs;
