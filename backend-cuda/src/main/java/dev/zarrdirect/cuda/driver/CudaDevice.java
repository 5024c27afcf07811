// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.driver;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.buffer.Sizes;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * One CUDA device as the backend uses it: its primary context, the kernels module loaded into it,
 * and a pool of non-blocking streams.
 *
 * <h2>Contexts</h2>
 * The device's primary context (the one the CUDA runtime, PyTorch and CuPy share) is retained
 * once per process and never released: releasing the last reference would destroy it under any
 * other library of the process that uses it, and re-creating it costs a few hundred milliseconds.
 * Every call into the device first makes the context current on the calling thread
 * ({@link #makeCurrent()}), so any thread may call in.
 *
 * <h2>Streams</h2>
 * Each operation borrows a stream ({@link #acquireStream()}), issues its asynchronous work on it,
 * synchronises it and gives it back: operations from different threads overlap on the device and
 * never wait for one another. {@link #close()} destroys the streams and unloads the module.
 */
public final class CudaDevice implements AutoCloseable {

    private static final Map<Integer, Long> PRIMARY = new ConcurrentHashMap<>();
    /** The {@link #SCHEDULE_PROPERTY} each primary context was retained with, by device handle. */
    private static final Map<Integer, String> SCHEDULED = new ConcurrentHashMap<>();

    private final CudaDriver driver;
    private final int ordinal;
    private final int handle;
    private final long context;
    private final String name;
    private final int ccMajor;
    private final int ccMinor;
    private final int multiprocessors;
    private final int maxSharedOptin;
    private final int maxSharedPerSm;
    private final int maxThreadsPerSm;
    private final long totalMemory;
    private final boolean memoryPools;
    private final boolean managedMemory;
    private final ConcurrentLinkedDeque<Long> streams = new ConcurrentLinkedDeque<>();
    private final Map<String, Long> functions = new ConcurrentHashMap<>();
    /** Dynamic shared memory a launch may use without raising the function's limit. */
    private static final int STATIC_SHARED_LIMIT = 48 * 1024;
    /** Kernels whose dynamic shared memory limit was raised, and to what. */
    private final Map<String, Integer> raised = new ConcurrentHashMap<>();
    /** Kernels' thread limits, by name ({@link #maxThreadsPerBlock}). */
    private final Map<String, Integer> maxThreads = new ConcurrentHashMap<>();
    private volatile long module;
    private volatile boolean closed;

    /**
     * System property: how host threads wait for the device, {@code auto} (the driver's choice:
     * spin while there are fewer active contexts than CPUs), {@code spin}, {@code yield} or
     * {@code blocking} (sleep until the device signals). Set before the device is first opened.
     */
    public static final String SCHEDULE_PROPERTY = "zarrdirect.cuda.schedule";

    /** The {@code CU_CTX_SCHED_*} flag of a {@link #SCHEDULE_PROPERTY} value. */
    static int scheduleFlags(String value) {
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "auto" -> CudaDriver.CTX_SCHED_AUTO;
            case "spin" -> CudaDriver.CTX_SCHED_SPIN;
            case "yield" -> CudaDriver.CTX_SCHED_YIELD;
            case "blocking" -> CudaDriver.CTX_SCHED_BLOCKING_SYNC;
            default -> throw new IllegalArgumentException(SCHEDULE_PROPERTY + "=" + value
                    + " is not one of auto, spin, yield, blocking");
        };
    }

    /**
     * Opens device {@code ordinal} and loads {@code fatbin} (null: no kernels, for memory-only use),
     * with the {@link #SCHEDULE_PROPERTY} of system properties or environment.
     */
    public CudaDevice(CudaDriver driver, int ordinal, MemorySegment fatbin) {
        this(driver, ordinal, fatbin, dev.zarrdirect.api.settings.SettingResolver.system()
                .get(dev.zarrdirect.cuda.CudaSettings.SCHEDULE));
    }

    /**
     * Opens device {@code ordinal} and loads {@code fatbin} (null: no kernels, for memory-only use).
     * {@code schedule} ({@link #SCHEDULE_PROPERTY}) applies only where this process retains the
     * device's primary context for the first time.
     */
    public CudaDevice(CudaDriver driver, int ordinal, MemorySegment fatbin, String schedule) {
        this.driver = driver;
        this.ordinal = ordinal;
        this.handle = driver.device(ordinal);
        this.name = driver.deviceName(handle);
        this.ccMajor = driver.deviceAttribute(handle, CudaDriver.ATTR_CC_MAJOR);
        this.ccMinor = driver.deviceAttribute(handle, CudaDriver.ATTR_CC_MINOR);
        this.multiprocessors = driver.deviceAttribute(handle, CudaDriver.ATTR_MULTIPROCESSOR_COUNT);
        this.maxSharedOptin = driver.deviceAttribute(handle, CudaDriver.ATTR_MAX_SHARED_PER_BLOCK_OPTIN);
        this.maxSharedPerSm = driver.deviceAttribute(handle, CudaDriver.ATTR_MAX_SHARED_PER_MULTIPROCESSOR);
        this.maxThreadsPerSm = driver.deviceAttribute(handle, CudaDriver.ATTR_MAX_THREADS_PER_MULTIPROCESSOR);
        this.totalMemory = driver.deviceTotalMemory(handle);
        this.memoryPools = driver.hasMemoryPools()
                && driver.deviceAttribute(handle, CudaDriver.ATTR_MEMORY_POOLS_SUPPORTED) != 0;
        this.managedMemory = driver.deviceAttribute(handle, CudaDriver.ATTR_MANAGED_MEMORY) != 0;
        this.context = PRIMARY.computeIfAbsent(handle, h -> {
            int flags = scheduleFlags(schedule);
            if (flags != CudaDriver.CTX_SCHED_AUTO) {
                driver.primaryContextSetFlags(h, flags);
            }
            SCHEDULED.put(h, schedule.trim().toLowerCase(java.util.Locale.ROOT));
            return driver.primaryContextRetain(h);
        });
        String applied = SCHEDULED.get(handle);
        if (applied != null && !applied.equals(schedule.trim().toLowerCase(java.util.Locale.ROOT))) {
            System.getLogger(CudaDevice.class.getName()).log(System.Logger.Level.WARNING, SCHEDULE_PROPERTY + "="
                    + schedule + " is not applied to cuda:" + ordinal + ": its primary context was retained with "
                    + applied + " when this process first opened it (the backend's probe); set it as a system"
                    + " property or ZARRDIRECT_CUDA_SCHEDULE before the first use of CUDA instead");
        }
        makeCurrent();
        if (fatbin != null) {
            this.module = driver.moduleLoadData(fatbin);
        }
    }

    public CudaDriver driver() {
        return driver;
    }

    public int ordinal() {
        return ordinal;
    }

    /** The {@code CUdevice} handle. */
    public int handle() {
        return handle;
    }

    public Device device() {
        return new Device(DeviceType.CUDA, ordinal);
    }

    public String name() {
        return name;
    }

    public int computeMajor() {
        return ccMajor;
    }

    public int computeMinor() {
        return ccMinor;
    }

    public int multiprocessors() {
        return multiprocessors;
    }

    public int maxSharedMemoryPerBlockOptin() {
        return maxSharedOptin;
    }

    /** Shared memory of one multiprocessor, for all its resident groups together. */
    public int maxSharedMemoryPerMultiprocessor() {
        return maxSharedPerSm;
    }

    public int maxThreadsPerMultiprocessor() {
        return maxThreadsPerSm;
    }

    public long totalMemory() {
        return totalMemory;
    }

    /** True when the device has the stream-ordered allocator. */
    public boolean memoryPools() {
        return memoryPools;
    }

    public boolean managedMemory() {
        return managedMemory;
    }

    /** Makes this device's primary context current on the calling thread. */
    public void makeCurrent() {
        driver.setCurrent(context);
    }

    /** A stream of this device for one operation; give it back with {@link #releaseStream}. */
    public long acquireStream() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        Long s = streams.pollFirst();
        return s != null ? s : driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
    }

    /** Gives back a stream whose work is complete. */
    public void releaseStream(long stream) {
        if (closed) {
            driver.streamDestroy(stream);
        } else {
            streams.addFirst(stream);
        }
    }

    /**
     * Kernel {@code name}, allowed {@code dynamicSharedBytes} of dynamic shared memory per launch
     * (the driver refuses launches above 48 KiB until the function's limit is raised).
     */
    public long function(String name, int dynamicSharedBytes) {
        long f = function(name);
        if (dynamicSharedBytes > STATIC_SHARED_LIMIT) {
            raised.compute(name, (k, v) -> {
                if (v != null && v >= dynamicSharedBytes) {
                    return v;
                }
                if (dynamicSharedBytes > maxSharedOptin) {
                    throw new IllegalArgumentException(name + " asks for " + dynamicSharedBytes
                            + " bytes of shared memory; " + this + " allows " + maxSharedOptin);
                }
                makeCurrent();
                driver.funcSetAttribute(f, CudaDriver.FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamicSharedBytes, name);
                return dynamicSharedBytes;
            });
        }
        return f;
    }

    /**
     * The most threads one group of kernel {@code name} may have on this device (its registers
     * decide); asked of the driver once per kernel, as launches are planned per batch.
     */
    public int maxThreadsPerBlock(String name) {
        return maxThreads.computeIfAbsent(name, n -> {
            long f = function(n);
            makeCurrent();
            return driver.funcGetAttribute(f, CudaDriver.FUNC_ATTR_MAX_THREADS_PER_BLOCK);
        });
    }

    /**
     * The kernel {@code name} of the kernels module.
     *
     * @throws CudaException when the fatbin has no such kernel (an older kernels jar)
     */
    public long function(String name) {
        long m = module;
        if (m == 0) {
            throw new IllegalStateException("no kernels are loaded on " + this);
        }
        return functions.computeIfAbsent(name, n -> {
            makeCurrent();
            long f = driver.moduleFunction(m, n);
            if (f == 0) {
                throw new CudaException(500, "kernel " + n + " is not in the kernels fatbin loaded on " + this
                        + "; the zarr-direct-kernels jar on the class path is older or newer than this backend");
            }
            return f;
        });
    }

    /** One line for {@code doctor} and probe results: name, compute capability, memory, SMs. */
    public String describe() {
        return name + " (compute " + ccMajor + "." + ccMinor + ", " + Sizes.human(totalMemory) + ", "
                + multiprocessors + " SMs)";
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        makeCurrent();
        Long s;
        while ((s = streams.pollFirst()) != null) {
            driver.streamDestroy(s);
        }
        if (module != 0) {
            driver.moduleUnload(module);
            module = 0;
        }
        functions.clear();
    }

    @Override
    public String toString() {
        return "cuda:" + ordinal + " (" + name + ")";
    }
}
