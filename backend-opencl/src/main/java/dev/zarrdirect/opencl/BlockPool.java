// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Free {@code cl_mem} blocks of one kind kept for reuse, by size class, as the CUDA backend's pinned
 * pool keeps its blocks: a request is rounded up to a power of two from 64 KiB, or with
 * {@code steps} above 1 to the next of {@code steps} even steps between two powers of two (at most
 * 1/steps wasted), requests over {@link #MAX_POOLED} are their own size and never kept, and a block
 * given back stays on its free list while the pool holds at most {@code retainedBytes}. The caller
 * makes and frees the blocks; the pool only remembers them. Thread-safe.
 */
final class BlockPool {

    /** A {@code cl_mem} of {@code size} bytes and, for mapped pinned memory, its host address ({@code 0} otherwise). */
    record Block(long mem, long ptr, long size) {
    }

    static final long MIN_CLASS = 64L << 10;
    static final long MAX_POOLED = 1L << 30;

    private final long retainedBytes;
    private final int steps;
    private final Map<Long, ArrayDeque<Block>> free = new HashMap<>();
    private long retained;
    private boolean closed;

    /** A pool of power-of-two classes. */
    BlockPool(long retainedBytes) {
        this(retainedBytes, 1);
    }

    /** A pool of {@code steps} classes per doubling (a power of two). */
    BlockPool(long retainedBytes, int steps) {
        if (steps < 1 || Integer.bitCount(steps) != 1) {
            throw new IllegalArgumentException("steps per doubling must be a power of two, not " + steps);
        }
        this.retainedBytes = retainedBytes;
        this.steps = steps;
    }

    /** The size of the block a request of {@code bytes} uses. */
    long blockSize(long bytes) {
        if (bytes > MAX_POOLED) {
            return bytes;
        }
        if (bytes <= MIN_CLASS) {
            return MIN_CLASS;
        }
        long step = Math.max(1, Long.highestOneBit(bytes) / steps);
        return (bytes + step - 1) / step * step;
    }

    /** A free block of {@code bytes}' size class, or null when none is kept. */
    synchronized Block take(long bytes) {
        ArrayDeque<Block> q = free.get(blockSize(bytes));
        Block b = q == null ? null : q.pollFirst();
        if (b != null) {
            retained -= b.size();
        }
        return b;
    }

    /** Keeps {@code b} for reuse and returns true, or returns false: the caller frees it. */
    synchronized boolean giveBack(Block b) {
        if (closed || b.size() > MAX_POOLED || b.size() != blockSize(b.size()) || retained + b.size() > retainedBytes) {
            return false;
        }
        free.computeIfAbsent(b.size(), k -> new ArrayDeque<>()).addFirst(b);
        retained += b.size();
        return true;
    }

    /** Empties the pool for good and returns the blocks it held, for the caller to free. */
    synchronized List<Block> close() {
        closed = true;
        List<Block> all = new ArrayList<>();
        free.values().forEach(all::addAll);
        free.clear();
        retained = 0;
        return all;
    }

    /** Bytes of the blocks kept. */
    synchronized long retainedBytes() {
        return retained;
    }
}
