// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Free {@code cl_mem} blocks of one kind kept for reuse, by size class, as the CUDA backend's pinned
 * pool keeps its blocks: a request is rounded up to a power of two from 64 KiB (requests over
 * {@link #MAX_POOLED} are their own size and never kept), and a block given back stays on its free
 * list while the pool holds at most {@code retainedBytes}. The caller makes and frees the blocks; the
 * pool only remembers them. Thread-safe.
 */
final class BlockPool {

    /** A {@code cl_mem} of {@code size} bytes and, for mapped pinned memory, its host address ({@code 0} otherwise). */
    record Block(long mem, long ptr, long size) {
    }

    static final long MIN_CLASS = 64L << 10;
    static final long MAX_POOLED = 1L << 30;

    private final long retainedBytes;
    private final Map<Long, ArrayDeque<Block>> free = new HashMap<>();
    private long retained;
    private boolean closed;

    BlockPool(long retainedBytes) {
        this.retainedBytes = retainedBytes;
    }

    /** The size of the block a request of {@code bytes} uses. */
    static long blockSize(long bytes) {
        if (bytes > MAX_POOLED) {
            return bytes;
        }
        long b = Math.max(MIN_CLASS, Long.highestOneBit(Math.max(1, bytes)));
        return b < bytes ? b << 1 : b;
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
