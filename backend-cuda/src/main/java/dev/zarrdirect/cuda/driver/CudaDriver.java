// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The CUDA driver API ({@code libcuda.so.1}) through {@code java.lang.foreign}: the few dozen calls
 * the backend uses, each a thin method that checks the {@code CUresult} and throws a
 * {@link CudaException} naming the call.
 *
 * <h2>Symbols</h2>
 * Each call binds the symbol that {@code cuda.h} maps the name to ({@code cuMemAlloc} is exported as
 * {@code cuMemAlloc_v2}); the per-thread-default-stream variants ({@code _ptsz}) are never used, as
 * every asynchronous call here names its stream. Handles ({@code CUcontext}, {@code CUstream} …),
 * device pointers ({@code CUdeviceptr}) and host pointers passed by value are {@code long}s: on the
 * x86-64 and AArch64 C ABIs a pointer and a 64-bit integer travel in the same register class.
 *
 * <h2>Loading</h2>
 * {@link #load()} never throws: it says why the driver is missing in {@link #failure()}. The
 * instance is process-wide; {@code cuInit} runs once.
 */
public final class CudaDriver {

    public static final int CUDA_SUCCESS = 0;
    public static final int CUDA_ERROR_OUT_OF_MEMORY = 2;
    public static final int CUDA_ERROR_NOT_READY = 600;
    public static final int CUDA_ERROR_NO_DEVICE = 100;

    public static final int ATTR_MULTIPROCESSOR_COUNT = 16;
    public static final int ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39;
    public static final int ATTR_UNIFIED_ADDRESSING = 41;
    public static final int ATTR_CC_MAJOR = 75;
    public static final int ATTR_CC_MINOR = 76;
    public static final int ATTR_MAX_SHARED_PER_MULTIPROCESSOR = 81;
    public static final int ATTR_MANAGED_MEMORY = 83;
    public static final int ATTR_MAX_SHARED_PER_BLOCK_OPTIN = 97;
    public static final int ATTR_MEMORY_POOLS_SUPPORTED = 115;

    public static final int MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;
    public static final int MEMPOOL_ATTR_USED_MEM_CURRENT = 7;
    public static final int FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
    /** CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: the most threads a launch of the function may have (registers). */
    public static final int FUNC_ATTR_MAX_THREADS_PER_BLOCK = 0;
    public static final int POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
    public static final int MEMORYTYPE_HOST = 1;
    public static final int MEMORYTYPE_DEVICE = 2;
    public static final int MEMORYTYPE_UNIFIED = 4;
    public static final int MEMHOSTREGISTER_PORTABLE = 0x1;
    public static final int MEMHOSTREGISTER_DEVICEMAP = 0x2;
    public static final int MEMHOSTALLOC_PORTABLE = 0x1;
    public static final int MEMHOSTALLOC_DEVICEMAP = 0x2;
    public static final int STREAM_NON_BLOCKING = 0x1;
    /** CU_CTX_SCHED_*: how a host thread waits for the device. */
    public static final int CTX_SCHED_AUTO = 0x0, CTX_SCHED_SPIN = 0x1, CTX_SCHED_YIELD = 0x2, CTX_SCHED_BLOCKING_SYNC = 0x4;
    public static final int EVENT_DEFAULT = 0x0;
    public static final int EVENT_DISABLE_TIMING = 0x2;
    /** CU_EVENT_INTERPROCESS: an event another process can open ({@code cuIpcGetEventHandle}); needs DISABLE_TIMING. */
    public static final int EVENT_INTERPROCESS = 0x4;
    /** CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED. */
    public static final int ATTR_IPC_EVENT_SUPPORTED = 125;
    /** CU_IPC_HANDLE_SIZE: the bytes of a {@code CUipcMemHandle} or {@code CUipcEventHandle}. */
    public static final int IPC_HANDLE_SIZE = 64;
    /** CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, for {@link #ipcOpenMemHandle}. */
    public static final int IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1;
    public static final int MEM_ATTACH_GLOBAL = 0x1;

    /** The library name the driver is installed under on Linux. */
    public static final String LIBRARY = "libcuda.so.1";

    private static final Linker LINKER = Linker.nativeLinker();
    /** {@code CUipcMemHandle} and {@code CUipcEventHandle}: 64 opaque bytes, passed by value to the open calls. */
    private static final MemoryLayout IPC_HANDLE = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(IPC_HANDLE_SIZE, JAVA_BYTE).withName("reserved"));
    private static volatile CudaDriver instance;
    private static volatile String failure;

    private final SymbolLookup lib;
    private final MethodHandle cuInit, cuDriverGetVersion, cuGetErrorName, cuGetErrorString;
    private final MethodHandle cuDeviceGetCount, cuDeviceGet, cuDeviceGetName, cuDeviceGetAttribute, cuDeviceTotalMem;
    private final MethodHandle cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease, cuCtxSetCurrent, cuCtxSynchronize;
    private final MethodHandle cuDevicePrimaryCtxSetFlags;
    private final MethodHandle cuStreamCreate, cuStreamDestroy, cuStreamSynchronize, cuStreamWaitEvent;
    private final MethodHandle cuEventCreate, cuEventRecord, cuEventSynchronize, cuEventDestroy;
    private final MethodHandle cuMemAlloc, cuMemFree, cuMemAllocAsync, cuMemFreeAsync, cuDeviceGetDefaultMemPool;
    private final MethodHandle cuMemPoolSetAttribute, cuMemPoolGetAttribute, cuMemPoolTrimTo;
    private final MethodHandle cuMemAllocManaged, cuMemGetInfo;
    private final MethodHandle cuMemHostRegister, cuMemHostUnregister, cuMemHostAlloc, cuMemFreeHost;
    private final MethodHandle cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemcpyDtoDAsync, cuMemcpyAsync;
    private final MethodHandle cuMemsetD8Async, cuMemsetD32Async;
    private final MethodHandle cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuModuleGetGlobal;
    private final MethodHandle cuFuncSetAttribute, cuFuncGetAttribute, cuLaunchKernel, cuPointerGetAttribute;
    /** Bound when the driver has them (every Linux driver since CUDA 4.1); null otherwise. */
    private final MethodHandle cuIpcGetMemHandle, cuIpcOpenMemHandle, cuIpcCloseMemHandle, cuIpcGetEventHandle,
            cuIpcOpenEventHandle;

    private CudaDriver(SymbolLookup lib) {
        this.lib = lib;
        FunctionDescriptor iI = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
        FunctionDescriptor iA = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        FunctionDescriptor iL = FunctionDescriptor.of(JAVA_INT, JAVA_LONG);
        FunctionDescriptor iAL = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG);
        FunctionDescriptor iAI = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);
        FunctionDescriptor iLL = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG);
        FunctionDescriptor iLLL = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG);
        FunctionDescriptor iLLLL = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
        cuInit = bind(iI, "cuInit");
        cuDriverGetVersion = bind(iA, "cuDriverGetVersion");
        cuGetErrorName = bind(FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), "cuGetErrorName");
        cuGetErrorString = bind(FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), "cuGetErrorString");
        cuDeviceGetCount = bind(iA, "cuDeviceGetCount");
        cuDeviceGet = bind(iAI, "cuDeviceGet");
        cuDeviceGetName = bind(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), "cuDeviceGetName");
        cuDeviceGetAttribute = bind(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), "cuDeviceGetAttribute");
        cuDeviceTotalMem = bind(iAI, "cuDeviceTotalMem_v2");
        cuDevicePrimaryCtxRetain = bind(iAI, "cuDevicePrimaryCtxRetain");
        cuDevicePrimaryCtxRelease = bind(iI, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
        cuDevicePrimaryCtxSetFlags = bindOptional(FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
                "cuDevicePrimaryCtxSetFlags_v2", "cuDevicePrimaryCtxSetFlags");
        cuCtxSetCurrent = bind(iL, "cuCtxSetCurrent");
        cuCtxSynchronize = bind(FunctionDescriptor.of(JAVA_INT), "cuCtxSynchronize");
        cuStreamCreate = bind(iAI, "cuStreamCreate");
        cuStreamDestroy = bind(iL, "cuStreamDestroy_v2", "cuStreamDestroy");
        cuStreamSynchronize = bind(iL, "cuStreamSynchronize");
        cuStreamWaitEvent = bind(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), "cuStreamWaitEvent");
        cuEventCreate = bind(iAI, "cuEventCreate");
        cuEventRecord = bind(iLL, "cuEventRecord");
        cuEventSynchronize = bind(iL, "cuEventSynchronize");
        cuEventDestroy = bind(iL, "cuEventDestroy_v2", "cuEventDestroy");
        cuMemAlloc = bind(iAL, "cuMemAlloc_v2");
        cuMemFree = bind(iL, "cuMemFree_v2");
        cuMemAllocAsync = bindOptional(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), "cuMemAllocAsync");
        cuMemFreeAsync = bindOptional(iLL, "cuMemFreeAsync");
        cuDeviceGetDefaultMemPool = bindOptional(iAI, "cuDeviceGetDefaultMemPool");
        cuMemPoolSetAttribute = bindOptional(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS), "cuMemPoolSetAttribute");
        cuMemPoolGetAttribute = bindOptional(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS), "cuMemPoolGetAttribute");
        cuMemPoolTrimTo = bindOptional(iLL, "cuMemPoolTrimTo");
        cuMemAllocManaged = bind(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), "cuMemAllocManaged");
        cuMemGetInfo = bind(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), "cuMemGetInfo_v2");
        cuMemHostRegister = bind(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), "cuMemHostRegister_v2");
        cuMemHostUnregister = bind(iL, "cuMemHostUnregister");
        cuMemHostAlloc = bind(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), "cuMemHostAlloc");
        cuMemFreeHost = bind(iL, "cuMemFreeHost");
        cuMemcpyHtoDAsync = bind(iLLLL, "cuMemcpyHtoDAsync_v2");
        cuMemcpyDtoHAsync = bind(iLLLL, "cuMemcpyDtoHAsync_v2");
        cuMemcpyDtoDAsync = bind(iLLLL, "cuMemcpyDtoDAsync_v2");
        cuMemcpyAsync = bind(iLLLL, "cuMemcpyAsync");
        cuMemsetD8Async = bind(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG, JAVA_LONG), "cuMemsetD8Async");
        cuMemsetD32Async = bind(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), "cuMemsetD32Async");
        cuModuleLoadData = bind(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), "cuModuleLoadData");
        cuModuleUnload = bind(iL, "cuModuleUnload");
        cuModuleGetFunction = bind(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), "cuModuleGetFunction");
        cuModuleGetGlobal = bind(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), "cuModuleGetGlobal_v2");
        cuFuncSetAttribute = bind(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT), "cuFuncSetAttribute");
        cuFuncGetAttribute = bind(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG), "cuFuncGetAttribute");
        cuLaunchKernel = bind(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), "cuLaunchKernel");
        cuPointerGetAttribute = bind(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG), "cuPointerGetAttribute");
        cuIpcGetMemHandle = bindOptional(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), "cuIpcGetMemHandle");
        cuIpcOpenMemHandle = bindOptional(FunctionDescriptor.of(JAVA_INT, ADDRESS, IPC_HANDLE, JAVA_INT),
                "cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle");
        cuIpcCloseMemHandle = bindOptional(iL, "cuIpcCloseMemHandle");
        cuIpcGetEventHandle = bindOptional(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), "cuIpcGetEventHandle");
        cuIpcOpenEventHandle = bindOptional(FunctionDescriptor.of(JAVA_INT, ADDRESS, IPC_HANDLE), "cuIpcOpenEventHandle");
    }

    /**
     * The driver, loaded and initialised ({@code cuInit(0)}) once per process; empty with
     * {@link #failure()} saying why when the library is missing or {@code cuInit} fails.
     */
    public static Optional<CudaDriver> load() {
        CudaDriver d = instance;
        if (d != null || failure != null) {
            return Optional.ofNullable(d);
        }
        synchronized (CudaDriver.class) {
            if (instance == null && failure == null) {
                try {
                    instance = open();
                } catch (Throwable t) {
                    failure = t.getMessage() != null ? t.getMessage() : t.toString();
                }
            }
            return Optional.ofNullable(instance);
        }
    }

    /** Why {@link #load()} found no driver, as a sentence fragment after "CUDA: "; null when it did. */
    public static String failure() {
        load();
        return failure;
    }

    private static CudaDriver open() {
        SymbolLookup lib;
        try {
            lib = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
        } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
            throw new IllegalStateException(LIBRARY + " not found (no NVIDIA driver installed)", e);
        }
        CudaDriver d;
        try {
            d = new CudaDriver(lib);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(LIBRARY + " is too old for this backend: " + e.getMessage(), e);
        }
        int rc = d.callInt(d.cuInit, 0);
        if (rc != CUDA_SUCCESS) {
            throw new IllegalStateException("cuInit failed with " + d.errorName(rc) + " (" + d.errorString(rc) + ")");
        }
        return d;
    }

    private MethodHandle bind(FunctionDescriptor fd, String... names) {
        MethodHandle h = bindOptional(fd, names);
        if (h == null) {
            throw new IllegalStateException("no symbol " + String.join(" or ", names) + " in " + LIBRARY);
        }
        return h;
    }

    private MethodHandle bindOptional(FunctionDescriptor fd, String... names) {
        for (String n : names) {
            Optional<MemorySegment> s = lib.find(n);
            if (s.isPresent()) {
                return LINKER.downcallHandle(s.get(), fd);
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ error text

    /** {@code CUDA_ERROR_OUT_OF_MEMORY} for 2; {@code CUresult 12345} when the driver has no name for it. */
    public String errorName(int rc) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int r = (int) cuGetErrorName.invokeExact(rc, p);
            return r == 0 ? cString(p.get(ADDRESS, 0)) : "CUresult " + rc;
        } catch (Throwable t) {
            return "CUresult " + rc;
        }
    }

    public String errorString(int rc) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int r = (int) cuGetErrorString.invokeExact(rc, p);
            return r == 0 ? cString(p.get(ADDRESS, 0)) : "unknown error";
        } catch (Throwable t) {
            return "unknown error";
        }
    }

    private static String cString(MemorySegment p) {
        return p.equals(MemorySegment.NULL) ? "" : p.reinterpret(4096).getString(0);
    }

    /** Throws a {@link CudaException} for a non-zero {@code rc}: "{@code what} failed: NAME (text)". */
    public void check(int rc, String what) {
        if (rc != CUDA_SUCCESS) {
            throw new CudaException(rc, "CUDA " + what + " failed: " + errorName(rc) + " (" + errorString(rc) + ")");
        }
    }

    private int callInt(MethodHandle h, int a) {
        try {
            return (int) h.invokeExact(a);
        } catch (Throwable t) {
            throw rethrow(t);
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

    // ------------------------------------------------------------------ devices and contexts

    public int driverVersion() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            check((int) cuDriverGetVersion.invokeExact(v), "cuDriverGetVersion");
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public int deviceCount() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            check((int) cuDeviceGetCount.invokeExact(v), "cuDeviceGetCount");
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The {@code CUdevice} handle of ordinal {@code ordinal}. */
    public int device(int ordinal) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            check((int) cuDeviceGet.invokeExact(v, ordinal), "cuDeviceGet(" + ordinal + ")");
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public String deviceName(int dev) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(256);
            check((int) cuDeviceGetName.invokeExact(v, 256, dev), "cuDeviceGetName");
            return v.getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public int deviceAttribute(int dev, int attribute) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            check((int) cuDeviceGetAttribute.invokeExact(v, attribute, dev), "cuDeviceGetAttribute(" + attribute + ")");
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public long deviceTotalMemory(int dev) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            check((int) cuDeviceTotalMem.invokeExact(v, dev), "cuDeviceTotalMem");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public long primaryContextRetain(int dev) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ADDRESS);
            check((int) cuDevicePrimaryCtxRetain.invokeExact(v, dev), "cuDevicePrimaryCtxRetain(device " + dev + ")");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Sets the primary context's flags ({@code CU_CTX_SCHED_*}), which say how a host thread waits
     * in a synchronisation: spinning, yielding, or blocked on an OS primitive. Since CUDA 11 the
     * flags may change while the context is active.
     */
    public void primaryContextSetFlags(int dev, int flags) {
        if (cuDevicePrimaryCtxSetFlags == null) {
            throw new UnsupportedOperationException("this driver has no cuDevicePrimaryCtxSetFlags");
        }
        try {
            check((int) cuDevicePrimaryCtxSetFlags.invokeExact(dev, flags),
                    "cuDevicePrimaryCtxSetFlags(device " + dev + ", 0x" + Integer.toHexString(flags) + ")");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void primaryContextRelease(int dev) {
        try {
            check((int) cuDevicePrimaryCtxRelease.invokeExact(dev), "cuDevicePrimaryCtxRelease(device " + dev + ")");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void setCurrent(long ctx) {
        try {
            check((int) cuCtxSetCurrent.invokeExact(ctx), "cuCtxSetCurrent");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void contextSynchronize() {
        try {
            check((int) cuCtxSynchronize.invokeExact(), "cuCtxSynchronize");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ------------------------------------------------------------------ streams and events

    public long streamCreate(int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ADDRESS);
            check((int) cuStreamCreate.invokeExact(v, flags), "cuStreamCreate");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void streamDestroy(long stream) {
        try {
            check((int) cuStreamDestroy.invokeExact(stream), "cuStreamDestroy");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Waits for the stream; the error of any earlier asynchronous failure on it comes out here. */
    public void streamSynchronize(long stream, String what) {
        try {
            check((int) cuStreamSynchronize.invokeExact(stream), "cuStreamSynchronize after " + what);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void streamWaitEvent(long stream, long event) {
        try {
            check((int) cuStreamWaitEvent.invokeExact(stream, event, 0), "cuStreamWaitEvent");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public long eventCreate(int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ADDRESS);
            check((int) cuEventCreate.invokeExact(v, flags), "cuEventCreate");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void eventRecord(long event, long stream) {
        try {
            check((int) cuEventRecord.invokeExact(event, stream), "cuEventRecord");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void eventSynchronize(long event) {
        try {
            check((int) cuEventSynchronize.invokeExact(event), "cuEventSynchronize");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void eventDestroy(long event) {
        try {
            check((int) cuEventDestroy.invokeExact(event), "cuEventDestroy");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ------------------------------------------------------------------ memory

    public long memAlloc(long bytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            check((int) cuMemAlloc.invokeExact(v, bytes), "cuMemAlloc(" + bytes + " bytes)");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memFree(long dptr) {
        try {
            check((int) cuMemFree.invokeExact(dptr), "cuMemFree");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** True when the driver has the stream-ordered allocator ({@code cuMemAllocAsync}, CUDA 11.2+). */
    public boolean hasMemoryPools() {
        return cuMemAllocAsync != null && cuMemFreeAsync != null && cuDeviceGetDefaultMemPool != null
                && cuMemPoolSetAttribute != null;
    }

    public long memAllocAsync(long bytes, long stream) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            check((int) cuMemAllocAsync.invokeExact(v, bytes, stream), "cuMemAllocAsync(" + bytes + " bytes)");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memFreeAsync(long dptr, long stream) {
        try {
            check((int) cuMemFreeAsync.invokeExact(dptr, stream), "cuMemFreeAsync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public long defaultMemPool(int dev) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ADDRESS);
            check((int) cuDeviceGetDefaultMemPool.invokeExact(v, dev), "cuDeviceGetDefaultMemPool");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Sets a {@code cuuint64_t}-valued pool attribute. */
    public void memPoolSetAttribute64(long pool, int attribute, long value) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            v.set(JAVA_LONG, 0, value);
            check((int) cuMemPoolSetAttribute.invokeExact(pool, attribute, v), "cuMemPoolSetAttribute(" + attribute + ")");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public long memPoolGetAttribute64(long pool, int attribute) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            check((int) cuMemPoolGetAttribute.invokeExact(pool, attribute, v), "cuMemPoolGetAttribute(" + attribute + ")");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memPoolTrimTo(long pool, long keep) {
        try {
            check((int) cuMemPoolTrimTo.invokeExact(pool, keep), "cuMemPoolTrimTo");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public long memAllocManaged(long bytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            check((int) cuMemAllocManaged.invokeExact(v, bytes, MEM_ATTACH_GLOBAL), "cuMemAllocManaged(" + bytes + " bytes)");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code {free, total}} bytes of the current context's device. */
    public long[] memGetInfo() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment f = a.allocate(JAVA_LONG);
            MemorySegment t = a.allocate(JAVA_LONG);
            check((int) cuMemGetInfo.invokeExact(f, t), "cuMemGetInfo");
            return new long[]{f.get(JAVA_LONG, 0), t.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memHostRegister(long address, long bytes, int flags) {
        try {
            check((int) cuMemHostRegister.invokeExact(address, bytes, flags), "cuMemHostRegister(" + bytes + " bytes)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memHostUnregister(long address) {
        try {
            check((int) cuMemHostUnregister.invokeExact(address), "cuMemHostUnregister");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public long memHostAlloc(long bytes, int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ADDRESS);
            check((int) cuMemHostAlloc.invokeExact(v, bytes, flags), "cuMemHostAlloc(" + bytes + " bytes)");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memFreeHost(long address) {
        try {
            check((int) cuMemFreeHost.invokeExact(address), "cuMemFreeHost");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memcpyHtoDAsync(long dst, long srcHost, long bytes, long stream) {
        try {
            check((int) cuMemcpyHtoDAsync.invokeExact(dst, srcHost, bytes, stream), "cuMemcpyHtoDAsync(" + bytes + " bytes)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memcpyDtoHAsync(long dstHost, long src, long bytes, long stream) {
        try {
            check((int) cuMemcpyDtoHAsync.invokeExact(dstHost, src, bytes, stream), "cuMemcpyDtoHAsync(" + bytes + " bytes)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memcpyDtoDAsync(long dst, long src, long bytes, long stream) {
        try {
            check((int) cuMemcpyDtoDAsync.invokeExact(dst, src, bytes, stream), "cuMemcpyDtoDAsync(" + bytes + " bytes)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A copy between any two addresses of the unified address space (managed memory included). */
    public void memcpyAsync(long dst, long src, long bytes, long stream) {
        try {
            check((int) cuMemcpyAsync.invokeExact(dst, src, bytes, stream), "cuMemcpyAsync(" + bytes + " bytes)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memsetD8Async(long dst, byte value, long count, long stream) {
        try {
            check((int) cuMemsetD8Async.invokeExact(dst, value, count, stream), "cuMemsetD8Async(" + count + " bytes)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memsetD32Async(long dst, int value, long count, long stream) {
        try {
            check((int) cuMemsetD32Async.invokeExact(dst, value, count, stream), "cuMemsetD32Async(" + count + " words)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The {@code CU_POINTER_ATTRIBUTE_MEMORY_TYPE} of an address, or 0 when the driver does not know it. */
    public int pointerMemoryType(long address) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            int rc = (int) cuPointerGetAttribute.invokeExact(v, POINTER_ATTRIBUTE_MEMORY_TYPE, address);
            return rc == CUDA_SUCCESS ? v.get(JAVA_INT, 0) : 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ------------------------------------------------------------------ modules and launches

    /** Loads a fatbin, cubin or PTX image (which must end in a NUL byte for PTX) into the current context. */
    public long moduleLoadData(MemorySegment image) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ADDRESS);
            check((int) cuModuleLoadData.invokeExact(v, image), "cuModuleLoadData(" + image.byteSize() + "-byte image)");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void moduleUnload(long module) {
        try {
            check((int) cuModuleUnload.invokeExact(module), "cuModuleUnload");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The function {@code name} of {@code module}, or 0 when the module has no such function. */
    public long moduleFunction(long module, String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ADDRESS);
            int rc = (int) cuModuleGetFunction.invokeExact(v, module, a.allocateFrom(name));
            return rc == CUDA_SUCCESS ? v.get(JAVA_LONG, 0) : 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code {address, bytes}} of the {@code __device__} variable {@code name}, or null when absent. */
    public long[] moduleGlobal(long module, String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(JAVA_LONG);
            MemorySegment s = a.allocate(JAVA_LONG);
            int rc = (int) cuModuleGetGlobal.invokeExact(p, s, module, a.allocateFrom(name));
            return rc == CUDA_SUCCESS ? new long[]{p.get(JAVA_LONG, 0), s.get(JAVA_LONG, 0)} : null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void funcSetAttribute(long function, int attribute, int value, String name) {
        try {
            check((int) cuFuncSetAttribute.invokeExact(function, attribute, value),
                    "cuFuncSetAttribute(" + name + ", " + attribute + ", " + value + ")");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public int funcGetAttribute(long function, int attribute) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            check((int) cuFuncGetAttribute.invokeExact(v, attribute, function), "cuFuncGetAttribute(" + attribute + ")");
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Launches {@code function} on {@code stream}; {@code params} is the {@code void**} array of
     * pointers to each argument's value ({@link KernelArgs#build(java.lang.foreign.Arena)}).
     */
    public void launch(long function, String name, int gridX, int blockX, int sharedBytes, long stream, MemorySegment params) {
        launch(function, name, gridX, 1, blockX, sharedBytes, stream, params);
    }

    /** {@link #launch(long, String, int, int, int, long, MemorySegment)} over a two-dimensional grid. */
    public void launch(long function, String name, int gridX, int gridY, int blockX, int sharedBytes, long stream,
                       MemorySegment params) {
        try {
            check((int) cuLaunchKernel.invokeExact(function, gridX, gridY, 1, blockX, 1, 1, sharedBytes, stream,
                    params.address(), 0L), "cuLaunchKernel(" + name + ", grid " + gridX
                    + (gridY != 1 ? " x " + gridY : "") + ", block " + blockX + ", " + sharedBytes + " B shared)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ------------------------------------------------------------------ interprocess (CUDA IPC)

    /** True when the driver exports every IPC call ({@code cuIpc*}). */
    public boolean hasIpc() {
        return cuIpcGetMemHandle != null && cuIpcOpenMemHandle != null && cuIpcCloseMemHandle != null
                && cuIpcGetEventHandle != null && cuIpcOpenEventHandle != null;
    }

    private void requireIpc(String call) {
        if (!hasIpc()) {
            throw new UnsupportedOperationException("this driver (" + LIBRARY + ") has no " + call
                    + "; CUDA IPC needs the cuIpc* calls of a Linux driver");
        }
    }

    /**
     * {@code cuIpcGetMemHandle}: the 64 bytes another process opens {@code dptr}'s allocation with.
     * The allocation must come from {@code cuMemAlloc} (not a stream-ordered pool).
     */
    public byte[] ipcGetMemHandle(long dptr) {
        requireIpc("cuIpcGetMemHandle");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(IPC_HANDLE);
            check((int) cuIpcGetMemHandle.invokeExact(h, dptr), "cuIpcGetMemHandle(0x" + Long.toHexString(dptr) + ")");
            return h.toArray(JAVA_BYTE);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code cuIpcGetEventHandle} of an event created with {@link #EVENT_INTERPROCESS}: 64 bytes. */
    public byte[] ipcGetEventHandle(long event) {
        requireIpc("cuIpcGetEventHandle");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(IPC_HANDLE);
            check((int) cuIpcGetEventHandle.invokeExact(h, event), "cuIpcGetEventHandle");
            return h.toArray(JAVA_BYTE);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code cuIpcOpenMemHandle}: maps another process's exported allocation into the current
     * context; close it with {@link #ipcCloseMemHandle}. (A process cannot open its own handles.)
     */
    public long ipcOpenMemHandle(byte[] handle, int flags) {
        requireIpc("cuIpcOpenMemHandle");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(JAVA_LONG);
            check((int) cuIpcOpenMemHandle.invokeExact(p, handleSegment(a, handle), flags), "cuIpcOpenMemHandle");
            return p.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void ipcCloseMemHandle(long dptr) {
        requireIpc("cuIpcCloseMemHandle");
        try {
            check((int) cuIpcCloseMemHandle.invokeExact(dptr), "cuIpcCloseMemHandle");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code cuIpcOpenEventHandle}: another process's interprocess event, to wait on or record; destroy it when done. */
    public long ipcOpenEventHandle(byte[] handle) {
        requireIpc("cuIpcOpenEventHandle");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            check((int) cuIpcOpenEventHandle.invokeExact(p, handleSegment(a, handle)), "cuIpcOpenEventHandle");
            return p.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static MemorySegment handleSegment(Arena a, byte[] handle) {
        if (handle.length != IPC_HANDLE_SIZE) {
            throw new IllegalArgumentException("a CUDA IPC handle is " + IPC_HANDLE_SIZE + " bytes, not " + handle.length);
        }
        MemorySegment h = a.allocate(IPC_HANDLE);
        MemorySegment.copy(handle, 0, h, JAVA_BYTE, 0, IPC_HANDLE_SIZE);
        return h;
    }
}
