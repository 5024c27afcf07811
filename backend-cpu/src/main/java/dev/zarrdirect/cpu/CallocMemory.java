// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Zeroed native memory from the C library's {@code calloc}, freed when an arena closes.
 *
 * <h2>Why not {@link Arena#allocate}</h2>
 * {@code Arena.allocate} clears every byte on the allocating thread. For a read's output of
 * hundreds of MiB that is one thread faulting in and zeroing every page (about 250 ms for 528 MiB
 * measured on a loaded 2-core machine) before any worker writes a byte, and for a host read that
 * is a serial phase as long as the decode itself. {@code calloc} takes memory of that size
 * straight from the kernel ({@code mmap}), already zero and not yet touched: each page is faulted
 * in by the worker that first writes it, in parallel, and nothing is written twice.
 *
 * <p>When the C library's functions cannot be found, {@link #allocate} falls back to
 * {@code Arena.allocate}.
 */
final class CallocMemory {

    private static final MethodHandle CALLOC;
    private static final MethodHandle FREE;

    static {
        MethodHandle calloc = null;
        MethodHandle free = null;
        try {
            Linker linker = Linker.nativeLinker();
            var lookup = linker.defaultLookup();
            var c = lookup.find("calloc");
            var f = lookup.find("free");
            if (c.isPresent() && f.isPresent()) {
                calloc = linker.downcallHandle(c.get(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
                free = linker.downcallHandle(f.get(), FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
            }
        } catch (RuntimeException | LinkageError e) {
            // no native access or an unusual platform: Arena.allocate still works
        }
        CALLOC = calloc;
        FREE = free;
    }

    private CallocMemory() {
    }

    /** True when {@code calloc} is in use, rather than the fallback. */
    static boolean available() {
        return CALLOC != null;
    }

    /**
     * {@code size} zeroed bytes aligned to {@code alignment} (a power of two), valid until
     * {@code arena} closes, which frees them.
     *
     * @throws OutOfMemoryError when the C library has no memory to give
     */
    static MemorySegment allocate(Arena arena, long size, long alignment) {
        if (CALLOC == null) {
            return arena.allocate(size, alignment);
        }
        long total = size + alignment - 1;
        MemorySegment raw;
        try {
            raw = (MemorySegment) CALLOC.invokeExact(1L, total);
        } catch (Throwable t) {
            throw new IllegalStateException("calloc of " + total + " bytes failed: " + t, t);
        }
        if (raw.address() == 0) {
            throw new OutOfMemoryError("calloc could not allocate " + total + " bytes of host memory");
        }
        MemorySegment owned = raw.reinterpret(total, arena, CallocMemory::free);
        long skip = (alignment - raw.address() % alignment) % alignment;
        return owned.asSlice(skip, size);
    }

    private static void free(MemorySegment raw) {
        try {
            FREE.invokeExact(raw);
        } catch (Throwable t) {
            throw new IllegalStateException("free of " + raw + " failed: " + t, t);
        }
    }
}
