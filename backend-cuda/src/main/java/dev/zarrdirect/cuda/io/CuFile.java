// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * NVIDIA's cuFile API (GPUDirect Storage, {@code libcufile.so.0}) and the two libc calls the reader
 * needs ({@code open}, {@code close}), through {@code java.lang.foreign}. The structs are declared
 * here from the public cuFile API reference ({@code cufile.h}); each layout names the documented
 * struct it mirrors. Only the x86-64 / AArch64 Linux LP64 ABI is assumed (int 4 bytes, pointers,
 * {@code size_t} and {@code off_t} 8 bytes).
 */
public final class CuFile {

    /** The library name of the GDS user-space library. */
    public static final String LIBRARY = "libcufile.so.0";

    /** {@code CUfileError_t}: {@code { CUfileOpError err; CUresult cu_err; }}, returned by value. */
    static final StructLayout CUFILE_ERROR = MemoryLayout.structLayout(JAVA_INT.withName("err"), JAVA_INT.withName("cu_err"));

    /**
     * {@code CUfileDescr_t}: {@code { CUfileFileHandleType type; union { int fd; void *handle; } handle;
     * const CUfileFSOps_t *fs_ops; }} — the union is pointer-sized and pointer-aligned, so 4 bytes of
     * padding follow {@code type}: 24 bytes in all.
     */
    static final StructLayout CUFILE_DESCR = MemoryLayout.structLayout(
            JAVA_INT.withName("type"), MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("handle"), ADDRESS.withName("fs_ops"));

    /**
     * {@code CUfileDrvProps_t}: {@code { struct { unsigned major_version, minor_version; size_t
     * poll_thresh_size, max_direct_io_size; unsigned dstatusflags, dcontrolflags; } nvfs; unsigned
     * fflags, max_device_cache_size, per_buffer_cache_size, max_device_pinned_mem_size,
     * max_batch_io_size, max_batch_io_timeout_msecs; }} — 56 bytes.
     */
    static final StructLayout CUFILE_DRV_PROPS = MemoryLayout.structLayout(
            JAVA_INT.withName("major_version"), JAVA_INT.withName("minor_version"),
            JAVA_LONG.withName("poll_thresh_size"), JAVA_LONG.withName("max_direct_io_size"),
            JAVA_INT.withName("dstatusflags"), JAVA_INT.withName("dcontrolflags"),
            JAVA_INT.withName("fflags"), JAVA_INT.withName("max_device_cache_size"),
            JAVA_INT.withName("per_buffer_cache_size"), JAVA_INT.withName("max_device_pinned_mem_size"),
            JAVA_INT.withName("max_batch_io_size"), JAVA_INT.withName("max_batch_io_timeout_msecs"));

    /** {@code CU_FILE_HANDLE_TYPE_OPAQUE_FD}. */
    static final int HANDLE_TYPE_OPAQUE_FD = 1;
    /** {@code CU_FILE_SUCCESS}. */
    static final int SUCCESS = 0;
    /** Bit {@code CU_FILE_ALLOW_COMPAT_MODE} of {@code dcontrolflags} ({@code CUfileDriverControlFlags_t}). */
    static final int CONTROL_ALLOW_COMPAT_MODE = 1;
    /** Bit {@code CU_FILE_USE_POLL_MODE} of {@code dcontrolflags}. */
    static final int CONTROL_USE_POLL_MODE = 0;
    /** Bit {@code CU_FILE_BATCH_IO_SUPPORTED} of {@code fflags} ({@code CUfileFeatureFlags_t}). */
    static final int FEATURE_BATCH_IO = 1;

    static final int O_RDONLY = 0;
    /** {@code O_DIRECT}: 040000 on x86-64, 0200000 on AArch64 (Linux asm-generic vs arm64 fcntl.h). */
    static final int O_DIRECT = System.getProperty("os.arch", "").equals("aarch64") ? 0200000 : 040000;

    private static volatile CuFile instance;
    private static volatile String failure;

    private final MethodHandle driverOpen, driverClose, handleRegister, handleDeregister, read, bufRegister,
            bufDeregister, driverGetProperties, getVersion, open, close;

    private CuFile(SymbolLookup lib) {
        Linker linker = Linker.nativeLinker();
        FunctionDescriptor err0 = FunctionDescriptor.of(CUFILE_ERROR);
        driverOpen = linker.downcallHandle(find(lib, "cuFileDriverOpen"), err0);
        MemorySegment close2 = lib.find("cuFileDriverClose_v2").or(() -> lib.find("cuFileDriverClose")).orElse(null);
        driverClose = close2 == null ? null : linker.downcallHandle(close2, err0);
        handleRegister = linker.downcallHandle(find(lib, "cuFileHandleRegister"),
                FunctionDescriptor.of(CUFILE_ERROR, ADDRESS, ADDRESS));
        handleDeregister = linker.downcallHandle(find(lib, "cuFileHandleDeregister"), FunctionDescriptor.ofVoid(JAVA_LONG));
        read = linker.downcallHandle(find(lib, "cuFileRead"),
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Linker.Option.captureCallState("errno"));
        bufRegister = linker.downcallHandle(find(lib, "cuFileBufRegister"),
                FunctionDescriptor.of(CUFILE_ERROR, JAVA_LONG, JAVA_LONG, JAVA_INT));
        bufDeregister = linker.downcallHandle(find(lib, "cuFileBufDeregister"), FunctionDescriptor.of(CUFILE_ERROR, JAVA_LONG));
        driverGetProperties = lib.find("cuFileDriverGetProperties")
                .map(s -> linker.downcallHandle(s, FunctionDescriptor.of(CUFILE_ERROR, ADDRESS))).orElse(null);
        getVersion = lib.find("cuFileGetVersion")
                .map(s -> linker.downcallHandle(s, FunctionDescriptor.of(CUFILE_ERROR, ADDRESS))).orElse(null);
        SymbolLookup libc = linker.defaultLookup();
        open = linker.downcallHandle(find(libc, "open"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
                Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));
        close = linker.downcallHandle(find(libc, "close"), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    private static MemorySegment find(SymbolLookup lib, String name) {
        return lib.find(name).orElseThrow(() -> new IllegalStateException("no symbol " + name + " in " + LIBRARY));
    }

    /** The library, or empty with {@link #failure()} saying why. Loads once per process. */
    public static Optional<CuFile> load() {
        if (instance == null && failure == null) {
            synchronized (CuFile.class) {
                if (instance == null && failure == null) {
                    try {
                        instance = new CuFile(SymbolLookup.libraryLookup(LIBRARY, Arena.global()));
                    } catch (IllegalArgumentException e) {
                        failure = LIBRARY + " not found (GPUDirect Storage is not installed)";
                    } catch (RuntimeException | UnsatisfiedLinkError e) {
                        failure = LIBRARY + " is unusable: " + e.getMessage();
                    }
                }
            }
        }
        return Optional.ofNullable(instance);
    }

    public static String failure() {
        load();
        return failure;
    }

    private static final VarHandle ERR = CUFILE_ERROR.varHandle(MemoryLayout.PathElement.groupElement("err"));
    private static final VarHandle CU_ERR = CUFILE_ERROR.varHandle(MemoryLayout.PathElement.groupElement("cu_err"));

    /**
     * A failed cuFile call: the message names the call, the {@code CUfileOpError} by name and
     * meaning ({@link CuFileErrors}) and a non-zero {@code CUresult} by the driver's name.
     */
    public static final class CuFileException extends IllegalStateException {
        private final int err;
        private final int cuErr;

        CuFileException(String call, int err, int cuErr) {
            super(call + " failed: " + CuFileErrors.describe(err, cuErr, CuFile::cuResultName));
            this.err = err;
            this.cuErr = cuErr;
        }

        /** The {@code CUfileOpError}. */
        public int err() {
            return err;
        }

        /** The {@code CUresult}, 0 when the CUDA driver was not at fault. */
        public int cuErr() {
            return cuErr;
        }
    }

    /** The driver's name for a {@code CUresult} ({@code CUDA_ERROR_INVALID_VALUE}), or null without a driver. */
    static String cuResultName(int rc) {
        return dev.zarrdirect.cuda.driver.CudaDriver.load().map(d -> d.errorName(rc)).orElse(null);
    }

    /** Turns a returned {@code CUfileError_t} into null (success) or a description. */
    static String error(MemorySegment e) {
        int err = (int) ERR.get(e, 0L);
        int cu = (int) CU_ERR.get(e, 0L);
        return err == SUCCESS ? null : CuFileErrors.describe(err, cu, CuFile::cuResultName);
    }

    /** Throws a {@link CuFileException} for a failed {@code CUfileError_t}. */
    static void check(MemorySegment e, String call) {
        int err = (int) ERR.get(e, 0L);
        if (err != SUCCESS) {
            throw new CuFileException(call, err, (int) CU_ERR.get(e, 0L));
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** {@code cuFileDriverOpen()}: null on success, else the error. */
    String driverOpen() {
        try (Arena a = Arena.ofConfined()) {
            return error((MemorySegment) driverOpen.invokeExact((SegmentAllocator) a));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    String driverClose() {
        if (driverClose == null) {
            return null;
        }
        try (Arena a = Arena.ofConfined()) {
            return error((MemorySegment) driverClose.invokeExact((SegmentAllocator) a));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code CUfileDrvProps_t} as a segment, or null when the call is missing or fails. */
    MemorySegment driverProperties(Arena a) {
        if (driverGetProperties == null) {
            return null;
        }
        try {
            MemorySegment props = a.allocate(CUFILE_DRV_PROPS);
            String e = error((MemorySegment) driverGetProperties.invokeExact((SegmentAllocator) a, props));
            return e == null ? props : null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code cuFileGetVersion}, or -1. */
    int version() {
        if (getVersion == null) {
            return -1;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            String e = error((MemorySegment) getVersion.invokeExact((SegmentAllocator) a, v));
            return e == null ? v.get(JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code open(path, flags)}: the fd, or {@code -errno}. */
    int open(String path, int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(Linker.Option.captureStateLayout());
            int fd = (int) open.invokeExact(state, a.allocateFrom(path), flags, 0);
            return fd >= 0 ? fd : -errno(state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void close(int fd) {
        try {
            int ignored = (int) close.invokeExact(fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int errno(MemorySegment state) {
        return (int) Linker.Option.captureStateLayout()
                .varHandle(MemoryLayout.PathElement.groupElement("errno")).get(state, 0L);
    }

    /**
     * {@code cuFileHandleRegister} for an fd: the handle.
     *
     * @throws CuFileException naming {@code what} and the error when the call fails
     */
    long handleRegister(int fd, String what) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment descr = a.allocate(CUFILE_DESCR);
            descr.set(JAVA_INT, 0, HANDLE_TYPE_OPAQUE_FD);
            descr.set(JAVA_INT, 8, fd); // the union's int member, at its start
            MemorySegment fh = a.allocate(ADDRESS);
            check((MemorySegment) handleRegister.invokeExact((SegmentAllocator) a, fh, descr),
                    "cuFileHandleRegister(" + what + ")");
            return fh.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void handleDeregister(long fh) {
        try {
            handleDeregister.invokeExact(fh);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code cuFileBufRegister}: null on success, else the error. */
    String bufRegister(long address, long length) {
        try (Arena a = Arena.ofConfined()) {
            return error((MemorySegment) bufRegister.invokeExact((SegmentAllocator) a, address, length, 0));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    String bufDeregister(long address) {
        try (Arena a = Arena.ofConfined()) {
            return error((MemorySegment) bufDeregister.invokeExact((SegmentAllocator) a, address));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code cuFileRead(fh, base, size, file_offset, buf_offset)}: bytes read, or a negative value:
     * {@code -1} with {@code errnoOut[0]} set for a system error, {@code -CUfileOpError} otherwise.
     */
    long read(long fh, long base, long size, long fileOffset, long bufOffset, int[] errnoOut) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(Linker.Option.captureStateLayout());
            long r = (long) read.invokeExact(state, fh, base, size, fileOffset, bufOffset);
            errnoOut[0] = r == -1 ? errno(state) : 0;
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
