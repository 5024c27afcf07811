// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The portable kernel core compiled in host mode (gcc, {@code ZD_HOST}) into a shared library and
 * bound with java.lang.foreign. Built once per JVM into a temporary directory.
 */
final class HostKernels {
    static final Path C_SRC = Path.of(System.getProperty("zd.kernels.csrc", "src/main/c"));
    static final Path TEST_C = Path.of(System.getProperty("zd.kernels.testc", "src/test/c"));

    private static HostKernels instance;

    final Path dir;
    final MethodHandle zstdDecode;
    final MethodHandle zstdDecodeBatch;
    final MethodHandle crc32cBatch;
    final MethodHandle byteswap;
    final MethodHandle transpose;
    final MethodHandle scatter;
    final MethodHandle zstdMpDecodeBatch;
    final MethodHandle zstdMpScratchBytes;
    final MethodHandle zstdMpSlots;
    final MethodHandle zstdMpScan;
    final MethodHandle gather;
    final MethodHandle bloscDecodeBatch;
    final MethodHandle bloscScratchPerGroup;
    /** zd_host_{deflate,zlib,gzip}_decode_batch, indexed by format (0 raw deflate, 1 zlib, 2 gzip). */
    final MethodHandle[] inflateBatch = new MethodHandle[3];
    final MethodHandle inflateDecode;
    final MethodHandle setTailBarrier;
    final MethodHandle testMax;
    final MethodHandle inflateLdsBytes;
    final MethodHandle infsFind;
    final MethodHandle infsDecode;
    final MethodHandle infsSync;
    final MethodHandle infsFinish;
    final MethodHandle infsQuick;
    final long ldsBytes;
    final long scratchPerFrame;

    static synchronized HostKernels get() {
        if (instance == null) instance = new HostKernels();
        return instance;
    }

    private HostKernels() {
        try {
            dir = Files.createTempDirectory("zd-kernels-host");
            Path lib = dir.resolve("libzdhost.so");
            run(List.of("gcc", "-std=gnu11", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-pthread",
                    "-I", C_SRC.toString(), C_SRC.resolve("host/zd_host.c").toString(), "-o", lib.toString(), "-lm"), dir);
            SymbolLookup lookup = SymbolLookup.libraryLookup(lib, Arena.global());
            Linker linker = Linker.nativeLinker();
            zstdDecode = linker.downcallHandle(lookup.find("zd_host_zstd_decode").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_INT));
            zstdDecodeBatch = linker.downcallHandle(lookup.find("zd_host_zstd_decode_batch").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS,
                            JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT));
            crc32cBatch = linker.downcallHandle(lookup.find("zd_host_crc32c_batch").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT,
                            JAVA_INT));
            byteswap = linker.downcallHandle(lookup.find("zd_host_byteswap").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT));
            transpose = linker.downcallHandle(lookup.find("zd_host_transpose").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT,
                            JAVA_INT));
            scatter = linker.downcallHandle(lookup.find("zd_host_scatter").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS,
                            ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
            zstdMpDecodeBatch = linker.downcallHandle(lookup.find("zd_host_zstd_mp_decode_batch").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS,
                            ADDRESS, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
            zstdMpScratchBytes = linker.downcallHandle(lookup.find("zd_host_zstd_mp_scratch_bytes").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
            zstdMpSlots = linker.downcallHandle(lookup.find("zd_host_zstd_mp_slots").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
            zstdMpScan = linker.downcallHandle(lookup.find("zd_host_zstd_mp_scan").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_INT));
            gather = linker.downcallHandle(lookup.find("zd_host_gather").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT, JAVA_LONG,
                            JAVA_INT, JAVA_INT, JAVA_INT));
            bloscDecodeBatch = linker.downcallHandle(lookup.find("zd_host_blosc_decode_batch").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS,
                            ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
            bloscScratchPerGroup = linker.downcallHandle(lookup.find("zd_host_blosc_scratch_per_group").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT));
            String[] inflateEntries = {"zd_host_deflate_decode_batch", "zd_host_zlib_decode_batch", "zd_host_gzip_decode_batch"};
            for (int f = 0; f < 3; f++) {
                inflateBatch[f] = linker.downcallHandle(lookup.find(inflateEntries[f]).orElseThrow(),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS,
                                JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT));
            }
            inflateDecode = linker.downcallHandle(lookup.find("zd_host_inflate_decode").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
            setTailBarrier = linker.downcallHandle(lookup.find("zd_host_set_tail_barrier").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            testMax = linker.downcallHandle(lookup.find("zd_host_test_max").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
            inflateLdsBytes = linker.downcallHandle(lookup.find("zd_host_inflate_lds_bytes").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
            infsFind = linker.downcallHandle(lookup.find("zd_host_infs_find").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT));
            infsSync = linker.downcallHandle(lookup.find("zd_host_infs_sync").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT));
            infsDecode = linker.downcallHandle(lookup.find("zd_host_infs_decode").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
            infsFinish = linker.downcallHandle(lookup.find("zd_host_infs_finish").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, JAVA_INT,
                            JAVA_INT, JAVA_INT, ADDRESS));
            infsQuick = linker.downcallHandle(lookup.find("zd_host_infs_quick").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
            MethodHandle lds = linker.downcallHandle(lookup.find("zd_host_zstd_lds_bytes").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG));
            MethodHandle spf = linker.downcallHandle(lookup.find("zd_host_zstd_scratch_per_frame").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG));
            ldsBytes = (long) lds.invokeExact();
            scratchPerFrame = (long) spf.invokeExact();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot build or bind the host-mode kernels from " + C_SRC.toAbsolutePath(), t);
        }
    }

    /** Runs a command, failing with its output when it exits non-zero. Returns stdout+stderr. */
    static String run(List<String> cmd, Path cwd) throws IOException {
        Process p = new ProcessBuilder(new ArrayList<>(cmd)).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(20, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IOException("timed out: " + String.join(" ", cmd));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        if (p.exitValue() != 0) {
            throw new IOException("command failed (exit " + p.exitValue() + "): " + String.join(" ", cmd) + "\n" + out);
        }
        return out;
    }

    /** Decodes one chunk; dst gets guard bytes around it, checked by the caller. */
    int decode(MemorySegment src, MemorySegment dst, MemorySegment scratch, int localSize) {
        try {
            return (int) zstdDecode.invokeExact(src, src.byteSize(), dst, dst.byteSize(), scratch, scratch.byteSize(),
                    localSize);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Whether the kernels may let part of a group meet at a barrier of its own (ZD_TAIL_BARRIER_OK);
     * off, they run the loops of a front end without one (OpenCL's). Returns the setting before.
     */
    boolean setTailBarrier(boolean on) {
        try {
            return (int) setTailBarrier.invokeExact(on ? 1 : 0) != 0;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The largest value the kernels' ZD_TEST_MAX saw at {@code slot} since the last reset; reset: then 0. */
    int testMax(int slot, boolean reset) {
        try {
            return (int) testMax.invokeExact(slot, reset ? 1 : 0);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Decodes one deflate (format 0), zlib (1) or gzip (2) chunk into all of dst; the status word. */
    int inflate(MemorySegment src, MemorySegment dst, int format, int localSize) {
        try {
            return (int) inflateDecode.invokeExact(src, src.byteSize(), dst, dst.byteSize(), format, localSize);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** zd_host_infs_find over the {@code n} records at {@code segs} of the stream {@code src}. */
    void infsFind(MemorySegment src, int format, long rangeBytes, MemorySegment segs, int n) {
        try {
            check((int) infsFind.invokeExact(src, src.byteSize(), format, rangeBytes, segs, n), "find");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** zd_host_infs_sync: a start inside a block for every range of the {@code n} records that found none. */
    void infsSync(MemorySegment src, int format, long rangeBytes, MemorySegment segs, int n) {
        try {
            check((int) infsSync.invokeExact(src, src.byteSize(), format, rangeBytes, segs, n), "sync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** zd_host_infs_decode: every record with a start, or ({@code retry}) those marked for another decode. */
    void infsDecode(MemorySegment src, MemorySegment cells, MemorySegment segs, int n, boolean retry, int localSize) {
        try {
            check((int) infsDecode.invokeExact(src, src.byteSize(), cells, segs, n, retry ? 1 : 0, localSize), "decode");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** zd_host_infs_finish: chain, layout and check into {@code dst}; the stream's status. */
    int infsFinish(MemorySegment src, MemorySegment dst, MemorySegment cells, MemorySegment segs, int n, int format,
                   int localSize) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment status = a.allocate(4, 4);
            check((int) infsFinish.invokeExact(src, src.byteSize(), dst, dst.byteSize(), cells, segs, n, format,
                    localSize, status), "finish");
            return status.get(ValueLayout.JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static void check(int rc, String launch) {
        if (rc != 0) {
            throw new IllegalStateException("zd_host_infs_" + launch + ": out of memory");
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        return t instanceof RuntimeException r ? r : new IllegalStateException(t);
    }

    /** zd_host_infs_quick: 1 if a dynamic block header may start where v (64 bits) and hi (the next ones) are read. */
    int infsQuick(long v, long hi) {
        try {
            return (int) infsQuick.invokeExact(v, hi);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment copyOf(Arena arena, byte[] b) {
        MemorySegment s = arena.allocate(Math.max(1, b.length), 16);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s.asSlice(0, b.length);
    }
}
