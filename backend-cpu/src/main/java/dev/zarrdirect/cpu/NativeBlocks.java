// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Large zeroed host blocks from the C library's {@code calloc} instead of an {@link Arena}.
 *
 * <p>An arena clears every byte of a new segment on the allocating thread. For the output of a
 * read (hundreds of MB: a slab of eight ERA5 steps is 528 MB) that is a single-threaded pass over
 * memory, with a page fault every 4 KiB, before any chunk is decoded into it: the S3 read benchmark
 * spent a third of its time there. {@code calloc} of a block this large maps fresh pages, which the
 * kernel supplies already zero on first touch, so the clearing costs nothing and the faults fall
 * on the decoding threads, in parallel. The bytes are zero either way.
 *
 * <p>Blocks below {@link #MIN_BYTES} and every block when {@code calloc} cannot be bound (native
 * access denied, no C library) come from an arena as before.
 */
final class NativeBlocks {

    /** Below this an arena's clearing is cheap and glibc serves calloc from its heap (which it clears). */
    static final long MIN_BYTES = 1L << 20;

    private static final MethodHandle CALLOC;
    private static final MethodHandle FREE;

    static {
        MethodHandle calloc = null;
        MethodHandle free = null;
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            calloc = libc.find("calloc").map(s -> linker.downcallHandle(s,
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG))).orElse(null);
            free = libc.find("free").map(s -> linker.downcallHandle(s,
                    FunctionDescriptor.ofVoid(ValueLayout.ADDRESS))).orElse(null);
        } catch (RuntimeException e) { // IllegalCallerException under --illegal-native-access=deny
            calloc = null;
        }
        CALLOC = free == null ? null : calloc;
        FREE = calloc == null ? null : free;
    }

    /** A block of zeroed memory and how to free it. */
    record Block(MemorySegment segment, Runnable free) {
    }

    private NativeBlocks() {
    }

    /** Whether large blocks come from calloc in this JVM. */
    static boolean callocBound() {
        return CALLOC != null;
    }

    /**
     * {@code size} zeroed bytes aligned to {@code alignment} (a power of two no larger than a page).
     *
     * @throws OutOfMemoryError when the memory cannot be had, as an arena throws
     */
    static Block allocate(long size, long alignment) {
        if (CALLOC == null || size < MIN_BYTES) {
            Arena arena = Arena.ofShared();
            try {
                return new Block(arena.allocate(size, alignment), arena::close);
            } catch (RuntimeException | Error e) {
                arena.close();
                throw e;
            }
        }
        MemorySegment base;
        try {
            // room to align: glibc returns 16-byte aligned pointers (a mapped block starts 16 bytes into its page)
            base = (MemorySegment) CALLOC.invokeExact(1L, size + alignment);
        } catch (Throwable t) {
            throw new IllegalStateException("calloc of " + size + " bytes failed", t);
        }
        if (base.address() == 0) {
            throw new OutOfMemoryError("cannot allocate " + size + " bytes of host memory (calloc returned NULL)");
        }
        long aligned = (base.address() + alignment - 1) & -alignment;
        // scoped to an arena as an arena's own block is, so that a segment kept past the block's
        // free fails on use instead of reading freed memory; closing the arena frees the block
        Arena arena = Arena.ofShared();
        try {
            MemorySegment segment = MemorySegment.ofAddress(aligned).reinterpret(size, arena, s -> free(base));
            return new Block(segment, arena::close);
        } catch (RuntimeException | Error e) {
            arena.close();
            free(base);
            throw e;
        }
    }

    private static void free(MemorySegment base) {
        try {
            FREE.invokeExact(base);
        } catch (Throwable t) {
            throw new IllegalStateException("free of a calloc block failed", t);
        }
    }
}
