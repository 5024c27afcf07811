// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * The free lists of a device backend's memory pool (CUDA's pinned pool, OpenCL's pinned, scratch and
 * device pools): free blocks by size, and the order they came back in. A request takes a free block
 * of its size or, failing that, the smallest free one of up to twice its size; a block given back is
 * kept, and when that would hold more than {@code retainedBytes} the blocks given back longest ago
 * make room, for the caller to free.
 *
 * <p>Why not refuse the newcomer, as a fixed budget would: the sizes a read asks for drift (a shared
 * batch's host part is its share of the batch, and the share moves), and a pool full of blocks of
 * sizes no longer asked for made every batch pin and release a new block: on NVIDIA's OpenCL (H200),
 * a host part of a 512 MiB class beside a pool of 128 and 256 MiB blocks (docs/performance.md,
 * "Shared batches: coarse ones, and OpenCL's").
 *
 * <p>Blocks are told apart by {@code equals} (records of their handle do). Not thread-safe: the pool
 * that holds the lists synchronizes.
 *
 * @param <B> a block: a handle and its size
 */
public final class FreeBlocks<B> {

    private final long retainedBytes;
    private final ToLongFunction<B> sizeOf;
    /** Free blocks by size, smallest first; in each list the most recently given back first. */
    private final TreeMap<Long, ArrayDeque<B>> bySize = new TreeMap<>();
    /** Every free block, given back longest ago first: the order blocks leave to make room. */
    private final LinkedHashSet<B> byAge = new LinkedHashSet<>();
    private long retained;

    /** Lists that keep at most {@code retainedBytes} of blocks, each of {@code sizeOf} bytes. */
    public FreeBlocks(long retainedBytes, ToLongFunction<B> sizeOf) {
        this.retainedBytes = retainedBytes;
        this.sizeOf = sizeOf;
    }

    /** A free block of {@code size} bytes, else the smallest of up to {@code 2 x size}; null when none. */
    public B take(long size) {
        var e = bySize.ceilingEntry(size);
        if (e == null || e.getKey() > 2 * size) {
            return null;
        }
        B b = e.getValue().pollFirst();
        if (e.getValue().isEmpty()) {
            bySize.remove(e.getKey());
        }
        byAge.remove(b);
        retained -= e.getKey();
        return b;
    }

    /**
     * Keeps {@code b}, letting go of the blocks given back longest ago to make room, and returns the
     * blocks the caller must free: those let go, or {@code b} itself when it is larger than the lists
     * keep in all.
     */
    public List<B> giveBack(B b) {
        long size = sizeOf.applyAsLong(b);
        if (size > retainedBytes) {
            return List.of(b);
        }
        List<B> out = new ArrayList<>();
        while (retained + size > retainedBytes) {
            B old = byAge.removeFirst();
            long oldSize = sizeOf.applyAsLong(old);
            ArrayDeque<B> q = bySize.get(oldSize);
            q.remove(old);
            if (q.isEmpty()) {
                bySize.remove(oldSize);
            }
            retained -= oldSize;
            out.add(old);
        }
        bySize.computeIfAbsent(size, k -> new ArrayDeque<>()).addFirst(b);
        byAge.addLast(b);
        retained += size;
        return out;
    }

    /** Every free block, given back longest ago first, emptying the lists. */
    public List<B> clear() {
        List<B> all = new ArrayList<>(byAge);
        bySize.clear();
        byAge.clear();
        retained = 0;
        return all;
    }

    /** Bytes of the free blocks. */
    public long retainedBytes() {
        return retained;
    }
}
