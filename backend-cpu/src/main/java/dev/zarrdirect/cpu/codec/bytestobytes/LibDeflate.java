// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * libdeflate's whole-buffer decompressors (the system's {@code libdeflate.so.0}: Debian and Ubuntu
 * {@code libdeflate0}, which libtiff depends on) through {@code java.lang.foreign}.
 *
 * <p>Why: a chunk is one whole buffer in and one of known size out, which is the case libdeflate is
 * written for, and it inflates 1.5-2x as fast as zlib (a C loop over 2 MiB of shuffled int16 at
 * level 1, one core: 0.45-0.47 against zlib's 0.28-0.31 GB/s; the CPU backend on gzip, zlib and
 * blosc-zlib stores 1.5-1.7x as fast as through {@link java.util.zip.Inflater}). Callers use it as a fast path only: any result but {@link #SUCCESS} sends the chunk to the
 * JDK's decoder, so every error message stays zlib's, the one the device kernels mirror.
 *
 * <p>Loading never fails the backend: a JVM without native access, or a system without the library,
 * leaves {@link #available()} false with the reason in {@link #failure()}. Decompressors (about 10 KB
 * of native state each) are pooled and live as long as the JVM; there are as many as threads ever
 * decoded at once.
 */
public final class LibDeflate {

    /** libdeflate's {@code LIBDEFLATE_SUCCESS}; other results are failures of one kind or another. */
    public static final int SUCCESS = 0;
    /** The names tried, in order: Debian's soname, then a development link. */
    static final List<String> NAMES = List.of("libdeflate.so.0", "libdeflate.so");

    private static final MethodHandle ALLOC;
    private static final MethodHandle ZLIB;
    private static final MethodHandle RAW;
    private static final String LOADED;
    private static final String FAILURE;
    private static final ConcurrentLinkedQueue<Decompressor> POOL = new ConcurrentLinkedQueue<>();

    /** A decompressor and the two {@code size_t} its calls report through (bytes in, bytes out). */
    private record Decompressor(MemorySegment state, MemorySegment inUsed, MemorySegment outUsed) {
    }

    /** What a call did: libdeflate's result, input bytes used and output bytes written on success. */
    public record Result(int status, long consumed, long produced) {
        public boolean ok() {
            return status == SUCCESS;
        }
    }

    static {
        MethodHandle alloc = null;
        MethodHandle zlib = null;
        MethodHandle raw = null;
        String loaded = null;
        String failure = null;
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup lib = null;
            StringBuilder tried = new StringBuilder();
            for (String name : NAMES) {
                try {
                    lib = SymbolLookup.libraryLookup(name, Arena.global());
                    loaded = name;
                    break;
                } catch (IllegalArgumentException e) { // not found by the dynamic loader
                    tried.append(tried.isEmpty() ? "" : ", ").append(name);
                }
            }
            if (lib == null) {
                failure = "no libdeflate found (tried " + tried + "; Debian and Ubuntu: apt install libdeflate0)";
            } else {
                // (decompressor, in, in_nbytes, out, out_nbytes_avail, actual_in_nbytes_ret, actual_out_nbytes_ret)
                FunctionDescriptor decompress = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS, ValueLayout.ADDRESS);
                alloc = linker.downcallHandle(lib.findOrThrow("libdeflate_alloc_decompressor"),
                        FunctionDescriptor.of(ValueLayout.ADDRESS));
                zlib = linker.downcallHandle(lib.findOrThrow("libdeflate_zlib_decompress_ex"), decompress);
                raw = linker.downcallHandle(lib.findOrThrow("libdeflate_deflate_decompress_ex"), decompress);
            }
        } catch (RuntimeException e) { // IllegalCallerException without native access; a symbol missing
            failure = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        boolean ok = failure == null && alloc != null;
        ALLOC = ok ? alloc : null;
        ZLIB = ok ? zlib : null;
        RAW = ok ? raw : null;
        LOADED = ok ? loaded : null;
        FAILURE = ok ? null : failure;
    }

    private LibDeflate() {
    }

    /** True when libdeflate was found and bound. */
    public static boolean available() {
        return FAILURE == null;
    }

    /** An empty zlib stream: header, a final fixed block holding only its end code, Adler-32 of nothing. */
    private static final byte[] EMPTY_ZLIB = {0x78, (byte) 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01};

    /** warm()'s answer once it has run (null before): later calls return it without a call. */
    private static volatile Boolean warmed;

    /**
     * Binds libdeflate and makes one call of it, once in the JVM, now rather than in a chunk's
     * decode; returns whether that call decoded as it should. Codecs that will inflate call it when they are made: the first use costs
     * some 120 ms here (2 cores: finding the library, the downcall handles, the first call's stub),
     * which inside a read would land on the first batch a device backend times on the host, and
     * make the host path look slower than it is. Never throws: false when libdeflate is unavailable
     * or did not decode the empty stream as it should (decodes then still try it, and any stream
     * it does not decode whole goes to zlib).
     */
    public static boolean warm() {
        Boolean done = warmed;
        if (done != null) {
            return done;
        }
        boolean ok = false;
        if (FAILURE == null) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment in = arena.allocate(EMPTY_ZLIB.length);
                MemorySegment.copy(MemorySegment.ofArray(EMPTY_ZLIB), 0, in, 0, EMPTY_ZLIB.length);
                Result r = zlib(in, 0, EMPTY_ZLIB.length, arena.allocate(1), 0, 0);
                ok = r.ok() && r.produced() == 0 && r.consumed() == EMPTY_ZLIB.length;
            } catch (RuntimeException e) {
                ok = false;
            }
        }
        warmed = ok; // threads racing here make the same call and get the same answer
        return ok;
    }

    /** Why libdeflate is not available, or null when it is. */
    public static String failure() {
        return FAILURE;
    }

    /** The library name the dynamic loader resolved ({@code libdeflate.so.0}), or null. */
    public static String library() {
        return LOADED;
    }

    /**
     * Decompresses the zlib stream (RFC 1950) at {@code src[off, off + len)} into at most {@code cap}
     * bytes of {@code dst} from {@code dstOff}; libdeflate checks the header and the Adler-32. The
     * stream may end before {@code len} (consumed says where) and decode to less than {@code cap}.
     * Both segments must be native.
     */
    public static Result zlib(MemorySegment src, long off, long len, MemorySegment dst, long dstOff, long cap) {
        return call(ZLIB, src, off, len, dst, dstOff, cap);
    }

    /** As {@link #zlib}, for raw deflate data (RFC 1951), which has no header and no check of its own. */
    public static Result raw(MemorySegment src, long off, long len, MemorySegment dst, long dstOff, long cap) {
        return call(RAW, src, off, len, dst, dstOff, cap);
    }

    private static Result call(MethodHandle fn, MemorySegment src, long off, long len, MemorySegment dst, long dstOff,
                               long cap) {
        if (FAILURE != null) {
            throw new IllegalStateException("libdeflate is unavailable: " + FAILURE);
        }
        if (!src.isNative() || !dst.isNative()) {
            throw new IllegalArgumentException("libdeflate reads and writes native memory only");
        }
        MemorySegment in = src.asSlice(off, len);
        MemorySegment out = dst.asSlice(dstOff, cap);
        Decompressor d = take();
        try {
            int status = (int) fn.invokeExact(d.state(), in, len, out, cap, d.inUsed(), d.outUsed());
            if (status != SUCCESS) {
                return new Result(status, -1, -1);
            }
            return new Result(status, d.inUsed().get(ValueLayout.JAVA_LONG, 0), d.outUsed().get(ValueLayout.JAVA_LONG, 0));
        } catch (Throwable t) {
            throw new IllegalStateException("libdeflate call failed", t);
        } finally {
            POOL.offer(d);
        }
    }

    private static Decompressor take() {
        Decompressor d = POOL.poll();
        if (d != null) {
            return d;
        }
        MemorySegment state;
        try {
            state = (MemorySegment) ALLOC.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("libdeflate_alloc_decompressor failed", t);
        }
        if (state.equals(MemorySegment.NULL)) {
            throw new OutOfMemoryError("libdeflate_alloc_decompressor returned NULL");
        }
        MemorySegment sizes = Arena.global().allocate(16, 8);
        return new Decompressor(state, sizes.asSlice(0, 8), sizes.asSlice(8, 8));
    }
}
