// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.backend.InterprocessMemory;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Region;
import dev.zarrdirect.api.buffer.Sizes;
import dev.zarrdirect.api.buffer.StridedCopy;
import dev.zarrdirect.api.settings.ResolvedSetting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.cuda.codec.ZstdKernelPolicy;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;
import dev.zarrdirect.cuda.driver.CudaException;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.io.DirectReaders;
import dev.zarrdirect.cuda.ipc.CudaIpcMemory;
import dev.zarrdirect.cuda.kernels.ScatterTable;
import dev.zarrdirect.cuda.kernels.ZdStatus;
import dev.zarrdirect.cuda.memory.DeviceAllocator;
import dev.zarrdirect.cuda.memory.PinnedHostPool;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CUDA backend: memory of every CUDA device of the machine, copies in every direction, batched
 * region copies and fills with one kernel launch, the device codecs of {@link CudaCodecProvider},
 * and a {@link DirectReader} from local files into device memory.
 *
 * <h2>Memory kinds</h2>
 * <ul>
 *   <li>{@code DEVICE}: {@link CudaBuffer}s from the stream-ordered pool ({@link DeviceAllocator});
 *       zeroed on allocation (a memset on the device; {@link #allocateUninitialized} skips it).</li>
 *   <li>{@code HOST_PINNED}: page-locked {@link HostBuffer}s from a {@link PinnedHostPool}, on device
 *       {@code cuda_host:N} (DLPack's pinned-host type); not zeroed (staging that callers overwrite).</li>
 *   <li>{@code MANAGED}: {@code cuMemAllocManaged}; never more than {@code cuMemGetInfo} reports free.</li>
 *   <li>{@code HOST}: plain host memory, as the CPU backend gives it.</li>
 * </ul>
 * {@link #allocateExportable} gives {@code DEVICE} memory from plain {@code cuMemAlloc} instead of the
 * pool, which CUDA IPC can export ({@link #interprocess()}).
 *
 * <h2>Batch assembly and hand-off</h2>
 * {@link #gather} runs a loader's plane gather as one launch of {@code zd_gather} ({@link CudaGather});
 * {@link #interprocess()} exports device memory and events to another process ({@link CudaIpcMemory}).
 *
 * <h2>Threads and streams</h2>
 * Safe for concurrent use. Each call makes the device's primary context current on the calling
 * thread, borrows a stream, queues its work, and synchronises that stream before it returns.
 *
 * <h2>Leaks</h2>
 * {@link #liveBuffers()} and {@link #assertNoLiveBuffers()} report owning buffers not yet closed;
 * with {@code -Dzarrdirect.trackBuffers=true} or {@link #trackBuffers(boolean)} they carry the stack
 * of each allocation.
 *
 * <p>{@link #close()} frees everything, open buffers included; closing twice is harmless.
 */
public final class CudaBackend implements Backend {

    /**
     * Bytes the device pool keeps after frees; default a quarter of the device's memory, at least
     * 4 GiB. A device batch of the multi-pass zstd path takes about 5 bytes of scratch per decoded
     * byte, 9 when its execution is deferred (frames of 8 MiB and more), freed at its end: a pool
     * that gave it back to the driver would map it again for the next batch, and the output tensor
     * of the next read with it. Measured on the H200: sharded ERA5 store 22.4 GB/s with 4 GiB kept,
     * 25.3 with 64 GiB; the plain ERA5 store (one batch of 32 frames of 66 MB: 19 GB of scratch and
     * refs) 22.93 GB/s with an eighth (17.5 GB: its 2.1 GB output took 6 ms to allocate) against
     * 26.32 with 64 GiB. Memory kept here is free for other allocations of the same pool, not for
     * the rest of the device.
     */
    public static final String POOL_RETAINED_PROPERTY = "zarrdirect.cuda.poolRetainedBytes";
    /** Bytes of free pinned host blocks kept; default 1 GiB. */
    public static final String PINNED_RETAINED_PROPERTY = "zarrdirect.cuda.pinnedRetainedBytes";
    /** Chunks per codec call the core should use; default 128. */
    public static final String BATCH_PROPERTY = "zarrdirect.cuda.batchSize";
    /** System property: at most how many decoded bytes a device batch holds ({@link #preferredBatchBytes()}). */
    public static final String BATCH_BYTES_PROPERTY = "zarrdirect.cuda.batchBytes";

    static final int SCATTER_BLOCK = 256;

    private final CudaDriver driver;
    private final List<CudaDevice> devices;
    private final List<DeviceAllocator> allocators;
    private final List<PinnedHostPool> pinned;
    private final CudaCodecProvider codecs;
    private final Map<Buffer, Throwable> live = new IdentityHashMap<>();
    private final CudaSettings settings;
    private final List<ResolvedSetting<?>> resolved;
    /** Per device ordinal; empty without kernels. */
    private final List<ZstdKernelPolicy> zstdPolicies;
    private volatile boolean track;
    private volatile DirectReader reader;
    private volatile CudaIpcMemory ipc;
    /** Open buffers of {@link #allocateExportable}: plain cuMemAlloc memory, freed with cuMemFree. */
    private final Set<Buffer> exportable = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * Opens every device the driver reports, loading {@code fatbin} into each (null: memory and
     * copies only), with the settings of system properties, environment and defaults.
     */
    public CudaBackend(CudaDriver driver, MemorySegment fatbin) {
        this(driver, fatbin, SettingResolver.system());
    }

    /**
     * Opens every device the driver reports, loading {@code fatbin} into each (null: memory and
     * copies only), with the settings {@code r} resolves; chooses each device's
     * {@link ZstdKernelPolicy}.
     *
     * @throws dev.zarrdirect.api.InvalidSettingException when a setting is bad or asks for kernel
     *                                                    launches a device cannot run
     */
    public CudaBackend(CudaDriver driver, MemorySegment fatbin, SettingResolver r) {
        this.driver = driver;
        this.settings = CudaSettings.from(r);
        this.track = settings.trackBuffers();
        List<ZstdKernelPolicy> policies = new ArrayList<>();
        List<CudaDevice> devs = new ArrayList<>();
        List<DeviceAllocator> allocs = new ArrayList<>();
        List<PinnedHostPool> pins = new ArrayList<>();
        boolean ok = false;
        try {
            int n = driver.deviceCount();
            for (int i = 0; i < n; i++) {
                CudaDevice d = new CudaDevice(driver, i, fatbin, settings.schedule());
                devs.add(d);
                allocs.add(new DeviceAllocator(d, settings.poolRetainedBytes(d.totalMemory())));
                pins.add(new PinnedHostPool(driver, d::makeCurrent, new Device(DeviceType.CUDA_HOST, i),
                        settings.pinnedRetainedBytes()));
                if (fatbin != null) {
                    policies.add(ZstdKernelPolicy.forDevice(ZstdKernelPolicy.DeviceProperties.of(d), settings.zstd()));
                }
            }
            ok = true;
        } finally {
            if (!ok) {
                pins.forEach(PinnedHostPool::close);
                allocs.forEach(DeviceAllocator::close);
                devs.forEach(CudaDevice::close);
            }
        }
        this.devices = List.copyOf(devs);
        this.allocators = List.copyOf(allocs);
        this.pinned = List.copyOf(pins);
        this.zstdPolicies = List.copyOf(policies);
        this.resolved = resolvedWithDerived(r.resolved());
        this.codecs = new CudaCodecProvider(this);
    }

    /** The settings in force, with the derived defaults as device 0 has them. */
    private List<ResolvedSetting<?>> resolvedWithDerived(List<ResolvedSetting<?>> all) {
        List<ResolvedSetting<?>> out = new ArrayList<>();
        for (ResolvedSetting<?> s : all) {
            if (s.value() == null && !devices.isEmpty() && s.setting().equals(CudaSettings.POOL_RETAINED)) {
                out.add(new ResolvedSetting<>(CudaSettings.POOL_RETAINED,
                        settings.poolRetainedBytes(devices.getFirst().totalMemory()), s.source()));
            } else if (s.value() == null && !zstdPolicies.isEmpty() && s.setting().equals(ZstdKernelPolicy.MP_THREADS)) {
                out.add(new ResolvedSetting<>(ZstdKernelPolicy.MP_THREADS,
                        zstdPolicies.getFirst().multiPass().execThreads(), s.source()));
            } else {
                out.add(s);
            }
        }
        return List.copyOf(out);
    }

    /** The settings this backend started with. */
    public CudaSettings cudaSettings() {
        return settings;
    }

    @Override
    public List<ResolvedSetting<?>> settings() {
        return resolved;
    }

    /**
     * How the zstd kernels run on {@code device}: chosen once, when the backend started.
     *
     * @throws IllegalStateException when the backend was opened without kernels
     */
    public ZstdKernelPolicy zstdPolicy(CudaDevice device) {
        if (zstdPolicies.isEmpty()) {
            throw new IllegalStateException("no kernels are loaded by " + this + ": no zstd kernel policy for " + device);
        }
        return zstdPolicies.get(device.ordinal());
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public List<Device> devices() {
        return devices.stream().map(CudaDevice::device).toList();
    }

    public CudaDriver driver() {
        return driver;
    }

    /** The device {@code cuda:index} (or {@code cuda_host:index}, {@code cuda_managed:index}). */
    public CudaDevice cudaDevice(Device device) {
        checkOpen();
        int i = device.index();
        if (device.type() != DeviceType.CUDA && device.type() != DeviceType.CUDA_HOST
                && device.type() != DeviceType.CUDA_MANAGED || i >= devices.size()) {
            throw new IllegalArgumentException("the cuda backend has devices " + devices() + ", not " + device);
        }
        return devices.get(i);
    }

    public List<CudaDevice> cudaDevices() {
        return devices;
    }

    // ------------------------------------------------------------------ allocation

    @Override
    public Buffer allocate(Device device, MemoryKind kind, long bytes) {
        return allocate(device, kind, bytes, true);
    }

    /** Like {@link #allocate}, but device memory keeps whatever an earlier user left. */
    public Buffer allocateUninitialized(Device device, MemoryKind kind, long bytes) {
        return allocate(device, kind, bytes, false);
    }

    /**
     * Memory for the backend's own machinery (a reader's bounce buffers): not counted by
     * {@link #liveBuffers()}, freed by its owner or at {@link #close()}.
     */
    public Buffer allocateInternal(Device device, MemoryKind kind, long bytes) {
        checkOpen();
        CudaDevice d = device.type() == DeviceType.CPU ? devices.getFirst() : cudaDevice(device);
        return switch (kind) {
            case HOST_PINNED -> pinned.get(d.ordinal()).allocate(bytes);
            case DEVICE -> allocateDevice(d, bytes, false);
            default -> throw new IllegalArgumentException("internal allocations are HOST_PINNED or DEVICE, not " + kind);
        };
    }

    private Buffer allocate(Device device, MemoryKind kind, long bytes, boolean zero) {
        checkOpen();
        if (bytes < 0) {
            throw new IllegalArgumentException("negative buffer size " + bytes + " for " + kind + " on " + device);
        }
        if (kind == MemoryKind.HOST) {
            return register(HostBuffer.allocate(bytes));
        }
        CudaDevice d = device.type() == DeviceType.CPU ? devices.getFirst() : cudaDevice(device);
        return switch (kind) {
            case HOST_PINNED -> register(pinned.get(d.ordinal()).allocate(bytes));
            case DEVICE -> register(allocateDevice(d, bytes, zero));
            case MANAGED -> register(allocateManaged(d, bytes));
            case HOST -> throw new AssertionError();
        };
    }

    private CudaBuffer allocateDevice(CudaDevice d, long bytes, boolean zero) {
        DeviceAllocator alloc = allocators.get(d.ordinal());
        d.makeCurrent();
        if (bytes == 0) {
            return CudaBuffer.owning(d.device(), MemoryKind.DEVICE, 0, 0, () -> { });
        }
        long stream = d.acquireStream();
        long ptr;
        try {
            ptr = alloc.allocate(bytes, stream);
            if (zero) {
                driver.memsetD8Async(ptr, (byte) 0, bytes, stream);
            }
            driver.streamSynchronize(stream, "allocating " + bytes + " bytes on " + d);
        } catch (CudaException e) {
            d.releaseStream(stream);
            if (e.code() == CudaDriver.CUDA_ERROR_OUT_OF_MEMORY) {
                long[] info = driver.memGetInfo();
                throw new CudaException(e.code(), "cannot allocate " + Sizes.human(bytes) + " of DEVICE memory on "
                        + d + ": " + Sizes.human(info[0]) + " of " + Sizes.human(info[1]) + " free (" + e.getMessage() + ")");
            }
            throw e;
        }
        d.releaseStream(stream);
        long p = ptr;
        return CudaBuffer.owning(d.device(), MemoryKind.DEVICE, p, bytes, () -> freeDevice(d, p));
    }

    private void freeDevice(CudaDevice d, long ptr) {
        if (closed) {
            return; // the pool was trimmed and the context's allocations are gone with it
        }
        d.makeCurrent();
        long stream = d.acquireStream();
        try {
            allocators.get(d.ordinal()).free(ptr, stream);
        } finally {
            d.releaseStream(stream);
        }
    }

    /**
     * {@code bytes} (> 0) of {@code DEVICE} memory on {@code device} from plain {@code cuMemAlloc}, not
     * from the stream-ordered pool: memory that {@code cuIpcGetMemHandle} can export. Not zeroed.
     * Tracked like every allocation; closing the buffer frees it with {@code cuMemFree}, which waits
     * for the device.
     */
    public CudaBuffer allocateExportable(Device device, long bytes) {
        checkOpen();
        if (bytes <= 0) {
            throw new IllegalArgumentException("exportable device memory needs at least one byte, not " + bytes
                    + " (on " + device + ")");
        }
        if (device.type() != DeviceType.CUDA) {
            throw new IllegalArgumentException("exportable memory lives on a cuda device, not on " + device);
        }
        CudaDevice d = cudaDevice(device);
        d.makeCurrent();
        long p;
        try {
            p = driver.memAlloc(bytes);
        } catch (CudaException e) {
            if (e.code() == CudaDriver.CUDA_ERROR_OUT_OF_MEMORY) {
                long[] info = driver.memGetInfo();
                throw new CudaException(e.code(), "cannot allocate " + Sizes.human(bytes) + " of exportable DEVICE"
                        + " memory on " + d + ": " + Sizes.human(info[0]) + " of " + Sizes.human(info[1]) + " free ("
                        + e.getMessage() + ")");
            }
            throw e;
        }
        CudaBuffer[] self = new CudaBuffer[1];
        CudaBuffer b = CudaBuffer.owning(d.device(), MemoryKind.DEVICE, p, bytes, () -> {
            exportable.remove(self[0]);
            if (!closed) {
                d.makeCurrent();
                driver.memFree(p);
            }
        });
        self[0] = b;
        exportable.add(b);
        return register(b);
    }

    private CudaBuffer allocateManaged(CudaDevice d, long bytes) {
        if (!d.managedMemory()) {
            throw new UnsupportedOperationException(d + " cannot allocate MANAGED memory (CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY is 0)");
        }
        d.makeCurrent();
        long[] info = driver.memGetInfo();
        checkManagedFits(d.toString(), bytes, info[0], info[1]);
        if (bytes == 0) {
            return CudaBuffer.owning(new Device(DeviceType.CUDA, d.ordinal()), MemoryKind.MANAGED, 0, 0, () -> { });
        }
        long p = driver.memAllocManaged(bytes);
        return CudaBuffer.owning(d.device(), MemoryKind.MANAGED, p, bytes, () -> {
            if (!closed) {
                d.makeCurrent();
                driver.memFree(p);
            }
        });
    }

    /**
     * Refuses a managed allocation larger than the device's free memory: unified memory would
     * oversubscribe and thrash (or fail later, inside a kernel) instead of failing here.
     */
    static void checkManagedFits(String device, long bytes, long free, long total) {
        if (bytes > free) {
            throw new CudaException(CudaDriver.CUDA_ERROR_OUT_OF_MEMORY, "cannot allocate " + Sizes.human(bytes)
                    + " (" + bytes + " bytes) of MANAGED memory on " + device + ": only " + Sizes.human(free) + " of "
                    + Sizes.human(total) + " are free (cuMemGetInfo); managed memory is kept within free device memory");
        }
    }

    private <B extends Buffer> B register(B b) {
        synchronized (live) {
            live.put(b, track ? new Throwable("allocated here: " + b) : null);
        }
        return b;
    }

    // ------------------------------------------------------------------ copies

    /** The address of byte {@code offset} of {@code b}, after checking {@code bytes} fit there. */
    private static long addressOf(String role, Buffer b, long offset, long bytes) {
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
        return b.address() + offset;
    }

    private boolean onDevice(Buffer b) {
        return !b.kind().hostAccessible();
    }

    private CudaDevice deviceFor(Buffer a, Buffer b) {
        if (onDevice(a)) {
            return cudaDevice(a.device());
        }
        if (onDevice(b)) {
            return cudaDevice(b.device());
        }
        return a.device().type() == DeviceType.CUDA_HOST ? cudaDevice(a.device()) : devices.getFirst();
    }

    @Override
    public void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
        checkOpen();
        long s = addressOf("copy source", src, srcOffset, bytes);
        long d = addressOf("copy destination", dst, dstOffset, bytes);
        if (bytes == 0) {
            return;
        }
        if (!onDevice(src) && !onDevice(dst)) {
            MemorySegment.copy(src.segment(), srcOffset, dst.segment(), dstOffset, bytes);
            return;
        }
        // A host buffer over a Java array (HostBuffer.wrap(MemorySegment.ofArray(...))) has no
        // address the driver can use: its bytes go through native memory.
        if (!onDevice(src) && !src.segment().isNative()) {
            try (Arena a = Arena.ofConfined(); HostBuffer staged = HostBuffer.wrap(a.allocate(bytes, 16))) {
                MemorySegment.copy(src.segment(), srcOffset, staged.segment(), 0, bytes);
                copy(staged, 0, dst, dstOffset, bytes);
            }
            return;
        }
        if (!onDevice(dst) && !dst.segment().isNative()) {
            try (Arena a = Arena.ofConfined(); HostBuffer staged = HostBuffer.wrap(a.allocate(bytes, 16))) {
                copy(src, srcOffset, staged, 0, bytes);
                MemorySegment.copy(staged.segment(), 0, dst.segment(), dstOffset, bytes);
            }
            return;
        }
        CudaDevice dev = deviceFor(src, dst);
        dev.makeCurrent();
        long stream = dev.acquireStream();
        try {
            MemoryKind sk = src.kind();
            MemoryKind dk = dst.kind();
            if (sk == MemoryKind.DEVICE && dk == MemoryKind.DEVICE) {
                driver.memcpyDtoDAsync(d, s, bytes, stream);
            } else if (sk.hostAccessible() && dk == MemoryKind.DEVICE) {
                driver.memcpyHtoDAsync(d, s, bytes, stream);
            } else if (sk == MemoryKind.DEVICE && dk.hostAccessible()) {
                driver.memcpyDtoHAsync(d, s, bytes, stream);
            } else {
                driver.memcpyAsync(d, s, bytes, stream); // managed memory: the unified address space decides
            }
            driver.streamSynchronize(stream, "copying " + bytes + " bytes from " + src + " to " + dst);
        } finally {
            dev.releaseStream(stream);
        }
    }

    /**
     * Fills {@code count} repetitions of {@code pattern} (1 to 16 bytes). On the device: a memset
     * when the pattern is one repeated byte or an aligned 4-byte word; otherwise the pattern is
     * written once and doubled with device-to-device copies (log2(count) copies).
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
        long d = addressOf("fill destination", dst, offset, total);
        if (total == 0) {
            return;
        }
        if (!onDevice(dst)) {
            StridedCopy.fillRun(dst.segment(), offset, count, pattern, StridedCopy.isZero(pattern));
            return;
        }
        CudaDevice dev = cudaDevice(dst.device());
        dev.makeCurrent();
        long stream = dev.acquireStream();
        try (Arena a = Arena.ofConfined()) {
            byte first = pattern.get(ValueLayout.JAVA_BYTE, 0);
            boolean uniform = true;
            for (long i = 1; i < p && uniform; i++) {
                uniform = pattern.get(ValueLayout.JAVA_BYTE, i) == first;
            }
            if (uniform) {
                driver.memsetD8Async(d, first, total, stream);
            } else if (p == 4 && d % 4 == 0) {
                driver.memsetD32Async(d, pattern.get(ValueLayout.JAVA_INT_UNALIGNED, 0), count, stream);
            } else {
                MemorySegment host = a.allocate(p);
                MemorySegment.copy(pattern, 0, host, 0, p);
                driver.memcpyHtoDAsync(d, host.address(), p, stream);
                long done = p;
                while (done < total) {
                    long n = Math.min(done, total - done);
                    driver.memcpyDtoDAsync(d + done, d, n, stream);
                    done += n;
                }
            }
            driver.streamSynchronize(stream, "filling " + total + " bytes of " + dst);
        } finally {
            dev.releaseStream(stream);
        }
    }

    private static void checkRegion(String role, Region r, int elemSize) {
        long fp = ScatterTable.footprint(r.extent(), r.byteStrides(), elemSize);
        if (fp > 0) {
            addressOf(role, r.buffer(), r.offset(), fp);
        }
    }

    /** Copies every region with one scatter launch per distinct destination layout (one, for the core's batches). */
    @Override
    public void copyRegions(List<Region.Copy> copies, int elemSize) {
        checkOpen();
        if (copies.isEmpty()) {
            return;
        }
        boolean allHost = copies.stream().allMatch(c -> !onDevice(c.src().buffer()) && !onDevice(c.dst().buffer()));
        if (allHost) {
            Backend.super.copyRegions(copies, elemSize);
            return;
        }
        List<ScatterTable.Entry> entries = new ArrayList<>();
        CudaDevice dev = null;
        for (Region.Copy c : copies) {
            checkRegion("region copy source", c.src(), elemSize);
            checkRegion("region copy destination", c.dst(), elemSize);
            CudaDevice d = deviceFor(c.src().buffer(), c.dst().buffer());
            if (dev != null && d != dev) {
                throw new UnsupportedOperationException("copyRegions across devices (" + dev + " and " + d + ") in one batch");
            }
            dev = d;
            entries.add(new ScatterTable.Entry(c.src().buffer().address() + c.src().offset(), c.src().byteStrides(),
                    c.dst().buffer().address() + c.dst().offset(), c.dst().byteStrides(), c.src().extent()));
        }
        scatter(dev, entries, elemSize, null, "copyRegions of " + copies.size() + " regions");
    }

    @Override
    public void fillRegions(List<Region> regions, MemorySegment pattern) {
        checkOpen();
        if (regions.isEmpty()) {
            return;
        }
        if (regions.stream().noneMatch(r -> onDevice(r.buffer()))) {
            Backend.super.fillRegions(regions, pattern);
            return;
        }
        int elemSize = (int) pattern.byteSize();
        List<ScatterTable.Entry> entries = new ArrayList<>();
        CudaDevice dev = null;
        for (Region r : regions) {
            checkRegion("region fill destination", r, elemSize);
            CudaDevice d = deviceFor(r.buffer(), r.buffer());
            if (dev != null && d != dev) {
                throw new UnsupportedOperationException("fillRegions across devices (" + dev + " and " + d + ") in one batch");
            }
            dev = d;
            entries.add(new ScatterTable.Entry(ScatterTable.FILL, null, r.buffer().address() + r.offset(),
                    r.byteStrides(), r.extent()));
        }
        scatter(dev, entries, elemSize, pattern, "fillRegions of " + regions.size() + " regions");
    }

    /**
     * Runs {@code zd_scatter} for each group of {@link ScatterTable#plan}: one table upload, one
     * launch, one read-back of the status words per group. Returns when the copies are complete.
     * Regions must have been checked against their buffers.
     */
    public void scatter(CudaDevice dev, List<ScatterTable.Entry> entries, int elemSize, MemorySegment fill, String what) {
        List<ScatterTable.Group> groups = ScatterTable.plan(entries, elemSize);
        if (groups.isEmpty()) {
            return;
        }
        dev.makeCurrent();
        long fn = dev.function("zd_scatter");
        long stream = dev.acquireStream();
        try (Arena a = Arena.ofConfined()) {
            for (ScatterTable.Group g : groups) {
                int n = g.size();
                // table: chunk_offsets[n] | boxes[n*4*rank] | dst_strides[rank] | fill (elem, 8-aligned) | status[n]
                long offOffsets = 0;
                long offBoxes = offOffsets + 8L * n;
                long offStrides = offBoxes + 8L * g.boxes().length;
                long offFill = offStrides + 8L * g.rank();
                long offStatus = offFill + (elemSize + 7L) / 8 * 8;
                long size = offStatus + 4L * n;
                MemorySegment host = a.allocate(size, 8);
                MemorySegment.copy(g.chunkOffsets(), 0, host, ValueLayout.JAVA_LONG, offOffsets, n);
                MemorySegment.copy(g.boxes(), 0, host, ValueLayout.JAVA_LONG, offBoxes, g.boxes().length);
                MemorySegment.copy(g.dstStrides(), 0, host, ValueLayout.JAVA_LONG, offStrides, g.rank());
                if (fill != null) {
                    MemorySegment.copy(fill, 0, host, offFill, elemSize);
                }
                long table = allocators.get(dev.ordinal()).allocate(size, stream);
                try {
                    driver.memcpyHtoDAsync(table, host.address(), size, stream);
                    KernelArgs args = new KernelArgs()
                            .u64(g.chunksBase()).u64(g.chunksLen()).u64(table + offOffsets).u64(table + offBoxes)
                            .u64(g.dstBase()).u64(g.dstLen()).u64(table + offStrides).u64(table + offFill)
                            .u64(table + offStatus).u32(g.rank()).u32(elemSize).u32(n);
                    driver.launch(fn, "zd_scatter", n, SCATTER_BLOCK, 0, stream, args.build(a));
                    driver.memcpyDtoHAsync(host.address() + offStatus, table + offStatus, 4L * n, stream);
                    driver.streamSynchronize(stream, "zd_scatter for " + what);
                } finally {
                    allocators.get(dev.ordinal()).free(table, stream);
                }
                for (int c = 0; c < n; c++) {
                    int st = host.get(ValueLayout.JAVA_INT, offStatus + 4L * c);
                    if (st != 0) {
                        throw new IllegalStateException("zd_scatter rejected box " + c + " of " + what + " with status "
                                + ZdStatus.name(st) + " (a planning bug: the host checked every region)");
                    }
                }
            }
            driver.streamSynchronize(stream, what);
        } finally {
            dev.releaseStream(stream);
        }
    }

    // ------------------------------------------------------------------ batch assembly and hand-off

    /**
     * Runs {@code gather} as one launch of {@code zd_gather} when its source and output are both
     * memory of one CUDA device ({@code DEVICE} or {@code MANAGED}), or on the calling thread when both
     * are host memory. Returns when the output is written. Where several planes name the same output
     * plane the last one wins, as in {@link PlaneGather#runOnHost}.
     *
     * @throws UnsupportedOperationException when one side is host memory and the other device memory,
     *                                       or they are on different devices
     */
    @Override
    public void gather(PlaneGather gather) {
        checkOpen();
        Buffer src = gather.src();
        Buffer dst = gather.dst();
        if (src.kind().hostAccessible() && dst.kind().hostAccessible()) {
            Backend.super.gather(gather);
            return;
        }
        if (!(src instanceof CudaBuffer) || !(dst instanceof CudaBuffer) || !src.device().equals(dst.device())) {
            throw new UnsupportedOperationException("the cuda backend gathers planes within one device: the source "
                    + src + " and the output " + dst + " are not both memory of one cuda device (or both host"
                    + " memory); copy the source to the output's device first");
        }
        long s = src.address() + gather.srcOffset(); // address() fails on a closed buffer
        long d = dst.address() + gather.dstOffset();
        if (gather.planes() == 0) {
            return;
        }
        CudaGather.run(this, cudaDevice(src.device()), gather, s, src.byteSize() - gather.srcOffset(), d,
                dst.byteSize() - gather.dstOffset());
    }

    /**
     * CUDA IPC ({@link CudaIpcMemory}): slabs of {@link #allocateExportable} memory exported with
     * {@code cuIpcGetMemHandle}, each with two interprocess events. Made on first use; the slabs still
     * open when the backend closes are closed with it.
     */
    @Override
    public Optional<InterprocessMemory> interprocess() {
        checkOpen();
        CudaIpcMemory m = ipc;
        if (m == null) {
            synchronized (this) {
                if (ipc == null) {
                    ipc = new CudaIpcMemory(this);
                }
                m = ipc;
            }
        }
        return Optional.of(m);
    }

    // ------------------------------------------------------------------ the rest of the SPI

    /**
     * Chunks (inner chunks of shards) per device batch. A read of more is split; later batches are
     * fetched while earlier ones decode, and several decode at once
     * ({@code zarrdirect.decodeDepth}). Measured on the H200, sharded ERA5 store (512 inner chunks
     * of 4.15 MB, `tools/gpu/e2e-trace.sh era5-sharded 128 64`), three batches decoding at once:
     * 64 -> 23.0, 128 -> 30.9 GB/s; one at a time (before): 64 -> 16.3, 128 -> 25.2, 256 -> 23.8.
     */
    @Override
    public int preferredBatchSize() {
        return settings.batchSize();
    }

    /**
     * Decoded bytes per device batch, at most: 1 GiB (16 chunks of a [1, 16, 721, 1440] float32
     * time step; 128 inner chunks of a sharded store's [1, 1, 721, 1440] stay under it). A batch of
     * large chunks fetches them all before its first kernel starts, so smaller batches let the fetch
     * of the next overlap the decoding of the first. Measured on the H200, plain ERA5 store (32
     * chunks of 66 MB, `PASSES=5 bash tools/gpu/prop-sweep.sh read-plain ...`, one call): 1 GiB
     * (two batches of 16) 29.64 and 29.51 GB/s; no byte limit (one batch of 32) 26.89; 1 GiB with a
     * first batch of 8 or 4 chunks 27.77 / 26.35; with two batches decoding at once instead of
     * three 28.94. The sharded store's read is unchanged (38.04). Smaller batches lose: in another
     * call, two alternating runs each, 1 GiB 29.78 / 29.66, batches of 12 chunks 27.85 / 27.72, of
     * 11 26.32 / 26.21, of 8 with four decoding at once 27.34 / 27.21 (each batch's passes are
     * launches of their own, and the execute pass fills every multiprocessor's shared memory, so
     * more batches mostly queue behind each other).
     */
    @Override
    public long preferredBatchBytes() {
        return settings.batchBytes();
    }

    /**
     * The reader chosen by {@code zarrdirect.cuda.reader} ({@code cufile}, {@code threaded} or
     * {@code auto}); made on first use and closed with the backend.
     */
    @Override
    public Optional<DirectReader> directReader() {
        checkOpen();
        DirectReader r = reader;
        if (r == null) {
            synchronized (this) {
                if (reader == null) {
                    reader = DirectReaders.open(this, settings.reader());
                }
                r = reader;
            }
        }
        return Optional.of(r);
    }

    @Override
    public CudaCodecProvider codecs() {
        return codecs;
    }

    /** The device pool of {@code device}, for codecs that need scratch for one batch. */
    public DeviceAllocator allocator(CudaDevice device) {
        return allocators.get(device.ordinal());
    }

    /** Owning buffers allocated here and not yet closed. */
    public long liveBuffers() {
        synchronized (live) {
            live.keySet().removeIf(b -> !b.isOpen());
            return live.size();
        }
    }

    /** Throws {@link IllegalStateException} naming every open buffer and, when tracked, where it was allocated. */
    public void assertNoLiveBuffers() {
        List<Map.Entry<Buffer, Throwable>> open;
        synchronized (live) {
            live.keySet().removeIf(b -> !b.isOpen());
            open = new ArrayList<>(live.entrySet());
        }
        if (open.isEmpty()) {
            return;
        }
        StringBuilder sb = new StringBuilder(open.size() + " buffer(s) of the cuda backend are still open:");
        IllegalStateException e = new IllegalStateException();
        for (var en : open) {
            sb.append("\n  ").append(en.getKey());
            if (en.getValue() != null) {
                e.addSuppressed(en.getValue());
            }
        }
        if (!track) {
            sb.append("\n(run with -Dzarrdirect.trackBuffers=true to see where each was allocated)");
        }
        IllegalStateException thrown = new IllegalStateException(sb.toString());
        for (Throwable t : e.getSuppressed()) {
            thrown.addSuppressed(t);
        }
        throw thrown;
    }

    /** Records allocation stacks for buffers allocated from now on; for tests. */
    public void trackBuffers(boolean on) {
        track = on;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("CudaBackend is closed");
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (reader != null) {
                reader.close();
            }
            if (ipc != null) {
                ipc.closeAll(); // events and memory of slabs still open, while the contexts are alive
            }
            closed = true;
        }
        for (CudaDevice d : devices) {
            d.makeCurrent();
            driver.contextSynchronize();
        }
        List<Buffer> open;
        synchronized (live) {
            open = new ArrayList<>(live.keySet());
            live.clear();
        }
        // Device memory of open buffers: free it through the allocator before the pool is trimmed.
        for (Buffer b : open) {
            if (b instanceof CudaBuffer cb && cb.isOpen() && cb.byteSize() > 0) {
                CudaDevice d = devices.get(cb.device().index());
                d.makeCurrent();
                if (cb.kind() == MemoryKind.DEVICE && !exportable.contains(cb)) {
                    long stream = d.acquireStream();
                    allocators.get(d.ordinal()).free(cb.address(), stream);
                    d.releaseStream(stream);
                } else {
                    driver.memFree(cb.address());
                }
            }
        }
        pinned.forEach(PinnedHostPool::close);
        allocators.forEach(DeviceAllocator::close);
        devices.forEach(CudaDevice::close);
    }

    @Override
    public String toString() {
        return "CudaBackend" + devices;
    }
}
