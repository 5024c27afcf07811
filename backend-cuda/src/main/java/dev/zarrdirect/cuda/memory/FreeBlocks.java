// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.TreeMap;

/**
 * The free lists of {@link PinnedHostPool}: blocks by size, and the order they came back in. A
 * request takes a free block of its size or, failing that, the smallest free one of up to twice its
 * size; a block given back is kept, and when that would hold more than {@code retainedBytes} the
 * blocks given back longest ago make room (the caller frees them). The sizes a read asks for drift
 * (a shared batch's host part is its share of the batch, and the share moves), so a budget that
 * refused newcomers would keep blocks of sizes no longer asked for and pin a new block every batch;
 * the OpenCL backend's {@code BlockPool} keeps its blocks the same way (measured there: H200, a host
 * part of a 512 MiB class beside 1 GiB of 128 and 256 MiB blocks). Not thread-safe: the pool
 * synchronizes.
 */
final class FreeBlocks {

    /** A free block: its address and size. */
    record Block(long address, long size) {
    }

    private final long retainedBytes;
    /** Free blocks by size, smallest first; in each list the most recently given back first. */
    private final TreeMap<Long, ArrayDeque<Long>> bySize = new TreeMap<>();
    /** Every free block's size by address, given back longest ago first. */
    private final LinkedHashMap<Long, Long> byAge = new LinkedHashMap<>();
    private long retained;

    FreeBlocks(long retainedBytes) {
        this.retainedBytes = retainedBytes;
    }

    /** A free block of {@code size} bytes, else the smallest of up to {@code 2 x size}; null when none. */
    Block take(long size) {
        var e = bySize.ceilingEntry(size);
        if (e == null || e.getKey() > 2 * size) {
            return null;
        }
        long address = e.getValue().pollFirst();
        if (e.getValue().isEmpty()) {
            bySize.remove(e.getKey());
        }
        byAge.remove(address);
        retained -= e.getKey();
        return new Block(address, e.getKey());
    }

    /**
     * Keeps the block at {@code address} of {@code size} bytes when {@code size} is at most what the
     * lists keep in all, letting go of the oldest to make room; returns the addresses the caller must
     * free (those let go, or {@code address} itself when the block is not kept).
     */
    List<Long> giveBack(long address, long size) {
        if (size > retainedBytes) {
            return List.of(address);
        }
        List<Long> out = new ArrayList<>();
        while (retained + size > retainedBytes) {
            var oldest = byAge.pollFirstEntry();
            ArrayDeque<Long> q = bySize.get(oldest.getValue());
            q.remove(oldest.getKey());
            if (q.isEmpty()) {
                bySize.remove(oldest.getValue());
            }
            retained -= oldest.getValue();
            out.add(oldest.getKey());
        }
        bySize.computeIfAbsent(size, k -> new ArrayDeque<>()).addFirst(address);
        byAge.put(address, size);
        retained += size;
        return out;
    }

    /** Every free block's address and size, emptying the lists. */
    List<Block> clear() {
        List<Block> all = new ArrayList<>();
        byAge.forEach((a, s) -> all.add(new Block(a, s)));
        bySize.clear();
        byAge.clear();
        retained = 0;
        return all;
    }

    /** Bytes of the free blocks. */
    long retainedBytes() {
        return retained;
    }
}
