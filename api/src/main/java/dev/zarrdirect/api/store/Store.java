// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.store;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.List;
import java.util.Optional;

/**
 * A key-value store holding a Zarr hierarchy, as the Zarr v3 abstract store interface describes.
 * Keys are {@code /}-separated relative paths ({@code t2m/c/0/3/1}); the root document is
 * {@code zarr.json}. Values are bytes.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>A missing key is not an error for reads: {@link #get} returns empty.</li>
 *   <li>A range that does not fit in the value throws {@link dev.zarrdirect.api.StoreException}
 *       naming the key, the range and the value's length.</li>
 *   <li>{@link #set} is atomic per key: readers see the old value or the new one, never a mix,
 *       and a failed write leaves the old value.</li>
 *   <li>Keys that are absolute, contain {@code ..} or empty segments are refused with
 *       {@link dev.zarrdirect.api.InvalidKeyException}.</li>
 *   <li>Implementations are safe for concurrent use by many threads.</li>
 *   <li>Closing a store twice is harmless.</li>
 * </ul>
 */
public interface Store extends AutoCloseable {

    /**
     * Reads {@code range} of the value at {@code key} into memory from {@code allocator}.
     *
     * @return the bytes, or empty when the key does not exist
     */
    Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator);

    /** Reads the whole value. */
    default Optional<MemorySegment> get(String key, SegmentAllocator allocator) {
        return get(key, ByteRange.ALL, allocator);
    }

    /** The size of the value in bytes, or -1 when the key does not exist. */
    long size(String key);

    default boolean exists(String key) {
        return size(key) >= 0;
    }

    /** Stores {@code value} at {@code key}, replacing any earlier value atomically. */
    void set(String key, MemorySegment value);

    /** Removes the key; removing a missing key does nothing. */
    void delete(String key);

    /** Removes every key under {@code prefix} (a {@code /}-terminated directory or empty for all). */
    default void deletePrefix(String prefix) {
        for (String k : list(prefix)) {
            delete(k);
        }
    }

    /** Every key that starts with {@code prefix}, sorted. */
    List<String> list(String prefix);

    /**
     * The immediate children of the directory {@code prefix} (empty or ending in {@code /}): keys
     * and sub-directories (the latter ending in {@code /}), sorted.
     */
    List<String> listDir(String prefix);

    /**
     * The local file holding the value at {@code key}, for stores whose values are whole files
     * (so that a backend's direct reader can read them into device memory); empty otherwise.
     */
    default java.util.Optional<java.nio.file.Path> localPath(String key) {
        return java.util.Optional.empty();
    }

    /** True for stores that refuse writes. */
    default boolean isReadOnly() {
        return false;
    }

    /** A short description naming the kind and location, used in every error message. */
    @Override
    String toString();

    @Override
    default void close() {
    }
}
