// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Region;
import dev.zarrdirect.api.buffer.Sizes;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;

import java.lang.foreign.MemorySegment;
import java.nio.IntBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.lwjgl.opencl.CL10.*;

/**
 * One OpenCL device: a context, in-order command queues, the built programs, and the
 * {@link Backend} methods, which check that the backend is open and hand the work to one of its
 * parts:
 * <ul>
 *   <li>{@link ClMemory} ({@link #memory()}): device and pinned memory, raw {@code cl_mem}s,
 *       reads, writes and copies, and the tracking of open buffers;</li>
 *   <li>{@link ClRegions} ({@link #regions()}): fills, batched region copies and fills through
 *       the kernels, and the plane gather;</li>
 *   <li>{@link OpenClCodecProvider} ({@link #codecs()}): the device codecs.</li>
 * </ul>
 * Memory kinds are described in {@link ClMemory}; {@link #allocate} zeroes, {@link #allocateUninitialized}
 * does not (and takes pinned staging from a pool). {@link #counters()} counts what the backend asked
 * of the driver.
 *
 * <h2>Synchronisation</h2>
 * Every method returns when its work is complete: copies are blocking reads and writes or wait on
 * their event, launches wait on theirs, so nothing one thread enqueues is left for another to
 * follow. Each thread keeps to one of {@code zarrdirect.opencl.queues} in-order queues (given out
 * in turn as threads first use the backend): a thread's own commands stay in order (a launch that
 * is not waited for is followed by one that is), and the threads of different queues run at once.
 * Each command waits on its own event, never on a whole queue. {@link #copy} goes on a second queue
 * of the thread's lane, one that holds transfers only: a thread copying a decoded chunk from host
 * memory does not wait behind a kernel that another thread of its lane launched (a batch shared
 * with the host copies its host part while the device decodes the rest). That is safe because
 * every method returns with its work done: a thread has nothing pending on its launch queue when it
 * copies.
 *
 * <h2>Leaks</h2>
 * {@link #liveBuffers()} and {@link #assertNoLiveBuffers()} report buffers not yet closed, with the
 * stack of each allocation when tracking is on ({@code -Dzarrdirect.trackBuffers=true} or
 * {@link #trackBuffers(boolean)}); the CPU and CUDA backends have the same three methods, which
 * tests call.
 *
 * <p>Thread-safe. {@link #close()} releases the queue, the context, the built programs and every
 * buffer still open (their later {@code close()} does nothing more); closing twice is harmless.
 */
public final class OpenClBackend implements Backend {

    /** System property that turns on allocation stacks (shared with the CPU backend). */
    public static final String TRACK_PROPERTY = "zarrdirect.trackBuffers";

    /** The resource holding this backend's byte-level kernels. */
    static final String KERNELS = "dev/zarrdirect/opencl/zd_backend.cl";

    private final ClDevices.Info info;
    private final Device device;
    private final long context;
    /**
     * The in-order queues: a thread keeps to {@code queues[lane]} for launches and the transfers
     * inside them, and to {@code queues[lanes + lane]} for {@link #copy}.
     */
    private final long[] queues;
    /** Lanes: half the length of {@link #queues}. */
    private final int lanes;
    private final ThreadLocal<int[]> lane = new ThreadLocal<>();
    private final java.util.concurrent.atomic.AtomicInteger nextLane = new java.util.concurrent.atomic.AtomicInteger();
    private final ProgramCache programs;
    private final int localSize;
    private final int computeUnits;
    private final ClMemory memory;
    private final ClRegions regions;
    private final OpenClCodecProvider codecs;
    private final OpenClSettings settings;
    private final OpenClSettings.ZstdPolicy zstdPolicy;
    private final List<dev.zarrdirect.api.settings.ResolvedSetting<?>> resolved;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ClCounters counters = new ClCounters();
    private volatile String backendSource;

    OpenClBackend(ClDevices.Info info) {
        this(info, dev.zarrdirect.api.settings.SettingResolver.system());
    }

    /** Opens {@code info} with the settings {@code r} resolves. */
    OpenClBackend(ClDevices.Info info, dev.zarrdirect.api.settings.SettingResolver r) {
        this.settings = OpenClSettings.from(r);
        this.resolved = r.resolved();
        this.zstdPolicy = settings.zstdPolicy(info.platformName());
        this.info = info;
        this.device = info.device();
        long ctx = 0;
        long[] qs = new long[2 * settings.queues()];
        boolean ok = false;
        try (MemoryStack stack = MemoryStack.stackPush()) {
            IntBuffer err = stack.mallocInt(1);
            PointerBuffer props = stack.mallocPointer(3).put(0, CL_CONTEXT_PLATFORM).put(1, info.platform()).put(2, 0);
            // a driver may start its compiler here (PoCL: LLVM), which replaces signal handlers
            ctx = SignalHandlers.keep(() -> clCreateContext(props, info.id(), null, 0, err));
            ClErrors.check(err.get(0), "clCreateContext", "for " + info);
            for (int i = 0; i < qs.length; i++) {
                qs[i] = clCreateCommandQueue(ctx, info.id(), 0, err);
                ClErrors.check(err.get(0), "clCreateCommandQueue", "(" + (i + 1) + " of " + qs.length + ") for " + info);
            }
            ok = true;
        } finally {
            if (!ok) {
                for (long q : qs) {
                    if (q != 0) {
                        clReleaseCommandQueue(q);
                    }
                }
                if (ctx != 0) {
                    clReleaseContext(ctx);
                }
            }
        }
        this.context = ctx;
        this.queues = qs;
        this.lanes = settings.queues();
        this.programs = new ProgramCache(ctx, info.id(), device.toString(), counters);
        this.localSize = (int) Math.min(64, Long.highestOneBit(Math.max(1, info.maxWorkGroupSize())));
        this.computeUnits = (int) Math.max(1, Math.min(1 << 16, ClDevices.deviceLong(info.id(), CL_DEVICE_MAX_COMPUTE_UNITS)));
        this.memory = new ClMemory(this, info, ctx, settings.trackBuffers());
        this.regions = new ClRegions(this, memory, localSize);
        this.codecs = new OpenClCodecProvider(this);
    }

    /** Device memory, raw {@code cl_mem}s and transfers. */
    public ClMemory memory() {
        return memory;
    }

    /** What this backend asked of the driver so far (launches, waits, allocations, blocking transfers). */
    public ClCounters counters() {
        return counters;
    }

    /** Region copies, fills and the plane gather through the kernels. */
    public ClRegions regions() {
        return regions;
    }

    @Override
    public String name() {
        return "opencl";
    }

    /** The one device this backend opened. */
    public Device device() {
        return device;
    }

    /** The chosen device only: this backend opens one device (see {@link OpenClBackendProvider}). */
    @Override
    public List<Device> devices() {
        return List.of(device);
    }

    /** Name, type, platform and OpenCL version of the device, for logs and {@code doctor}. */
    public String describe() {
        return info.toString();
    }

    /** The platform's name ({@code Portable Computing Language}, {@code NVIDIA CUDA}). */
    public String platformName() {
        return info.platformName();
    }

    /** True when the device is a GPU (not a CPU-type device such as PoCL's). */
    public boolean isGpu() {
        return info.isGpu();
    }

    /** The {@code cl_context}; for kernels of other modules built through {@link #programs()}. */
    public long context() {
        checkOpen();
        return context;
    }

    /**
     * The calling thread's in-order {@code cl_command_queue}: the same one on every call from this
     * thread, so its commands run in the order it enqueued them.
     */
    public long queue() {
        checkOpen();
        return laneQueue();
    }

    /** {@link #queue()} without the check that the backend is open: for releasing memory while it closes. */
    long laneQueue() {
        return queues[laneIndex()];
    }

    /** The calling thread's queue for {@link #copy}: transfers only, beside its launch queue. */
    long transferQueue() {
        return queues[lanes + laneIndex()];
    }

    private int laneIndex() {
        int[] l = lane.get();
        if (l == null) {
            l = new int[]{Math.floorMod(nextLane.getAndIncrement(), lanes)};
            lane.set(l);
        }
        return l[0];
    }

    /** How many launch queues the backend has ({@code zarrdirect.opencl.queues}); as many again hold copies. */
    public int queueCount() {
        return lanes;
    }

    /** The {@code cl_device_id}. */
    public long deviceId() {
        return info.id();
    }

    /** Local memory per work-group, bytes. */
    public long localMemBytes() {
        return info.localMemBytes();
    }

    /** Compute units of the device ({@code CL_DEVICE_MAX_COMPUTE_UNITS}: SMs on NVIDIA, cores on PoCL), at least 1. */
    public int computeUnits() {
        return computeUnits;
    }

    /** The most work-items per work-group. */
    public long maxWorkGroupSize() {
        return info.maxWorkGroupSize();
    }

    /**
     * True when the device has {@code cl_khr_fp64}, which kernels need for float64 arithmetic.
     *
     * @return whether double precision is there
     */
    public boolean hasFp64() {
        return (" " + ClDevices.deviceString(info.id(), CL_DEVICE_EXTENSIONS) + " ").contains(" cl_khr_fp64 ");
    }

    /**
     * True when the device's float32 arithmetic keeps subnormal numbers ({@code CL_FP_DENORM} in
     * {@code CL_DEVICE_SINGLE_FP_CONFIG}); OpenCL allows a device to flush them to zero, which changes
     * the bits of sums that the CPU computes exactly.
     *
     * @return whether float32 subnormals survive
     */
    public boolean floatDenormals() {
        return (ClDevices.deviceLong(info.id(), CL_DEVICE_SINGLE_FP_CONFIG) & CL_FP_DENORM) != 0;
    }

    /** The built programs of this backend's context. */
    public ProgramCache programs() {
        return programs;
    }

    /** The settings this backend started with. */
    public OpenClSettings openClSettings() {
        return settings;
    }

    /** How the zstd kernel is built and launched here, chosen when the backend started. */
    public OpenClSettings.ZstdPolicy zstdPolicy() {
        return zstdPolicy;
    }

    @Override
    public List<dev.zarrdirect.api.settings.ResolvedSetting<?>> settings() {
        return resolved;
    }

    /** The work-group size of the byte-level kernels (64, or less on small devices). */
    public int localSize() {
        return localSize;
    }

    /** Kernel {@code name} of {@code zd_backend.cl}, built on first use. */
    public ClKernel backendKernel(String name) {
        String src = backendSource;
        if (src == null) {
            src = KernelSource.loadFrom(settings.kernelsDir(), KERNELS);
            backendSource = src;
        }
        return programs.kernel(KERNELS, src, "-DZD_LOCAL_SIZE=" + localSize, name);
    }

    @Override
    public Buffer allocate(Device device, MemoryKind kind, long bytes) {
        return allocate(device, kind, bytes, true);
    }

    /**
     * Like {@link #allocate}, without clearing: DEVICE memory skips its fill, HOST_PINNED memory
     * comes from the pool of mapped staging buffers as its last user left it. The device decoder
     * takes its staging and batch buffers this way, each of which it overwrites whole.
     */
    @Override
    public Buffer allocateUninitialized(Device device, MemoryKind kind, long bytes) {
        return allocate(device, kind, bytes, false);
    }

    private Buffer allocate(Device device, MemoryKind kind, long bytes, boolean zeroed) {
        checkOpen();
        if (bytes < 0) {
            throw new IllegalArgumentException("negative buffer size " + bytes + " for " + kind + " on " + device);
        }
        return switch (kind) {
            case DEVICE -> {
                if (!this.device.equals(device)) {
                    throw new IllegalArgumentException("the opencl backend opened " + this.device + " (" + info.name()
                            + ") and allocates DEVICE memory there only, not on " + device + "; choose the device with -D"
                            + ClDevices.DEVICE_PROPERTY + "=<index or name>");
                }
                yield allocateDevice(bytes, zeroed);
            }
            case HOST_PINNED -> {
                checkHostDevice(device, kind);
                yield memory.allocatePinned(bytes, zeroed);
            }
            case HOST -> {
                checkHostDevice(device, kind);
                yield memory.allocateHost(bytes);
            }
            case MANAGED -> throw new IllegalArgumentException("the opencl backend has no MANAGED memory (requested "
                    + Sizes.human(bytes) + " on " + device + "); allocate DEVICE memory and copy explicitly");
        };
    }

    private void checkHostDevice(Device d, MemoryKind kind) {
        if (!d.equals(Device.CPU) && !d.equals(device)) {
            throw new IllegalArgumentException("the opencl backend allocates " + kind + " memory for cpu:0 or "
                    + device + ", not for " + d);
        }
    }

    /**
     * Device memory, zeroed when {@code zeroed}, else from the pool of uninitialized device blocks;
     * tracked like every allocation.
     */
    public OpenClBuffer allocateDevice(long bytes, boolean zeroed) {
        checkOpen();
        if (!zeroed) {
            return memory.allocateDeviceUninitialized(bytes);
        }
        return memory.allocateDevice(bytes, mem -> {
            if (zeroed && bytes > 0) {
                regions.fillDevice(mem, 0, bytes, MemorySegment.ofArray(new byte[1]));
            }
        });
    }

    /** Buffers allocated here and not yet closed. */
    public long liveBuffers() {
        return memory.liveBuffers();
    }

    /** Records allocation stacks for buffers allocated from now on; for tests. */
    public void trackBuffers(boolean on) {
        memory.trackBuffers(on);
    }

    /** Throws {@link IllegalStateException} naming every open buffer and, when tracked, where it was allocated. */
    public void assertNoLiveBuffers() {
        memory.assertNoLiveBuffers();
    }

    // ------------------------------------------------------------------ queue

    /** Waits for {@code event}, releases it, and throws if its command failed. */
    public void await(long event, String what) {
        counters.waits.incrementAndGet();
        try {
            int rc = clWaitForEvents(event);
            if (rc != 0) {
                try (MemoryStack stack = MemoryStack.stackPush()) {
                    IntBuffer st = stack.mallocInt(1);
                    clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, st, null);
                    throw new OpenClException(what + " on " + device + " failed: clWaitForEvents returned " + rc + " "
                            + ClErrors.name(rc) + ", command status " + st.get(0) + " " + ClErrors.name(st.get(0)), rc);
                }
            }
        } finally {
            clReleaseEvent(event);
        }
    }

    /** Enqueues {@code kernel} and waits for it. */
    public void launch(ClKernel kernel, long[] global, long[] local, ClKernel.Arg... args) {
        checkOpen();
        long ev = kernel.enqueue(queue(), global, local, args);
        await(ev, "kernel " + kernel.name());
    }

    // ------------------------------------------------------------------ copies, fills and gathers

    @Override
    public void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
        checkOpen();
        memory.copy(src, srcOffset, dst, dstOffset, bytes);
    }

    /**
     * Fills {@code count} repetitions of {@code pattern} (1 to 16 bytes). On the device this is
     * {@code clEnqueueFillBuffer} when the pattern is 1, 2, 4, 8 or 16 bytes and the offset a multiple
     * of it, else the {@code zd_fill_regions} kernel.
     */
    @Override
    public void fill(Buffer dst, long offset, long count, MemorySegment pattern) {
        checkOpen();
        regions.fill(dst, offset, count, pattern);
    }

    /**
     * Copies every region as one batch: one {@code zd_copy_regions} launch per distinct pair of
     * source and destination {@code cl_mem}. Host-side regions take part through one packed staging
     * upload (sources) or one packed read-back (destinations) per batch; copies between two host
     * regions run on the host.
     */
    @Override
    public void copyRegions(List<Region.Copy> copies, int elemSize) {
        checkOpen();
        regions.copyRegions(copies, elemSize);
    }

    /** Fills every region as one batch: one {@code zd_fill_regions} launch per distinct {@code cl_mem}. */
    @Override
    public void fillRegions(List<Region> regions, MemorySegment pattern) {
        checkOpen();
        this.regions.fillRegions(regions, pattern);
    }

    /**
     * Runs {@code gather} as one launch of {@code zd_gather} when its source and output are both
     * device memory of this backend, or on the calling thread when both are host memory; returns when
     * the output is written. Where several planes name the same output plane the last one wins, as in
     * {@link PlaneGather#runOnHost}. A float64 source on a device without {@code cl_khr_fp64} is
     * gathered on the host through staging (see {@link OpenClGather}).
     *
     * @throws UnsupportedOperationException when one buffer is on the device and the other on the host
     */
    @Override
    public void gather(PlaneGather gather) {
        checkOpen();
        regions.gather(gather);
    }

    // ------------------------------------------------------------------ checks

    /** The buffer as an OpenCL buffer of this backend, or null for host memory; throws for anything else. */
    public OpenClBuffer device(Buffer b, String role) {
        if (b instanceof OpenClBuffer ob) {
            ob.checkOpen();
            if (ob.backend() != this) {
                throw new IllegalArgumentException(role + " " + b + " belongs to another OpenCL backend ("
                        + ob.backend().device() + " of another context) than this one on " + device);
            }
            return ob;
        }
        if (b.kind().hostAccessible()) {
            b.segment(); // throws when closed
            return null;
        }
        throw new IllegalArgumentException("the opencl backend on " + device + " cannot reach " + role + " " + b + " ("
                + b.kind() + " on " + b.device() + "); copy it through host memory");
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("OpenClBackend on " + device + " is closed");
        }
    }

    @Override
    public int preferredBatchSize() {
        return 256;
    }

    @Override
    public OpenClCodecProvider codecs() {
        return codecs;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        memory.releaseAll();
        memory.releasePools();
        regions.close();
        programs.close();
        for (long q : queues) {
            clReleaseCommandQueue(q);
        }
        clReleaseContext(context);
    }

    @Override
    public String toString() {
        return "OpenClBackend[" + info + ", live=" + memory.liveBuffers() + "]";
    }
}
