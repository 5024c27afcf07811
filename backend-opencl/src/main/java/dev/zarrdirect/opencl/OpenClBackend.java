// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Region;
import dev.zarrdirect.api.buffer.Sizes;
import dev.zarrdirect.api.buffer.StridedCopy;
import org.lwjgl.PointerBuffer;
import org.lwjgl.opencl.CL;
import org.lwjgl.system.MemoryStack;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.lwjgl.opencl.CL10.*;

/**
 * One OpenCL device: a context, one in-order command queue, device and pinned memory, copies,
 * batched region copies and fills, and the codecs of {@link OpenClCodecProvider}.
 *
 * <h2>Memory kinds</h2>
 * <ul>
 *   <li>{@link MemoryKind#DEVICE} on this backend's device: an {@link OpenClBuffer}.</li>
 *   <li>{@link MemoryKind#HOST_PINNED} (asked for on {@code cpu:0} or this device): a
 *       {@code CL_MEM_ALLOC_HOST_PTR} buffer mapped once for its whole life, handed out as a
 *       {@link HostBuffer} on {@code cpu:0}; closing it unmaps and releases it. The driver's DMA
 *       engine reads such memory directly, so uploads from it are the fast ones.</li>
 *   <li>{@link MemoryKind#HOST}: ordinary host memory.</li>
 *   <li>{@link MemoryKind#MANAGED} is refused (OpenCL has no unified memory before SVM).</li>
 * </ul>
 * Every allocation is zeroed ({@code clEnqueueFillBuffer} on the device).
 *
 * <h2>Synchronisation</h2>
 * Every method returns when its work is complete: copies are blocking reads and writes or wait on
 * their event, launches wait on theirs. Commands of different threads share the in-order queue;
 * each waits on its own event, never on the whole queue.
 *
 * <h2>Batch assembly</h2>
 * {@link #gather} runs a loader's plane gather as one launch of the kernels module's
 * {@code zd_gather} ({@link OpenClGather}).
 *
 * <h2>Leaks</h2>
 * {@link #liveBuffers()} and {@link #assertNoLiveBuffers()} report buffers not yet closed, with the
 * stack of each allocation when tracking is on ({@code -Dzarrdirect.trackBuffers=true} or
 * {@link #trackBuffers(boolean)}).
 *
 * <p>Thread-safe. {@link #close()} releases the queue, the context, the built programs and every
 * buffer still open (their later {@code close()} does nothing more); closing twice is harmless.
 */
public final class OpenClBackend implements Backend {

    /** System property that turns on allocation stacks (shared with the CPU backend). */
    public static final String TRACK_PROPERTY = "zarrdirect.trackBuffers";

    /** The resource holding this backend's byte-level kernels. */
    static final String KERNELS = "dev/zarrdirect/opencl/zd_backend.cl";
    private static final int MAX_GROUPS_PER_ROW = 1024;

    private record Live(long id, MemoryKind kind, long bytes, String thread, Throwable allocatedAt,
                        Runnable free) {
    }

    private final ClDevices.Info info;
    private final Device device;
    private final long context;
    private final long queue;
    private final ProgramCache programs;
    private final int localSize;
    private final boolean hasFillBuffer;
    private final long baseAlignBytes;
    private final OpenClCodecProvider codecs;
    private final Map<Long, Live> live = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final OpenClSettings settings;
    private final OpenClSettings.ZstdPolicy zstdPolicy;
    private final List<dev.zarrdirect.api.settings.ResolvedSetting<?>> resolved;
    private volatile boolean tracking;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile String backendSource;
    private final OpenClGather gather = new OpenClGather(this);

    OpenClBackend(ClDevices.Info info) {
        this(info, dev.zarrdirect.api.settings.SettingResolver.system());
    }

    /** Opens {@code info} with the settings {@code r} resolves. */
    OpenClBackend(ClDevices.Info info, dev.zarrdirect.api.settings.SettingResolver r) {
        this.settings = OpenClSettings.from(r);
        this.resolved = r.resolved();
        this.tracking = settings.trackBuffers();
        this.zstdPolicy = settings.zstdPolicy(info.platformName());
        this.info = info;
        this.device = info.device();
        long ctx = 0;
        long q = 0;
        boolean ok = false;
        try (MemoryStack stack = MemoryStack.stackPush()) {
            IntBuffer err = stack.mallocInt(1);
            PointerBuffer props = stack.mallocPointer(3).put(0, CL_CONTEXT_PLATFORM).put(1, info.platform()).put(2, 0);
            // a driver may start its compiler here (PoCL: LLVM), which replaces signal handlers
            ctx = SignalHandlers.keep(() -> clCreateContext(props, info.id(), null, 0, err));
            ClErrors.check(err.get(0), "clCreateContext", "for " + info);
            q = clCreateCommandQueue(ctx, info.id(), 0, err);
            ClErrors.check(err.get(0), "clCreateCommandQueue", "for " + info);
            ok = true;
        } finally {
            if (!ok) {
                if (q != 0) {
                    clReleaseCommandQueue(q);
                }
                if (ctx != 0) {
                    clReleaseContext(ctx);
                }
            }
        }
        this.context = ctx;
        this.queue = q;
        this.programs = new ProgramCache(ctx, info.id(), device.toString());
        this.localSize = (int) Math.min(64, Long.highestOneBit(Math.max(1, info.maxWorkGroupSize())));
        this.hasFillBuffer = CL.getICD().clEnqueueFillBuffer != 0 && !info.version().startsWith("OpenCL 1.0")
                && !info.version().startsWith("OpenCL 1.1");
        this.baseAlignBytes = Math.max(8, baseAlignBits(info.id()) / 8);
        this.codecs = new OpenClCodecProvider(this);
    }

    private static long baseAlignBits(long deviceId) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            IntBuffer v = stack.callocInt(1);
            int rc = clGetDeviceInfo(deviceId, CL_DEVICE_MEM_BASE_ADDR_ALIGN, v, null);
            return rc == 0 ? Integer.toUnsignedLong(v.get(0)) : 4096 * 8;
        }
    }

    /** The alignment in bytes that a sub-buffer's origin needs ({@code CL_DEVICE_MEM_BASE_ADDR_ALIGN}). */
    public long baseAlignBytes() {
        return baseAlignBytes;
    }

    /**
     * A sub-buffer of {@code parent} over {@code size} bytes from {@code origin} (a multiple of
     * {@link #baseAlignBytes()}) with the parent's access flags; released with {@link #releaseMem}.
     */
    public long subBuffer(long parent, long origin, long size) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            IntBuffer err = stack.mallocInt(1);
            java.nio.ByteBuffer region = stack.malloc(16);
            region.putLong(0, origin).putLong(8, Math.max(1, size));
            long sub = org.lwjgl.opencl.CL11.clCreateSubBuffer(parent, 0,
                    org.lwjgl.opencl.CL11.CL_BUFFER_CREATE_TYPE_REGION, region, err);
            ClErrors.check(err.get(0), "clCreateSubBuffer", "of " + size + " bytes at " + origin + " on " + device);
            return sub;
        }
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

    /** The in-order {@code cl_command_queue}. */
    public long queue() {
        checkOpen();
        return queue;
    }

    /** The {@code cl_device_id}. */
    public long deviceId() {
        return info.id();
    }

    /** Local memory per work-group, bytes. */
    public long localMemBytes() {
        return info.localMemBytes();
    }

    /** The most work-items per work-group. */
    public long maxWorkGroupSize() {
        return info.maxWorkGroupSize();
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

    // ------------------------------------------------------------------ allocation

    @Override
    public Buffer allocate(Device device, MemoryKind kind, long bytes) {
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
                yield allocateDevice(bytes, true);
            }
            case HOST_PINNED -> {
                checkHostDevice(device, kind);
                yield allocatePinned(bytes);
            }
            case HOST -> {
                checkHostDevice(device, kind);
                yield allocateHost(bytes);
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

    /** Device memory, zeroed when {@code zeroed}; tracked like every allocation. */
    public OpenClBuffer allocateDevice(long bytes, boolean zeroed) {
        checkOpen();
        long mem = createMem(bytes, CL_MEM_READ_WRITE, "DEVICE memory");
        boolean ok = false;
        try {
            if (zeroed && bytes > 0) {
                fillDevice(mem, 0, bytes, MemorySegment.ofArray(new byte[1]));
            }
            long id = track(MemoryKind.DEVICE, bytes, () -> clReleaseMemObject(mem));
            ok = true;
            return new OpenClBuffer(this, null, mem, 0, bytes, id, new AtomicBoolean());
        } finally {
            if (!ok) {
                clReleaseMemObject(mem);
            }
        }
    }

    @SuppressWarnings("restricted") // the mapped pointer is valid for exactly `bytes` bytes until unmapped
    private HostBuffer allocatePinned(long bytes) {
        long mem = createMem(bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, "HOST_PINNED memory");
        long ptr = 0;
        Arena arena = null;
        boolean ok = false;
        try (MemoryStack stack = MemoryStack.stackPush()) {
            IntBuffer err = stack.mallocInt(1);
            ptr = nclEnqueueMapBuffer(queue, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, Math.max(1, bytes), 0, 0, 0,
                    org.lwjgl.system.MemoryUtil.memAddress(err));
            ClErrors.check(err.get(0), "clEnqueueMapBuffer", "of " + Sizes.human(bytes) + " of HOST_PINNED memory on "
                    + device);
            arena = Arena.ofShared();
            MemorySegment seg = MemorySegment.ofAddress(ptr).reinterpret(bytes, arena, null);
            seg.fill((byte) 0);
            long p = ptr;
            Arena a = arena;
            long id = track(MemoryKind.HOST_PINNED, bytes, () -> {
                a.close();
                unmapAndRelease(mem, p);
            });
            ok = true;
            return HostBuffer.of(seg, MemoryKind.HOST_PINNED, Device.CPU, () -> untrack(id));
        } finally {
            if (!ok) {
                if (arena != null) {
                    arena.close();
                }
                if (ptr != 0) {
                    unmapAndRelease(mem, ptr);
                } else {
                    clReleaseMemObject(mem);
                }
            }
        }
    }

    private void unmapAndRelease(long mem, long ptr) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            PointerBuffer ev = stack.mallocPointer(1);
            int rc = nclEnqueueUnmapMemObject(queue, mem, ptr, 0, 0, org.lwjgl.system.MemoryUtil.memAddress(ev));
            if (rc == 0) {
                clWaitForEvents(ev.get(0));
                clReleaseEvent(ev.get(0));
            }
        } finally {
            clReleaseMemObject(mem);
        }
    }

    private HostBuffer allocateHost(long bytes) {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment seg = arena.allocate(Math.max(1, bytes), 64).asSlice(0, bytes);
            long id = track(MemoryKind.HOST, bytes, arena::close);
            return HostBuffer.of(seg, MemoryKind.HOST, Device.CPU, () -> untrack(id));
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** A raw {@code cl_mem} of at least one byte, not tracked: for a batch's tables and staging. */
    public long createMem(long bytes, long flags, String what) {
        if (bytes > info.maxAllocBytes()) {
            throw new OpenClException("cannot allocate " + Sizes.human(bytes) + " of " + what + " on " + device
                    + ": the device allows at most " + Sizes.human(info.maxAllocBytes())
                    + " per buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE)", CL_INVALID_BUFFER_SIZE);
        }
        try (MemoryStack stack = MemoryStack.stackPush()) {
            IntBuffer err = stack.mallocInt(1);
            long mem = clCreateBuffer(context, flags, Math.max(1, bytes), err);
            ClErrors.check(err.get(0), "clCreateBuffer", "of " + Sizes.human(bytes) + " of " + what + " on " + device);
            return mem;
        }
    }

    /** A raw {@code cl_mem} holding a copy of {@code data}, not tracked; the caller releases it. */
    public long createMemFrom(MemorySegment data, String what) {
        if (data.byteSize() == 0 || !data.isNative()) {
            long mem = createMem(data.byteSize(), CL_MEM_READ_ONLY, what);
            if (data.byteSize() > 0) {
                write(mem, 0, data, 0, data.byteSize());
            }
            return mem;
        }
        try (MemoryStack stack = MemoryStack.stackPush()) {
            IntBuffer err = stack.mallocInt(1);
            long mem = nclCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, data.byteSize(),
                    data.address(), org.lwjgl.system.MemoryUtil.memAddress(err));
            ClErrors.check(err.get(0), "clCreateBuffer", "of " + Sizes.human(data.byteSize()) + " of " + what + " on "
                    + device);
            return mem;
        }
    }

    /** Releases a {@code cl_mem} from {@link #createMem}. */
    public void releaseMem(long mem) {
        if (mem != 0) {
            clReleaseMemObject(mem);
        }
    }

    private long track(MemoryKind kind, long bytes, Runnable free) {
        long id = ids.incrementAndGet();
        live.put(id, new Live(id, kind, bytes, Thread.currentThread().getName(),
                tracking ? new Throwable("buffer #" + id + " allocated here") : null, free));
        return id;
    }

    private void untrack(long id) {
        Live l = live.remove(id);
        if (l != null) {
            l.free().run();
        }
    }

    void release(OpenClBuffer buffer, long mem) {
        untrack(buffer.id());
    }

    /** Buffers allocated here and not yet closed. */
    public long liveBuffers() {
        return live.size();
    }

    /** Records allocation stacks for buffers allocated from now on; for tests. */
    public void trackBuffers(boolean on) {
        tracking = on;
    }

    /** Throws {@link IllegalStateException} naming every open buffer and, when tracked, where it was allocated. */
    public void assertNoLiveBuffers() {
        List<Live> open = new ArrayList<>(live.values());
        if (open.isEmpty()) {
            return;
        }
        open.sort(Comparator.comparingLong(Live::id));
        StringBuilder msg = new StringBuilder().append(open.size()).append(open.size() == 1 ? " buffer" : " buffers")
                .append(" of the OpenCL backend on ").append(device).append(" still open:");
        for (Live l : open) {
            msg.append("\n  buffer #").append(l.id()).append(' ').append(l.kind()).append(' ')
                    .append(Sizes.human(l.bytes())).append(" allocated by thread \"").append(l.thread()).append('"');
            if (l.allocatedAt() == null) {
                msg.append(" (stack not recorded; run with -D").append(TRACK_PROPERTY)
                        .append("=true or call trackBuffers(true))");
            } else {
                msg.append(" at:");
                for (StackTraceElement e : l.allocatedAt().getStackTrace()) {
                    msg.append("\n      at ").append(e);
                }
            }
        }
        throw new IllegalStateException(msg.toString());
    }

    // ------------------------------------------------------------------ raw transfers

    /** Blocking write of {@code n} bytes of {@code src} from {@code srcOff} into {@code mem} at {@code memOff}. */
    public void write(long mem, long memOff, MemorySegment src, long srcOff, long n) {
        if (n == 0) {
            return;
        }
        if (src.isNative()) {
            ClErrors.check(nclEnqueueWriteBuffer(queue, mem, CL_TRUE, memOff, n, src.address() + srcOff, 0, 0, 0),
                    "clEnqueueWriteBuffer", "of " + n + " bytes to offset " + memOff + " on " + device);
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            long chunk = Math.min(n, 16L << 20);
            MemorySegment tmp = a.allocate(chunk, 64);
            for (long done = 0; done < n; done += chunk) {
                long k = Math.min(chunk, n - done);
                MemorySegment.copy(src, srcOff + done, tmp, 0, k);
                write(mem, memOff + done, tmp, 0, k);
            }
        }
    }

    /** Blocking read of {@code n} bytes of {@code mem} from {@code memOff} into {@code dst} at {@code dstOff}. */
    public void read(long mem, long memOff, MemorySegment dst, long dstOff, long n) {
        if (n == 0) {
            return;
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("cannot read device memory into a read-only segment " + dst);
        }
        if (dst.isNative()) {
            ClErrors.check(nclEnqueueReadBuffer(queue, mem, CL_TRUE, memOff, n, dst.address() + dstOff, 0, 0, 0),
                    "clEnqueueReadBuffer", "of " + n + " bytes from offset " + memOff + " on " + device);
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            long chunk = Math.min(n, 16L << 20);
            MemorySegment tmp = a.allocate(chunk, 64);
            for (long done = 0; done < n; done += chunk) {
                long k = Math.min(chunk, n - done);
                read(mem, memOff + done, tmp, 0, k);
                MemorySegment.copy(tmp, 0, dst, dstOff + done, k);
            }
        }
    }

    /** Device-side copy between two {@code cl_mem}s (or within one, when the ranges do not overlap). */
    public void copyMem(long src, long srcOff, long dst, long dstOff, long n) {
        if (n == 0) {
            return;
        }
        if (src == dst && srcOff < dstOff + n && dstOff < srcOff + n) {
            if (srcOff == dstOff) {
                return;
            }
            long tmp = createMem(n, CL_MEM_READ_WRITE, "overlapping-copy staging");
            try {
                copyMem(src, srcOff, tmp, 0, n);
                copyMem(tmp, 0, dst, dstOff, n);
            } finally {
                clReleaseMemObject(tmp);
            }
            return;
        }
        try (MemoryStack stack = MemoryStack.stackPush()) {
            PointerBuffer ev = stack.mallocPointer(1);
            ClErrors.check(clEnqueueCopyBuffer(queue, src, dst, srcOff, dstOff, n, null, ev), "clEnqueueCopyBuffer",
                    "of " + n + " bytes on " + device);
            await(ev.get(0), "clEnqueueCopyBuffer of " + n + " bytes");
        }
    }

    /** Waits for {@code event}, releases it, and throws if its command failed. */
    public void await(long event, String what) {
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
        long ev = kernel.enqueue(queue, global, local, args);
        await(ev, "kernel " + kernel.name());
    }

    // ------------------------------------------------------------------ copies and fills

    @Override
    public void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
        checkOpen();
        checkRange("copy source", src, srcOffset, bytes);
        checkRange("copy destination", dst, dstOffset, bytes);
        OpenClBuffer ds = device(src, "copy source");
        OpenClBuffer dd = device(dst, "copy destination");
        if (bytes == 0) {
            return;
        }
        if (ds == null && dd == null) {
            MemorySegment.copy(src.segment(), srcOffset, dst.segment(), dstOffset, bytes);
        } else if (ds == null) {
            write(dd.mem(), dd.offset() + dstOffset, src.segment(), srcOffset, bytes);
        } else if (dd == null) {
            read(ds.mem(), ds.offset() + srcOffset, dst.segment(), dstOffset, bytes);
        } else {
            copyMem(ds.mem(), ds.offset() + srcOffset, dd.mem(), dd.offset() + dstOffset, bytes);
        }
    }

    /**
     * Fills {@code count} repetitions of {@code pattern} (1 to 16 bytes). On the device this is
     * {@code clEnqueueFillBuffer} when the pattern is 1, 2, 4, 8 or 16 bytes and the offset a multiple
     * of it, else the {@code zd_fill_regions} kernel.
     */
    @Override
    public void fill(Buffer dst, long offset, long count, MemorySegment pattern) {
        checkOpen();
        long p = pattern.byteSize();
        if (p < 1 || p > 16) {
            throw new IllegalArgumentException("fill pattern must be 1 to 16 bytes, got " + p + " bytes");
        }
        if (count < 0) {
            throw new IllegalArgumentException("negative fill count " + count + " for " + dst);
        }
        long total = Math.multiplyExact(count, p);
        checkRange("fill destination", dst, offset, total);
        OpenClBuffer d = device(dst, "fill destination");
        if (total == 0) {
            return;
        }
        if (d == null) {
            StridedCopy.fillRun(dst.segment(), offset, count, pattern, StridedCopy.isZero(pattern));
        } else {
            fillDevice(d.mem(), d.offset() + offset, total, pattern);
        }
    }

    private void fillDevice(long mem, long off, long total, MemorySegment pattern) {
        long p = pattern.byteSize();
        if (hasFillBuffer && Long.bitCount(p) == 1 && off % p == 0) {
            try (MemoryStack stack = MemoryStack.stackPush()) {
                var pat = stack.malloc((int) p);
                MemorySegment.copy(pattern, 0, MemorySegment.ofBuffer(pat), 0, p);
                PointerBuffer ev = stack.mallocPointer(1);
                ClErrors.check(org.lwjgl.opencl.CL12.nclEnqueueFillBuffer(queue, mem,
                                org.lwjgl.system.MemoryUtil.memAddress(pat), p, off, total, 0, 0,
                                org.lwjgl.system.MemoryUtil.memAddress(ev)),
                        "clEnqueueFillBuffer", "of " + total + " bytes at " + off + " on " + device);
                await(ev.get(0), "clEnqueueFillBuffer of " + total + " bytes");
            }
            return;
        }
        RegionDescriptors rows = new RegionDescriptors();
        rows.add(0, new long[]{0}, off, new long[]{p}, new long[]{total / p}, (int) p, true);
        launchFill(mem, rows, pattern);
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
        if (elemSize < 1) {
            throw new IllegalArgumentException("element size must be positive, got " + elemSize);
        }
        record Pair(long src, long dst) {
        }
        Map<Pair, RegionDescriptors> launches = new LinkedHashMap<>();
        List<Region.Copy> hostOnly = new ArrayList<>();
        List<Region.Copy> uploads = new ArrayList<>();
        List<Region.Copy> downloads = new ArrayList<>();
        for (Region.Copy c : copies) {
            long[] span = checkRegion("region copy source", c.src(), elemSize);
            checkRegion("region copy destination", c.dst(), elemSize);
            if (span == null) {
                continue; // empty box
            }
            OpenClBuffer s = device(c.src().buffer(), "region copy source");
            OpenClBuffer d = device(c.dst().buffer(), "region copy destination");
            if (s == null && d == null) {
                hostOnly.add(c);
            } else if (s == null) {
                uploads.add(c);
            } else if (d == null) {
                downloads.add(c);
            } else {
                launches.computeIfAbsent(new Pair(s.mem(), d.mem()), k -> new RegionDescriptors())
                        .add(s.offset() + c.src().offset(), c.src().byteStrides(), d.offset() + c.dst().offset(),
                                c.dst().byteStrides(), c.src().extent(), elemSize, false);
            }
        }
        for (Region.Copy c : hostOnly) {
            StridedCopy.copy(c.src().buffer().segment(), c.src().offset(), c.src().byteStrides(),
                    c.dst().buffer().segment(), c.dst().offset(), c.dst().byteStrides(), c.src().extent(), elemSize);
        }
        long upMem = 0;
        long downMem = 0;
        try {
            if (!uploads.isEmpty()) {
                long total = 0;
                for (Region.Copy c : uploads) {
                    total += c.src().elementCount() * elemSize;
                }
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment staging = a.allocate(total, 64);
                    long at = 0;
                    for (Region.Copy c : uploads) {
                        long[] ext = c.src().extent();
                        long[] packed = StridedCopy.cByteStrides(ext, elemSize);
                        StridedCopy.copy(c.src().buffer().segment(), c.src().offset(), c.src().byteStrides(), staging,
                                at, packed, ext, elemSize);
                        at += c.src().elementCount() * elemSize;
                    }
                    upMem = createMemFrom(staging, "packed region-copy sources");
                }
                long at = 0;
                for (Region.Copy c : uploads) {
                    OpenClBuffer d = (OpenClBuffer) c.dst().buffer();
                    long[] ext = c.src().extent();
                    launches.computeIfAbsent(new Pair(upMem, d.mem()), k -> new RegionDescriptors())
                            .add(at, StridedCopy.cByteStrides(ext, elemSize), d.offset() + c.dst().offset(),
                                    c.dst().byteStrides(), ext, elemSize, false);
                    at += c.src().elementCount() * elemSize;
                }
            }
            long downTotal = 0;
            for (Region.Copy c : downloads) {
                downTotal += c.src().elementCount() * elemSize;
            }
            if (!downloads.isEmpty()) {
                downMem = createMem(downTotal, CL_MEM_READ_WRITE, "packed region-copy destinations");
                long at = 0;
                for (Region.Copy c : downloads) {
                    OpenClBuffer s = (OpenClBuffer) c.src().buffer();
                    long[] ext = c.src().extent();
                    launches.computeIfAbsent(new Pair(s.mem(), downMem), k -> new RegionDescriptors())
                            .add(s.offset() + c.src().offset(), c.src().byteStrides(), at,
                                    StridedCopy.cByteStrides(ext, elemSize), ext, elemSize, false);
                    at += c.src().elementCount() * elemSize;
                }
            }
            for (var e : launches.entrySet()) {
                launchCopy(e.getKey().src(), e.getKey().dst(), e.getValue());
            }
            if (!downloads.isEmpty()) {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment staging = a.allocate(downTotal, 64);
                    read(downMem, 0, staging, 0, downTotal);
                    long at = 0;
                    for (Region.Copy c : downloads) {
                        long[] ext = c.src().extent();
                        StridedCopy.copy(staging, at, StridedCopy.cByteStrides(ext, elemSize),
                                c.dst().buffer().segment(), c.dst().offset(), c.dst().byteStrides(), ext, elemSize);
                        at += c.src().elementCount() * elemSize;
                    }
                }
            }
        } finally {
            releaseMem(upMem);
            releaseMem(downMem);
        }
    }

    /** Fills every region as one batch: one {@code zd_fill_regions} launch per distinct {@code cl_mem}. */
    @Override
    public void fillRegions(List<Region> regions, MemorySegment pattern) {
        checkOpen();
        int p = (int) pattern.byteSize();
        if (p < 1 || p > 16) {
            throw new IllegalArgumentException("fill pattern must be 1 to 16 bytes, got " + p + " bytes");
        }
        Map<Long, RegionDescriptors> launches = new LinkedHashMap<>();
        for (Region r : regions) {
            if (checkRegion("fill region", r, p) == null) {
                continue;
            }
            OpenClBuffer d = device(r.buffer(), "fill region");
            if (d == null) {
                StridedCopy.fill(r.buffer().segment(), r.offset(), r.byteStrides(), r.extent(), pattern);
            } else {
                launches.computeIfAbsent(d.mem(), k -> new RegionDescriptors())
                        .add(0, r.byteStrides(), d.offset() + r.offset(), r.byteStrides(), r.extent(), p, true);
            }
        }
        for (var e : launches.entrySet()) {
            launchFill(e.getKey(), e.getValue(), pattern);
        }
    }

    /** One launch of {@code zd_copy_regions} for {@code rows} from {@code src} to {@code dst}. */
    public void launchCopy(long src, long dst, RegionDescriptors rows) {
        if (rows.isEmpty()) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment table = a.allocate(rows.tableBytes(), 8);
            rows.writeTo(table, 0);
            long t = createMemFrom(table, "region-copy table");
            try {
                launch(backendKernel("zd_copy_regions"), global(rows), new long[]{localSize, 1},
                        new ClKernel.Mem(src), new ClKernel.Mem(dst), new ClKernel.Mem(t),
                        new ClKernel.U32(rows.size()));
            } finally {
                clReleaseMemObject(t);
            }
        }
    }

    private void launchFill(long dst, RegionDescriptors rows, MemorySegment pattern) {
        if (rows.isEmpty()) {
            return;
        }
        int p = (int) pattern.byteSize();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment table = a.allocate(40 + rows.tableBytes(), 8);
            for (int i = 0; i < 32; i++) {
                table.set(ValueLayout.JAVA_BYTE, i, pattern.get(ValueLayout.JAVA_BYTE, i % p));
            }
            table.set(ValueLayout.JAVA_LONG_UNALIGNED, 32, p);
            rows.writeTo(table, 40);
            long t = createMemFrom(table, "region-fill table");
            try {
                launch(backendKernel("zd_fill_regions"), global(rows), new long[]{localSize, 1},
                        new ClKernel.Mem(dst), new ClKernel.Mem(t), new ClKernel.U32(rows.size()));
            } finally {
                clReleaseMemObject(t);
            }
        }
    }

    /** The NDRange of a row launch: dimension 0 strides over units, dimension 1 is the row. */
    private long[] global(RegionDescriptors rows) {
        long groups = Math.clamp((rows.maxUnits() + localSize * 4L - 1) / (localSize * 4L), 1, MAX_GROUPS_PER_ROW);
        return new long[]{groups * localSize, rows.size()};
    }

    // ------------------------------------------------------------------ batch assembly

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
        OpenClBuffer s = device(gather.src(), "gather source");
        OpenClBuffer d = device(gather.dst(), "gather output");
        if (s == null && d == null) {
            Backend.super.gather(gather);
        } else if (s == null || d == null) {
            throw new UnsupportedOperationException("the opencl backend gathers planes within one memory: the source "
                    + gather.src() + " and the output " + gather.dst() + " are not both on " + device
                    + " (or both on the host); copy the source to the output's side first");
        } else {
            this.gather.run(gather, s, d);
        }
    }

    /** The gather's machinery, for tests of the staged path. */
    OpenClGather gatherKernel() {
        return gather;
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

    private static void checkRange(String role, Buffer b, long offset, long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative byte count " + bytes + " for " + role + " " + b);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset + " in " + role + " " + b);
        }
        if (offset > b.byteSize() - bytes) {
            throw new IndexOutOfBoundsException(bytes + " bytes at " + offset + " run past the end (length "
                    + b.byteSize() + ") of " + role + " " + b);
        }
    }

    /** The byte span [lo, hi) of a region's elements, or null when it is empty; throws when it leaves its buffer. */
    private static long[] checkRegion(String role, Region r, int elemSize) {
        long[] ext = r.extent();
        long[] st = r.byteStrides();
        long lo = r.offset();
        long hi = r.offset();
        for (int i = 0; i < ext.length; i++) {
            if (ext[i] < 0) {
                throw new IllegalArgumentException("negative extent in " + role + " " + java.util.Arrays.toString(ext));
            }
            if (ext[i] == 0) {
                return null;
            }
            long reach = Math.multiplyExact(ext[i] - 1, st[i]);
            if (reach < 0) {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        hi += elemSize;
        if (lo < 0 || hi > r.buffer().byteSize()) {
            throw new IndexOutOfBoundsException(role + " of extent " + java.util.Arrays.toString(ext) + ", strides "
                    + java.util.Arrays.toString(st) + " at offset " + r.offset() + " touches bytes [" + lo + ", " + hi
                    + ") outside " + r.buffer() + " of " + r.buffer().byteSize() + " bytes");
        }
        return new long[]{lo, hi};
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
        for (Long id : new ArrayList<>(live.keySet())) {
            untrack(id);
        }
        gather.close();
        programs.close();
        clReleaseCommandQueue(queue);
        clReleaseContext(context);
    }

    @Override
    public String toString() {
        return "OpenClBackend[" + info + ", live=" + live.size() + "]";
    }
}
