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
 *   <li>Closing a store twice is harmless. Reads, writes and listings on a closed store throw
 *       {@link IllegalStateException} naming the store.</li>
 *   <li>I/O failures are {@link dev.zarrdirect.api.StoreException}s naming the store and the key;
 *       writes to a {@linkplain #isReadOnly() read-only} store are refused with one too.</li>
 *   <li>Reads allocate the range's length from the caller's allocator before they read the bytes,
 *       or, where the length is not known first (a streamed HTTP body), stop reading at
 *       {@link ReadBound#maxBytesOf} of it; so a {@link ReadBound} (what
 *       {@link #get(String, ByteRange, long, SegmentAllocator)} passes) bounds every read of a
 *       value written by someone else before memory is taken.</li>
 * </ul>
 *
 * <h2>Memory</h2>
 * Reads copy into memory from the caller's {@link SegmentAllocator}, so the caller decides the
 * lifetime of what it reads (an {@link java.lang.foreign.Arena} it closes); later writes to the
 * store never change a segment already returned. Writes copy the value in, so the caller may reuse
 * its segment as soon as {@link #set} returns.
 *
 * {@snippet :
 * try (Store store = ...; Arena arena = Arena.ofConfined()) {
 *     Optional<MemorySegment> meta = store.get("t2m/zarr.json", arena);                // whole value
 *     Optional<MemorySegment> tail = store.get("t2m/c/0/0", ByteRange.suffix(16), arena); // last 16 bytes
 *     long size = store.size("t2m/c/0/0");                                              // -1 if absent
 *     List<String> children = store.listDir("t2m/");          // ["t2m/c/", "t2m/zarr.json"]
 * }
 * }
 *
 * <p>Decorators that change a few operations extend {@link FilterStore}.
 */
public interface Store extends AutoCloseable {

    /**
     * Reads {@code range} of the value at {@code key} into memory from {@code allocator}.
     *
     * @param key       the key, relative to the store's root ({@code t2m/c/0/3/1})
     * @param range     the bytes to read; {@link ByteRange#ALL} for the whole value
     * @param allocator where the returned segment comes from; the caller owns that memory
     * @return a new segment of exactly the range's length, or empty when the key does not exist (a
     *         directory of keys is not itself a value)
     * @throws dev.zarrdirect.api.InvalidKeyException when the key is invalid
     * @throws dev.zarrdirect.api.StoreException      when the range does not fit in the value, or the read fails
     * @throws IllegalStateException                  when the store is closed
     */
    Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator);

    /**
     * Reads {@code range} of the value at {@code key}, refusing values longer than {@code maxBytes}
     * before memory is allocated or bytes are read: the read for values written by others, whose
     * declared sizes cannot be trusted. Every store bounds its reads through a {@link ReadBound}
     * around {@code allocator}; stores that read before they know a length (an HTTP body without
     * {@code Content-Length}) stop at the limit. By default
     * {@code get(key, range, ReadBound.of(allocator, maxBytes, toString(), key))}, with the length
     * of the result checked too.
     *
     * @param key       the key, relative to the store's root
     * @param range     the bytes to read; {@link ByteRange#ALL} for the whole value
     * @param maxBytes  the most bytes the caller accepts for the range, zero or more
     * @param allocator where the returned segment comes from; the caller owns that memory
     * @return a new segment of exactly the range's length, or empty when the key does not exist
     * @throws dev.zarrdirect.api.StoreException      when the range's length (declared or seen)
     *                                                exceeds {@code maxBytes}, naming the store,
     *                                                the key, the length and the limit; or as
     *                                                {@link #get(String, ByteRange, SegmentAllocator)}
     * @throws dev.zarrdirect.api.InvalidKeyException when the key is invalid
     * @throws IllegalArgumentException               when {@code maxBytes} is negative
     * @throws IllegalStateException                  when the store is closed
     */
    default Optional<MemorySegment> get(String key, ByteRange range, long maxBytes, SegmentAllocator allocator) {
        Optional<MemorySegment> got = get(key, range, ReadBound.of(allocator, maxBytes, toString(), key));
        // A store that hands out views (no allocation) still must not exceed the limit.
        if (got.isPresent() && got.get().byteSize() > maxBytes) {
            throw ReadBound.tooLarge(toString(), key, got.get().byteSize(), maxBytes, "the value read");
        }
        return got;
    }

    /**
     * Reads the whole value: {@code get(key, ByteRange.ALL, allocator)}.
     *
     * @param key       the key, relative to the store's root
     * @param allocator where the returned segment comes from; the caller owns that memory
     * @return a new segment holding the value, or empty when the key does not exist
     * @throws dev.zarrdirect.api.InvalidKeyException when the key is invalid
     * @throws dev.zarrdirect.api.StoreException      when the read fails
     * @throws IllegalStateException                  when the store is closed
     */
    default Optional<MemorySegment> get(String key, SegmentAllocator allocator) {
        return get(key, ByteRange.ALL, allocator);
    }

    /**
     * The size of the value, without reading it.
     *
     * @param key the key, relative to the store's root
     * @return the size in bytes, or -1 when the key does not exist
     * @throws dev.zarrdirect.api.InvalidKeyException when the key is invalid
     * @throws dev.zarrdirect.api.StoreException      when the store cannot tell
     * @throws IllegalStateException                  when the store is closed
     */
    long size(String key);

    /**
     * Whether a value exists at {@code key}: {@code size(key) >= 0}.
     *
     * @param key the key, relative to the store's root
     * @return true when {@link #get} would return a value
     * @throws dev.zarrdirect.api.InvalidKeyException when the key is invalid
     * @throws dev.zarrdirect.api.StoreException      when the store cannot tell
     */
    default boolean exists(String key) {
        return size(key) >= 0;
    }

    /**
     * Stores {@code value} at {@code key}, replacing any earlier value atomically. The bytes are
     * copied before this returns; the caller keeps owning {@code value}.
     *
     * @param key   the key, relative to the store's root
     * @param value the bytes to store (heap or native); may be empty
     * @throws dev.zarrdirect.api.InvalidKeyException when the key is invalid
     * @throws dev.zarrdirect.api.StoreException      when the write fails (the old value, if any, stays)
     *                                                or the store is read-only
     * @throws IllegalStateException                  when the store is closed
     */
    void set(String key, MemorySegment value);

    /**
     * Removes the key; removing a missing key does nothing.
     *
     * @param key the key, relative to the store's root
     * @throws dev.zarrdirect.api.InvalidKeyException when the key is invalid
     * @throws dev.zarrdirect.api.StoreException      when the removal fails or the store is read-only
     * @throws IllegalStateException                  when the store is closed
     */
    void delete(String key);

    /**
     * Removes every key under {@code prefix} (a {@code /}-terminated directory or empty for all), one
     * {@link #delete} per key of {@link #list}: not atomic, so a failure leaves some keys removed.
     *
     * @param prefix the directory, ending in {@code /}, or {@code ""} for the whole store
     * @throws dev.zarrdirect.api.InvalidKeyException when the prefix is invalid
     * @throws dev.zarrdirect.api.StoreException      when listing or a removal fails
     */
    default void deletePrefix(String prefix) {
        for (String k : list(prefix)) {
            delete(k);
        }
    }

    /**
     * Every key that starts with {@code prefix}, at any depth, sorted. The prefix is matched as text:
     * {@code "t2m"} also finds {@code t2m.json}; end it with {@code /} for a directory.
     *
     * @param prefix {@code ""} for every key, or a valid key optionally followed by {@code /}
     * @return full keys (not relative to the prefix), sorted; empty when none match
     * @throws dev.zarrdirect.api.InvalidKeyException when the prefix is invalid
     * @throws dev.zarrdirect.api.StoreException      when listing fails, or the store cannot list at
     *                                                all (an HTTP store)
     * @throws IllegalStateException                  when the store is closed
     */
    List<String> list(String prefix);

    /**
     * The immediate children of the directory {@code prefix} (empty or ending in {@code /}): keys
     * and sub-directories (the latter ending in {@code /}), sorted. The stores of this project also
     * accept a prefix without the trailing {@code /}.
     *
     * @param prefix the directory: {@code ""} for the root, or a path ending in {@code /}
     * @return full keys (the prefix included: {@code listDir("t2m/")} gives {@code "t2m/c/"},
     *         {@code "t2m/zarr.json"}), sorted; empty for a missing directory
     * @throws dev.zarrdirect.api.InvalidKeyException when the prefix is invalid
     * @throws dev.zarrdirect.api.StoreException      when listing fails, or the store cannot list at
     *                                                all (an HTTP store)
     * @throws IllegalStateException                  when the store is closed
     */
    List<String> listDir(String prefix);

    /**
     * The local file holding the value at {@code key}, for stores whose values are whole files
     * (so that a backend's direct reader can read them into device memory); empty otherwise. The
     * file need not exist: this maps a key to a path and reads nothing. By default empty.
     *
     * @param key the key, relative to the store's root
     * @return the file, or empty for stores whose values are not whole local files
     * @throws dev.zarrdirect.api.InvalidKeyException when the key is invalid (for stores that have files)
     */
    default java.util.Optional<java.nio.file.Path> localPath(String key) {
        return java.util.Optional.empty();
    }

    /**
     * Whether this store refuses writes ({@link #set}, {@link #delete}) with a
     * {@link dev.zarrdirect.api.StoreException}. By default false.
     *
     * @return true for a read-only store
     */
    default boolean isReadOnly() {
        return false;
    }

    /**
     * A short description naming the kind and location, used in every error message:
     * {@code FileSystemStore(root=/data/era5.zarr)}.
     *
     * @return the description; never null, and available after close
     */
    @Override
    String toString();

    /**
     * Releases what the store holds (file handles, connections, memory). Closing twice is harmless.
     * By default nothing.
     */
    @Override
    default void close() {
    }
}
