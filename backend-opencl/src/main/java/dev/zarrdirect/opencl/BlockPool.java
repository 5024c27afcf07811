// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Free {@code cl_mem} blocks of one kind kept for reuse, by size class: a request is rounded up to a
 * power of two from 64 KiB, or with {@code steps} above 1 to the next of {@code steps} even steps
 * between two powers of two (at most 1/steps wasted), and requests over {@link #MAX_POOLED} are their
 * own size and never kept. A request takes a free block of its class or, failing that, the smallest
 * free one of up to twice its class; a block given back is kept, and when that would hold more than
 * {@code retainedBytes} the blocks given back longest ago make room (the caller frees them).
 *
 * <p>Why not refuse the newcomer, as a fixed budget would: the sizes a read asks for drift (a shared
 * batch's host part is its share of the batch, and the share moves), and a pool full of blocks of
 * classes no longer asked for made every batch map and release a new pinned block: a host part of 33
 * chunks of 8.3 MB (a 512 MiB class) beside 1 GiB kept of 128 and 256 MiB blocks, on NVIDIA's OpenCL
 * (H200), where pinning 512 MiB costs more than the copies through it. The caller makes and frees
 * the blocks; the pool only remembers them. Thread-safe.
 */
final class BlockPool {

    /** A {@code cl_mem} of {@code size} bytes and, for mapped pinned memory, its host address ({@code 0} otherwise). */
    record Block(long mem, long ptr, long size) {
    }

    static final long MIN_CLASS = 64L << 10;
    static final long MAX_POOLED = 1L << 30;

    private final long retainedBytes;
    private final int steps;
    /** Free blocks by size, smallest first; in each list the most recently given back first. */
    private final java.util.TreeMap<Long, ArrayDeque<Block>> free = new java.util.TreeMap<>();
    /** Every free block, given back longest ago first: the order blocks leave to make room. */
    private final java.util.LinkedHashSet<Block> byAge = new java.util.LinkedHashSet<>();
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

    /**
     * A free block for {@code bytes}: of its size class, else the smallest free block of up to twice
     * that class; null when none is kept.
     */
    synchronized Block take(long bytes) {
        long size = blockSize(bytes);
        if (size > MAX_POOLED) {
            return null;
        }
        var e = free.ceilingEntry(size);
        if (e == null || e.getKey() > 2 * size) {
            return null;
        }
        Block b = e.getValue().pollFirst();
        if (e.getValue().isEmpty()) {
            free.remove(e.getKey());
        }
        byAge.remove(b);
        retained -= b.size();
        return b;
    }

    /**
     * Keeps {@code b} for reuse, making room by letting go of the blocks given back longest ago, and
     * returns the blocks the caller must free: those let go, or {@code b} itself when it is not kept
     * (the pool is closed, {@code b} is not of a size class or is larger than the pool keeps).
     */
    synchronized List<Block> giveBack(Block b) {
        if (closed || b.size() > MAX_POOLED || b.size() != blockSize(b.size()) || b.size() > retainedBytes) {
            return List.of(b);
        }
        List<Block> out = new ArrayList<>();
        while (retained + b.size() > retainedBytes) {
            Block old = byAge.removeFirst();
            ArrayDeque<Block> q = free.get(old.size());
            q.remove(old);
            if (q.isEmpty()) {
                free.remove(old.size());
            }
            retained -= old.size();
            out.add(old);
        }
        free.computeIfAbsent(b.size(), k -> new ArrayDeque<>()).addFirst(b);
        byAge.addLast(b);
        retained += b.size();
        return out;
    }

    /** Empties the pool for good and returns the blocks it held, for the caller to free. */
    synchronized List<Block> close() {
        closed = true;
        List<Block> all = new ArrayList<>(byAge);
        free.clear();
        byAge.clear();
        retained = 0;
        return all;
    }

    /** Bytes of the blocks kept. */
    synchronized long retainedBytes() {
        return retained;
    }
}
