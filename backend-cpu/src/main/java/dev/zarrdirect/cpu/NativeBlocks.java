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
 *
 * <p><b>Huge pages.</b> On Linux, blocks of {@link #HUGE_MIN_BYTES} or more can be advised
 * {@code MADV_HUGEPAGE} before anything touches them. Where transparent huge pages are in
 * {@code madvise} mode (Ubuntu's default, and the GPU machine's), a 528 MB output is otherwise
 * faulted in 129,000 pages of 4 KiB by the decoding threads and unmapped page by page when freed;
 * advised, its whole 2 MiB stretches are faulted 2 MiB at a time. (numpy advises its large arrays
 * the same way.) The advice changes no byte; where the kernel refuses it, nothing happens.
 */
final class NativeBlocks {

    /** Below this an arena's clearing is cheap and glibc serves calloc from its heap (which it clears). */
    static final long MIN_BYTES = 1L << 20;
    /** Blocks this large or larger may be advised to use huge pages: at least two whole 2 MiB stretches. */
    static final long HUGE_MIN_BYTES = 8L << 20;
    private static final long HUGE_PAGE = 2L << 20;
    /** Linux's {@code MADV_HUGEPAGE} (asm-generic/mman-common.h, the same on every architecture). */
    private static final int MADV_HUGEPAGE = 14;

    private static final MethodHandle CALLOC;
    private static final MethodHandle FREE;
    private static final MethodHandle MADVISE;

    static {
        MethodHandle calloc = null;
        MethodHandle free = null;
        MethodHandle madvise = null;
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            calloc = libc.find("calloc").map(s -> linker.downcallHandle(s,
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG))).orElse(null);
            free = libc.find("free").map(s -> linker.downcallHandle(s,
                    FunctionDescriptor.ofVoid(ValueLayout.ADDRESS))).orElse(null);
            if (System.getProperty("os.name", "").startsWith("Linux")) {
                madvise = libc.find("madvise").map(s -> linker.downcallHandle(s, FunctionDescriptor.of(
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT)))
                        .orElse(null);
            }
        } catch (RuntimeException e) { // IllegalCallerException under --illegal-native-access=deny
            calloc = null;
        }
        CALLOC = free == null ? null : calloc;
        FREE = calloc == null ? null : free;
        MADVISE = CALLOC == null ? null : madvise;
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

    /** Whether blocks can be advised to use huge pages in this JVM (Linux, and calloc and madvise bound). */
    static boolean hugePageAdviceBound() {
        return MADVISE != null;
    }

    /** {@link #allocate(long, long, boolean)} with huge pages advised. */
    static Block allocate(long size, long alignment) {
        return allocate(size, alignment, true);
    }

    /**
     * {@code size} zeroed bytes aligned to {@code alignment} (a power of two no larger than a page);
     * with {@code hugePages}, a block of {@link #HUGE_MIN_BYTES} or more is advised to use huge pages.
     *
     * @throws OutOfMemoryError when the memory cannot be had, as an arena throws
     */
    static Block allocate(long size, long alignment, boolean hugePages) {
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
            if (hugePages && size >= HUGE_MIN_BYTES) {
                adviseHugePages(base.address(), size + alignment);
            }
            MemorySegment segment = MemorySegment.ofAddress(aligned).reinterpret(size, arena, s -> free(base));
            return new Block(segment, arena::close);
        } catch (RuntimeException | Error e) {
            arena.close();
            free(base);
            throw e;
        }
    }

    /**
     * Advises the whole 2 MiB stretches of {@code [address, address + length)}: the partial ones at
     * the ends share their pages with glibc's header and with whatever lies beyond.
     */
    private static void adviseHugePages(long address, long length) {
        if (MADVISE == null) {
            return;
        }
        long from = (address + HUGE_PAGE - 1) & -HUGE_PAGE;
        long to = (address + length) & -HUGE_PAGE;
        if (to <= from) {
            return;
        }
        try {
            int unused = (int) MADVISE.invokeExact(from, to - from, MADV_HUGEPAGE); // EINVAL without THP: fine
        } catch (Throwable t) {
            throw new IllegalStateException("madvise of a calloc block failed", t);
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
