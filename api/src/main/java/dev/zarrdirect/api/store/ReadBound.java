// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.store;

import dev.zarrdirect.api.StoreException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.Objects;

/**
 * An allocator that refuses to allocate more than a limit, for reads of values that other people
 * wrote: a hostile or broken store can declare any size (a 50 GB {@code Content-Length}, a zip
 * entry of 2^40 bytes, a sparse 20 GiB file), and every store allocates the value's length before
 * it reads the bytes. Wrapping the caller's allocator therefore bounds every store, decorators
 * included, before any memory is taken or any byte is read.
 *
 * <p>{@link Store#get(String, ByteRange, long, SegmentAllocator)} wraps the caller's allocator in
 * one. Stores that read before they know the length (an HTTP body without {@code Content-Length})
 * ask {@link #maxBytesOf} for the limit and stop reading there, and stores that learn a declared
 * size early call {@link #check} with it, so that the message names where the size came from.
 *
 * <p>Exceeding the limit throws a {@link StoreException} naming the store, the key, the size and
 * the limit. Instances are immutable; thread-safety of {@link #allocate} is the wrapped allocator's.
 */
public final class ReadBound implements SegmentAllocator {

    private final SegmentAllocator delegate;
    private final long maxBytes;
    private final String store;
    private final String key;

    private ReadBound(SegmentAllocator delegate, long maxBytes, String store, String key) {
        this.delegate = delegate;
        this.maxBytes = maxBytes;
        this.store = store;
        this.key = key;
    }

    /**
     * An allocator that passes allocations of at most {@code maxBytes} to {@code allocator} and
     * refuses larger ones. A bound wrapped again keeps the smaller limit.
     *
     * @param allocator where the memory comes from
     * @param maxBytes  the largest allocation allowed, zero or more
     * @param store     the store's description, for messages ({@link Store#toString()})
     * @param key       the key being read, for messages
     * @return the bounded allocator
     * @throws IllegalArgumentException when {@code maxBytes} is negative
     * @throws NullPointerException     when an argument is null
     */
    public static ReadBound of(SegmentAllocator allocator, long maxBytes, String store, String key) {
        Objects.requireNonNull(allocator, "allocator");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(key, "key");
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes is negative: " + maxBytes);
        }
        if (allocator instanceof ReadBound b) {
            return new ReadBound(b.delegate, Math.min(maxBytes, b.maxBytes), store, key);
        }
        return new ReadBound(allocator, maxBytes, store, key);
    }

    /**
     * The limit that {@code allocator} enforces: its {@link #maxBytes()} when it is a
     * {@code ReadBound}, otherwise {@link Long#MAX_VALUE} (no limit).
     *
     * @param allocator any allocator
     * @return the largest value it accepts
     */
    public static long maxBytesOf(SegmentAllocator allocator) {
        return allocator instanceof ReadBound b ? b.maxBytes : Long.MAX_VALUE;
    }

    /**
     * The largest allocation this allocator accepts.
     *
     * @return the limit in bytes
     */
    public long maxBytes() {
        return maxBytes;
    }

    /**
     * Checks a size before anything is read: throws when {@code bytes} is over the limit.
     *
     * @param bytes the size declared or seen
     * @param what  where it comes from, for the message: {@code "Content-Length"},
     *              {@code "the zip entry's declared size"}, {@code "the file's size"}
     * @throws StoreException when {@code bytes} exceeds the limit
     */
    public void check(long bytes, String what) {
        if (bytes > maxBytes) {
            throw tooLarge(store, key, bytes, maxBytes, what);
        }
    }

    /**
     * Checks a size against the limit of {@code allocator} when it is a {@code ReadBound}; does
     * nothing otherwise.
     *
     * @param allocator any allocator
     * @param bytes     the size declared or seen
     * @param what      where it comes from, for the message
     * @throws StoreException when {@code allocator} is a bound and {@code bytes} exceeds it
     */
    public static void check(SegmentAllocator allocator, long bytes, String what) {
        if (allocator instanceof ReadBound b) {
            b.check(bytes, what);
        }
    }

    /**
     * The exception for a value over its limit: {@code key "c/0/0" in FileSystemStore(root=/d):
     * the file's size is 21474836480 bytes, more than the limit of 4194304 bytes for this read}.
     *
     * @param store    the store's description
     * @param key      the key
     * @param bytes    the size declared or seen
     * @param maxBytes the limit
     * @param what     where the size comes from
     * @return the exception, to throw
     */
    public static StoreException tooLarge(String store, String key, long bytes, long maxBytes, String what) {
        return new StoreException(store, key, "key \"" + key + "\" in " + store + ": " + what + " is " + bytes
                + " bytes, more than the limit of " + maxBytes + " bytes for this read; the value is corrupt or"
                + " hostile, or the limit is too small for it");
    }

    /**
     * Allocates from the wrapped allocator after checking {@code byteSize} against the limit.
     *
     * @param byteSize  the size of the segment
     * @param byteAlignment its alignment
     * @return the wrapped allocator's segment
     * @throws StoreException when {@code byteSize} exceeds the limit; nothing is allocated then
     */
    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        check(byteSize, "the size to read");
        return delegate.allocate(byteSize, byteAlignment);
    }
}
