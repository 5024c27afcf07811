// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Sizes;
import org.lwjgl.PointerBuffer;
import org.lwjgl.opencl.CL;
import org.lwjgl.system.MemoryStack;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import static org.lwjgl.opencl.CL10.*;

/**
 * The memory of one {@link OpenClBackend}: {@code cl_mem} creation, sub-buffers, blocking reads,
 * writes and copies, pinned and plain host memory, and the tracking of every buffer handed out.
 * Region copies and fills through kernels are {@link ClRegions}'.
 *
 * <h2>Memory kinds</h2>
 * <ul>
 *   <li>{@link MemoryKind#DEVICE} on the backend's device: an {@link OpenClBuffer}.</li>
 *   <li>{@link MemoryKind#HOST_PINNED} (asked for on {@code cpu:0} or the device): a block of a
 *       {@code CL_MEM_ALLOC_HOST_PTR} buffer mapped once for its whole life, handed out as a
 *       {@link HostBuffer} on {@code cpu:0}. The driver's DMA engine reads such memory directly, so
 *       uploads from it are the fast ones. Blocks are pooled ({@link BlockPool}, up to
 *       {@value #PINNED_RETAINED} bytes kept): closing the buffer gives its block back, and the
 *       device decoder's per-batch staging is then neither created, mapped nor faulted in again
 *       (on an H100 that was most of a 98 MB batch's 90 to 120 ms fetch).</li>
 *   <li>{@link MemoryKind#HOST}: ordinary host memory.</li>
 *   <li>{@link MemoryKind#MANAGED} is refused by {@link OpenClBackend#allocate} (OpenCL has no
 *       unified memory before SVM).</li>
 * </ul>
 * {@link OpenClBackend#allocate} zeroes every allocation: host memory here, device memory by
 * {@link OpenClBackend#allocateDevice} ({@code clEnqueueFillBuffer}, else the fill kernel of
 * {@link ClRegions}); {@link OpenClBackend#allocateUninitialized} skips that.
 *
 * <h2>Raw {@code cl_mem}s</h2>
 * {@link #createMem} and {@link #createMemFrom} make untracked memory objects for a batch's
 * tables and staging; their caller releases them with {@link #releaseMem}. {@link #scratch} hands
 * out pooled ones for what every launch needs anew (chunk tables, status words, decoder scratch).
 * {@link ClCounters} counts creations, blocking transfers and maps.
 *
 * <h2>Leaks</h2>
 * Every buffer handed out is recorded until it is closed, with the stack of its allocation when
 * tracking is on ({@code -Dzarrdirect.trackBuffers=true} or {@link OpenClBackend#trackBuffers(boolean)});
 * {@link OpenClBackend#liveBuffers()} and {@link OpenClBackend#assertNoLiveBuffers()} report them,
 * as the CPU and CUDA backends do. The backend's {@code close()} frees every buffer still open
 * ({@code releaseAll()}).
 *
 * <p>Thread-safe. Transfers are blocking, as every operation of the backend.
 */
public final class ClMemory {

    /** Bytes of free pinned blocks kept: as much as the CUDA backend's pinned pool keeps by default for a host-decoded batch pair. */
    static final long PINNED_RETAINED = 1L << 30;
    /** Bytes of free launch scratch kept: a few launches' worth (a blosc launch takes up to 512 MiB). */
    static final long SCRATCH_RETAINED = 2L << 30;
    /** Bytes of free uninitialized device memory kept at most: a few batches and destinations. */
    static final long DEVICE_RETAINED = 4L << 30;
    /** Size classes per doubling of the device pool. */
    static final int DEVICE_STEPS = 8;

    private record Live(long id, MemoryKind kind, long bytes, String thread, Throwable allocatedAt,
                        Runnable free) {
    }

    private final OpenClBackend backend;
    private final ClDevices.Info info;
    private final Device device;
    private final long context;
    private final boolean hasFillBuffer;
    private final long baseAlignBytes;
    private final Map<Long, Live> live = new ConcurrentHashMap<>();
    /** Mapped pinned staging kept for reuse: pinning and mapping a block costs far more than the copies through it. */
    private final BlockPool pinned = new BlockPool(PINNED_RETAINED);
    /** Launch scratch kept for reuse (see {@link #scratch}). */
    private final BlockPool scratchPool = new BlockPool(SCRATCH_RETAINED);
    /** Uninitialized device memory kept for reuse (see {@link #allocateDeviceUninitialized}). */
    private final BlockPool devicePool;
    private final AtomicLong ids = new AtomicLong();
    private volatile boolean tracking;

    /** Memory of {@code backend} in {@code context}; transfers go through the calling thread's queue of the backend. */
    ClMemory(OpenClBackend backend, ClDevices.Info info, long context, boolean tracking) {
        this.backend = backend;
        this.info = info;
        this.device = info.device();
        this.context = context;
        this.tracking = tracking;
        this.hasFillBuffer = CL.getICD().clEnqueueFillBuffer != 0 && !info.version().startsWith("OpenCL 1.0")
                && !info.version().startsWith("OpenCL 1.1");
        this.baseAlignBytes = Math.max(8, baseAlignBits(info.id()) / 8);
        // an eighth of the device's memory at most (PoCL's "device" is the host's memory)
        this.devicePool = new BlockPool(Math.min(DEVICE_RETAINED, info.globalMemBytes() / 8), DEVICE_STEPS);
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

    /** The most one buffer may take on this device ({@code CL_DEVICE_MAX_MEM_ALLOC_SIZE}). */
    public long maxAllocBytes() {
        return info.maxAllocBytes();
    }

    /** The device's global memory ({@code CL_DEVICE_GLOBAL_MEM_SIZE}; PoCL's is the host's). */
    public long globalMemBytes() {
        return info.globalMemBytes();
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
            backend.counters().subBuffers.incrementAndGet();
            return sub;
        }
    }

    // ------------------------------------------------------------------ allocation

    /**
     * Device memory, tracked like every allocation; {@code init} runs on the new {@code cl_mem}
     * first (the backend zeroes it there), and the {@code cl_mem} is released when it throws.
     */
    OpenClBuffer allocateDevice(long bytes, LongConsumer init) {
        long mem = createMem(bytes, CL_MEM_READ_WRITE, "DEVICE memory");
        boolean ok = false;
        try {
            init.accept(mem);
            long id = track(MemoryKind.DEVICE, bytes, () -> clReleaseMemObject(mem));
            ok = true;
            return new OpenClBuffer(backend, null, mem, 0, bytes, id, new AtomicBoolean());
        } finally {
            if (!ok) {
                clReleaseMemObject(mem);
            }
        }
    }

    /**
     * The size class of {@code bytes} in {@code pool}, or {@code bytes} itself (a block never pooled)
     * when the class would exceed what the device allows per buffer and the request does not.
     */
    private long classOrOwnSize(BlockPool pool, long bytes) {
        long size = pool.blockSize(bytes);
        return size > info.maxAllocBytes() && bytes <= info.maxAllocBytes() ? Math.max(1, bytes) : size;
    }

    /**
     * Device memory whose contents are unspecified, tracked like every allocation: a block of the
     * device pool ({@value #DEVICE_STEPS} size classes per doubling, so at most 1/{@value #DEVICE_STEPS}
     * is wasted) or a new {@code cl_mem}; closing the buffer gives the block back. The device decoder
     * takes a batch's encoded bytes and every read's destination this way: created and released
     * per batch, each would cost a driver allocation at first use and a free that may wait for the device.
     */
    OpenClBuffer allocateDeviceUninitialized(long bytes) {
        BlockPool.Block b = devicePool.take(bytes);
        if (b == null) {
            long size = classOrOwnSize(devicePool, bytes);
            b = new BlockPool.Block(createMem(size, CL_MEM_READ_WRITE, "DEVICE memory"), 0, size);
        }
        BlockPool.Block blk = b;
        boolean ok = false;
        try {
            long id = track(MemoryKind.DEVICE, bytes, () -> keep(devicePool, blk));
            ok = true;
            return new OpenClBuffer(backend, null, blk.mem(), 0, bytes, id, new AtomicBoolean());
        } finally {
            if (!ok) {
                keep(devicePool, blk);
            }
        }
    }

    /**
     * {@code bytes} of pinned host memory: a mapped {@code CL_MEM_ALLOC_HOST_PTR} block from the pool
     * (see {@link BlockPool}) or a new one, zeroed when {@code zeroed}. Closing the buffer gives the
     * block back; its segment is closed then, so a late access fails rather than touching the next user's.
     */
    @SuppressWarnings("restricted") // the mapped pointer is valid for the whole block until unmapped
    HostBuffer allocatePinned(long bytes, boolean zeroed) {
        BlockPool.Block block = pinned.take(bytes);
        if (block == null) {
            block = mapPinned(classOrOwnSize(pinned, bytes));
        }
        Arena arena = Arena.ofShared();
        boolean ok = false;
        try {
            MemorySegment seg = MemorySegment.ofAddress(block.ptr()).reinterpret(bytes, arena, null);
            if (zeroed) {
                seg.fill((byte) 0);
            }
            BlockPool.Block blk = block;
            long id = track(MemoryKind.HOST_PINNED, bytes, () -> {
                arena.close();
                keep(pinned, blk);
            });
            ok = true;
            return HostBuffer.of(seg, MemoryKind.HOST_PINNED, Device.CPU, () -> untrack(id));
        } finally {
            if (!ok) {
                arena.close();
                keep(pinned, block);
            }
        }
    }

    /** A new pinned block of {@code bytes}, mapped for its whole life. */
    private BlockPool.Block mapPinned(long bytes) {
        long mem = createMem(bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, "HOST_PINNED memory");
        try (MemoryStack stack = MemoryStack.stackPush()) {
            IntBuffer err = stack.mallocInt(1);
            long ptr = nclEnqueueMapBuffer(backend.laneQueue(), mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, Math.max(1, bytes), 0, 0,
                    0, org.lwjgl.system.MemoryUtil.memAddress(err));
            if (err.get(0) != 0) {
                clReleaseMemObject(mem);
            }
            ClErrors.check(err.get(0), "clEnqueueMapBuffer", "of " + Sizes.human(bytes) + " of HOST_PINNED memory on "
                    + device);
            backend.counters().pinnedMaps.incrementAndGet();
            return new BlockPool.Block(mem, ptr, bytes);
        }
    }

    /**
     * Device scratch of at least {@code bytes} for one launch (a decoder's per-group scratch): a
     * {@code cl_mem} from the scratch pool or a new one; {@link Scratch#close()} gives it back once
     * the launch has completed. Creating and releasing such buffers per batch costs a driver
     * allocation each time (NVIDIA's OpenCL allocates at first use, and a release may wait for the
     * device), which reuse avoids.
     */
    public Scratch scratch(long bytes, String what) {
        BlockPool.Block b = scratchPool.take(Math.max(1, bytes));
        if (b == null) {
            long size = classOrOwnSize(scratchPool, Math.max(1, bytes));
            b = new BlockPool.Block(createMem(size, CL_MEM_READ_WRITE, what), 0, size);
        }
        return new Scratch(b);
    }

    /** Device scratch from {@link #scratch}; close it after the launch that uses it has completed. */
    public final class Scratch implements AutoCloseable {
        private final BlockPool.Block block;
        private boolean closed;

        private Scratch(BlockPool.Block block) {
            this.block = block;
        }

        /** The {@code cl_mem}. */
        public long mem() {
            return block.mem();
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            keep(scratchPool, block);
        }
    }

    /** Gives {@code b} back to {@code pool} and frees what the pool does not keep (mapped blocks are unmapped first). */
    private void keep(BlockPool pool, BlockPool.Block b) {
        for (BlockPool.Block f : pool.giveBack(b)) {
            if (f.ptr() != 0) {
                unmapAndRelease(f.mem(), f.ptr());
            } else {
                clReleaseMemObject(f.mem());
            }
        }
    }

    /** Frees the pooled pinned and scratch blocks; the backend's {@code close()} calls this after {@link #releaseAll()}. */
    void releasePools() {
        for (BlockPool.Block b : pinned.close()) {
            unmapAndRelease(b.mem(), b.ptr());
        }
        for (BlockPool.Block b : scratchPool.close()) {
            clReleaseMemObject(b.mem());
        }
        for (BlockPool.Block b : devicePool.close()) {
            clReleaseMemObject(b.mem());
        }
    }

    private void unmapAndRelease(long mem, long ptr) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            PointerBuffer ev = stack.mallocPointer(1);
            int rc = nclEnqueueUnmapMemObject(backend.laneQueue(), mem, ptr, 0, 0, org.lwjgl.system.MemoryUtil.memAddress(ev));
            if (rc == 0) {
                clWaitForEvents(ev.get(0));
                clReleaseEvent(ev.get(0));
            }
        } finally {
            clReleaseMemObject(mem);
        }
    }

    HostBuffer allocateHost(long bytes) {
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
            created(bytes);
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
            created(data.byteSize());
            return mem;
        }
    }

    private void created(long bytes) {
        ClCounters c = backend.counters();
        c.buffersCreated.incrementAndGet();
        c.bytesCreated.addAndGet(Math.max(1, bytes));
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

    /** Frees the memory of an owning {@link OpenClBuffer} being closed. */
    void release(OpenClBuffer buffer, long mem) {
        untrack(buffer.id());
    }

    /** Buffers allocated here and not yet closed. */
    long liveBuffers() {
        return live.size();
    }

    /** Records allocation stacks for buffers allocated from now on; for tests. */
    void trackBuffers(boolean on) {
        tracking = on;
    }

    /** Throws {@link IllegalStateException} naming every open buffer and, when tracked, where it was allocated. */
    void assertNoLiveBuffers() {
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
                msg.append(" (stack not recorded; run with -D").append(OpenClBackend.TRACK_PROPERTY)
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

    /** Frees every buffer still open; the backend's {@code close()} calls this. */
    void releaseAll() {
        for (Long id : new ArrayList<>(live.keySet())) {
            untrack(id);
        }
    }

    // ------------------------------------------------------------------ raw transfers

    /** Blocking write of {@code n} bytes of {@code src} from {@code srcOff} into {@code mem} at {@code memOff}. */
    public void write(long mem, long memOff, MemorySegment src, long srcOff, long n) {
        write(backend.laneQueue(), mem, memOff, src, srcOff, n);
    }

    /** {@link #write(long, long, MemorySegment, long, long)} on {@code queue}. */
    private void write(long queue, long mem, long memOff, MemorySegment src, long srcOff, long n) {
        if (n == 0) {
            return;
        }
        if (src.isNative()) {
            ClErrors.check(nclEnqueueWriteBuffer(queue, mem, CL_TRUE, memOff, n, src.address() + srcOff, 0, 0, 0),
                    "clEnqueueWriteBuffer", "of " + n + " bytes to offset " + memOff + " on " + device);
            backend.counters().blockingWrites.incrementAndGet();
            backend.counters().bytesWritten.addAndGet(n);
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            long chunk = Math.min(n, 16L << 20);
            MemorySegment tmp = a.allocate(chunk, 64);
            for (long done = 0; done < n; done += chunk) {
                long k = Math.min(chunk, n - done);
                MemorySegment.copy(src, srcOff + done, tmp, 0, k);
                write(queue, mem, memOff + done, tmp, 0, k);
            }
        }
    }

    /** Blocking read of {@code n} bytes of {@code mem} from {@code memOff} into {@code dst} at {@code dstOff}. */
    public void read(long mem, long memOff, MemorySegment dst, long dstOff, long n) {
        read(backend.laneQueue(), mem, memOff, dst, dstOff, n);
    }

    /** {@link #read(long, long, MemorySegment, long, long)} on {@code queue}. */
    private void read(long queue, long mem, long memOff, MemorySegment dst, long dstOff, long n) {
        if (n == 0) {
            return;
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("cannot read device memory into a read-only segment " + dst);
        }
        if (dst.isNative()) {
            ClErrors.check(nclEnqueueReadBuffer(queue, mem, CL_TRUE, memOff, n, dst.address() + dstOff, 0, 0, 0),
                    "clEnqueueReadBuffer", "of " + n + " bytes from offset " + memOff + " on " + device);
            backend.counters().blockingReads.incrementAndGet();
            backend.counters().bytesRead.addAndGet(n);
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            long chunk = Math.min(n, 16L << 20);
            MemorySegment tmp = a.allocate(chunk, 64);
            for (long done = 0; done < n; done += chunk) {
                long k = Math.min(chunk, n - done);
                read(queue, mem, memOff + done, tmp, 0, k);
                MemorySegment.copy(tmp, 0, dst, dstOff + done, k);
            }
        }
    }

    /** Device-side copy between two {@code cl_mem}s (or within one, when the ranges do not overlap). */
    public void copyMem(long src, long srcOff, long dst, long dstOff, long n) {
        copyMem(backend.laneQueue(), src, srcOff, dst, dstOff, n);
    }

    /** {@link #copyMem(long, long, long, long, long)} on {@code queue}. */
    private void copyMem(long queue, long src, long srcOff, long dst, long dstOff, long n) {
        if (n == 0) {
            return;
        }
        if (src == dst && srcOff < dstOff + n && dstOff < srcOff + n) {
            if (srcOff == dstOff) {
                return;
            }
            long tmp = createMem(n, CL_MEM_READ_WRITE, "overlapping-copy staging");
            try {
                copyMem(queue, src, srcOff, tmp, 0, n);
                copyMem(queue, tmp, 0, dst, dstOff, n);
            } finally {
                clReleaseMemObject(tmp);
            }
            return;
        }
        try (MemoryStack stack = MemoryStack.stackPush()) {
            PointerBuffer ev = stack.mallocPointer(1);
            ClErrors.check(clEnqueueCopyBuffer(queue, src, dst, srcOff, dstOff, n, null, ev), "clEnqueueCopyBuffer",
                    "of " + n + " bytes on " + device);
            backend.await(ev.get(0), "clEnqueueCopyBuffer of " + n + " bytes");
        }
    }

    /**
     * Fills {@code total} bytes of {@code mem} from {@code off} with {@code pattern} through
     * {@code clEnqueueFillBuffer} and returns true, or returns false without doing anything when
     * the device has no such command (OpenCL 1.0, 1.1), the pattern is not 1, 2, 4, 8 or 16 bytes
     * or {@code off} is not a multiple of it; then the {@code zd_fill_regions} kernel of
     * {@link ClRegions} does it.
     */
    boolean fillBuffer(long mem, long off, long total, MemorySegment pattern) {
        long p = pattern.byteSize();
        if (!(hasFillBuffer && Long.bitCount(p) == 1 && off % p == 0)) {
            return false;
        }
        try (MemoryStack stack = MemoryStack.stackPush()) {
            var pat = stack.malloc((int) p);
            MemorySegment.copy(pattern, 0, MemorySegment.ofBuffer(pat), 0, p);
            PointerBuffer ev = stack.mallocPointer(1);
            ClErrors.check(org.lwjgl.opencl.CL12.nclEnqueueFillBuffer(backend.laneQueue(), mem,
                            org.lwjgl.system.MemoryUtil.memAddress(pat), p, off, total, 0, 0,
                            org.lwjgl.system.MemoryUtil.memAddress(ev)),
                    "clEnqueueFillBuffer", "of " + total + " bytes at " + off + " on " + device);
            backend.await(ev.get(0), "clEnqueueFillBuffer of " + total + " bytes");
        }
        return true;
    }

    // ------------------------------------------------------------------ copies between buffers

    /**
     * The body of {@link OpenClBackend#copy}: a host copy, a blocking write or read, or a
     * device-side copy, as the two buffers lie; on the thread's transfer queue
     * ({@link OpenClBackend#transferQueue()}), so that it does not wait behind launches.
     */
    void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
        checkRange("copy source", src, srcOffset, bytes);
        checkRange("copy destination", dst, dstOffset, bytes);
        OpenClBuffer ds = backend.device(src, "copy source");
        OpenClBuffer dd = backend.device(dst, "copy destination");
        if (bytes == 0) {
            return;
        }
        if (ds == null && dd == null) {
            MemorySegment.copy(src.segment(), srcOffset, dst.segment(), dstOffset, bytes);
        } else if (ds == null) {
            write(backend.transferQueue(), dd.mem(), dd.offset() + dstOffset, src.segment(), srcOffset, bytes);
        } else if (dd == null) {
            read(backend.transferQueue(), ds.mem(), ds.offset() + srcOffset, dst.segment(), dstOffset, bytes);
        } else {
            copyMem(backend.transferQueue(), ds.mem(), ds.offset() + srcOffset, dd.mem(), dd.offset() + dstOffset, bytes);
        }
    }

    // ------------------------------------------------------------------ checks

    static void checkRange(String role, Buffer b, long offset, long bytes) {
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

    @Override
    public String toString() {
        return "ClMemory[" + device + ", live=" + live.size() + "]";
    }
}
