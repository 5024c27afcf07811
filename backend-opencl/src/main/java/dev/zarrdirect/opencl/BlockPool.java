// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.kernels.FreeBlocks;

import java.util.List;

/**
 * Free {@code cl_mem} blocks of one kind kept for reuse, by size class: a request is rounded up to a
 * power of two from 64 KiB, or with {@code steps} above 1 to the next of {@code steps} even steps
 * between two powers of two (at most 1/steps wasted), and requests over {@link #MAX_POOLED} are their
 * own size and never kept. The free lists are the device backends' shared {@link FreeBlocks}: a
 * request may take a free block of up to twice its class, and a block given back makes room by
 * letting the oldest go (the caller frees them). The caller makes and frees the blocks; the pool only
 * remembers them. Thread-safe.
 */
final class BlockPool {

    /** A {@code cl_mem} of {@code size} bytes and, for mapped pinned memory, its host address ({@code 0} otherwise). */
    record Block(long mem, long ptr, long size) {
    }

    static final long MIN_CLASS = 64L << 10;
    static final long MAX_POOLED = 1L << 30;

    private final int steps;
    private final FreeBlocks<Block> free;
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
        this.steps = steps;
        this.free = new FreeBlocks<>(retainedBytes, Block::size);
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
        return size > MAX_POOLED ? null : free.take(size);
    }

    /**
     * Keeps {@code b} for reuse, making room by letting go of the blocks given back longest ago, and
     * returns the blocks the caller must free: those let go, or {@code b} itself when it is not kept
     * (the pool is closed, {@code b} is not of a size class or is larger than the pool keeps).
     */
    synchronized List<Block> giveBack(Block b) {
        if (closed || b.size() > MAX_POOLED || b.size() != blockSize(b.size())) {
            return List.of(b);
        }
        return free.giveBack(b);
    }

    /** Empties the pool for good and returns the blocks it held, for the caller to free. */
    synchronized List<Block> close() {
        closed = true;
        return free.clear();
    }

    /** Bytes of the blocks kept. */
    synchronized long retainedBytes() {
        return free.retainedBytes();
    }
}
