// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The arguments of one kernel launch as {@code cuLaunchKernel} takes them: each value in native
 * memory at its natural alignment, and a {@code void*} array pointing at each value in order.
 * Pointers and 64-bit integers are 8 bytes, {@code u32}/{@code int} 4 bytes, as in the kernel's C
 * signature. The memory lives in the arena passed to {@link #build}; it must stay open until
 * {@code cuLaunchKernel} returns (the driver copies the values at launch).
 */
public final class KernelArgs {

    private final List<long[]> values = new ArrayList<>(); // {size, value}

    /** A device or host pointer, or a {@code u64}/{@code size_t}. */
    public KernelArgs u64(long v) {
        values.add(new long[]{8, v});
        return this;
    }

    /** A {@code u32}, {@code int} or {@code unsigned}. */
    public KernelArgs u32(int v) {
        values.add(new long[]{4, v});
        return this;
    }

    public int count() {
        return values.size();
    }

    /** Byte offset of each value in the value block: natural alignment, in order. */
    public long[] offsets() {
        long[] off = new long[values.size()];
        long pos = 0;
        for (int i = 0; i < values.size(); i++) {
            long size = values.get(i)[0];
            pos = (pos + size - 1) / size * size;
            off[i] = pos;
            pos += size;
        }
        return off;
    }

    /** Writes the values and the pointer array into {@code arena}; returns the pointer array ({@code void**}). */
    public MemorySegment build(Arena arena) {
        long[] off = offsets();
        long total = values.isEmpty() ? 8 : off[off.length - 1] + values.getLast()[0];
        MemorySegment block = arena.allocate(total, 8);
        MemorySegment ptrs = arena.allocate(8L * Math.max(1, values.size()), 8);
        for (int i = 0; i < values.size(); i++) {
            long[] v = values.get(i);
            if (v[0] == 8) {
                block.set(ValueLayout.JAVA_LONG, off[i], v[1]);
            } else {
                block.set(ValueLayout.JAVA_INT, off[i], (int) v[1]);
            }
            ptrs.set(ValueLayout.JAVA_LONG, 8L * i, block.address() + off[i]);
        }
        return ptrs;
    }
}
