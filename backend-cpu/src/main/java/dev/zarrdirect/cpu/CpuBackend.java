// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.settings.ResolvedSetting;
import dev.zarrdirect.api.settings.SettingResolver;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * The CPU backend: host memory from a {@link HostBufferPool}, copies with
 * {@link MemorySegment#copy}, and the codecs of {@link CpuCodecProvider}.
 *
 * <h2>Memory kinds</h2>
 * {@link MemoryKind#HOST} and {@link MemoryKind#HOST_PINNED} are both plain pageable host memory
 * here: with no DMA engine to serve, there is nothing to pin. The kind asked for is the kind the
 * buffer reports, so code written for a GPU backend runs unchanged. {@code DEVICE} and
 * {@code MANAGED} are refused.
 *
 * <h2>Zeroing</h2>
 * {@link #allocate} returns zeroed memory, as the {@link Backend} contract implies;
 * {@link #allocateUninitialized} skips the clearing, for outputs that are overwritten entirely.
 *
 * <h2>Batch assembly</h2>
 * {@link #gather} runs a loader's plane gather on every core (the common fork-join pool), in pieces
 * of 64 Ki elements, with the bytes of {@link PlaneGather#runOnHost}.
 *
 * <h2>Leaks</h2>
 * {@link #liveBuffers()} and {@link #assertNoLiveBuffers()} report buffers not yet closed; with
 * {@code -Dzarrdirect.trackBuffers=true} or {@link #trackBuffers(boolean)} they carry the stack of
 * each allocation.
 *
 * <p>Closing the backend frees its pool; closing it twice is harmless.
 */
public final class CpuBackend implements Backend {

    /** Bytes of free host blocks kept for reuse; default 512 MiB ({@link CpuSettings#POOL_RETAINED}). */
    public static final String POOL_RETAINED_PROPERTY = "zarrdirect.cpu.poolRetainedBytes";

    static final long DEFAULT_RETAINED = 512L << 20;
    static final long MAX_POOLED_BLOCK = 256L << 20;
    private static final long FILL_BLOCK = 64L << 10;

    private final HostBufferPool pool;
    private final CpuCodecProvider codecs;
    private final List<ResolvedSetting<?>> settings;
    private volatile boolean closed;

    /** With the settings of system properties, environment and defaults. */
    public CpuBackend() {
        this(SettingResolver.system());
    }

    /** With the settings {@code r} resolves (recorded for {@link #settings()}). */
    CpuBackend(SettingResolver r) {
        this(CpuSettings.from(r), r.resolved());
    }

    private CpuBackend(CpuSettings s, List<ResolvedSetting<?>> resolved) {
        this(new HostBufferPool(s.poolRetainedBytes(), MAX_POOLED_BLOCK, s.hugePages()), s, resolved);
        pool.trackBuffers(s.trackBuffers());
    }

    /**
     * A backend drawing host memory from {@code pool}, which it closes on {@link #close()}; its codecs
     * have the default settings ({@link CpuSettings#defaults()}).
     */
    public CpuBackend(HostBufferPool pool) {
        this(pool, CpuSettings.defaults(), List.of());
    }

    private CpuBackend(HostBufferPool pool, CpuSettings s, List<ResolvedSetting<?>> settings) {
        this.pool = pool;
        this.codecs = new CpuCodecProvider(s);
        this.settings = List.copyOf(settings);
    }

    @Override
    public List<ResolvedSetting<?>> settings() {
        return settings;
    }

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public List<Device> devices() {
        return List.of(Device.CPU);
    }

    @Override
    public HostBuffer allocate(Device device, MemoryKind kind, long bytes) {
        checkRequest(device, kind, bytes);
        return pool.allocate(bytes, kind);
    }

    /** Like {@link #allocate}, but the bytes are whatever an earlier user of the memory left. */
    @Override
    public HostBuffer allocateUninitialized(Device device, MemoryKind kind, long bytes) {
        checkRequest(device, kind, bytes);
        return pool.allocateUninitialized(bytes, kind);
    }

    private void checkRequest(Device device, MemoryKind kind, long bytes) {
        if (closed) {
            throw new IllegalStateException("CpuBackend is closed; cannot allocate " + bytes + " bytes");
        }
        if (!Device.CPU.equals(device)) {
            throw new IllegalArgumentException("the cpu backend allocates on cpu:0 only, not on " + device);
        }
        if (!kind.hostAccessible()) {
            throw new IllegalArgumentException("the cpu backend allocates HOST or HOST_PINNED memory, not "
                    + kind + " (on " + device + ")");
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("negative buffer size " + bytes + " for " + kind + " on " + device);
        }
    }

    @Override
    public void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
        MemorySegment s = hostSegment(src, "copy source");
        MemorySegment d = hostSegment(dst, "copy destination");
        checkRange("copy source", src, srcOffset, bytes);
        checkRange("copy destination", dst, dstOffset, bytes);
        MemorySegment.copy(s, srcOffset, d, dstOffset, bytes);
    }

    /**
     * Fills {@code count} repetitions of {@code pattern} (1 to 16 bytes) from {@code offset}. A
     * pattern of one repeated byte becomes a memset; others are written once and then doubled
     * with copies up to a 64 KiB block, which is copied on from there while it is hot in cache.
     */
    @Override
    public void fill(Buffer dst, long offset, long count, MemorySegment pattern) {
        long p = pattern.byteSize();
        if (p < 1 || p > 16) {
            throw new IllegalArgumentException("fill pattern must be 1 to 16 bytes, got " + p + " bytes");
        }
        if (count < 0) {
            throw new IllegalArgumentException("negative fill count " + count + " for " + dst);
        }
        MemorySegment d = hostSegment(dst, "fill destination");
        long total = Math.multiplyExact(count, p);
        checkRange("fill destination", dst, offset, total);
        MemorySegment target = d.asSlice(offset, total);
        fillSegment(target, pattern);
    }

    static void fillSegment(MemorySegment target, MemorySegment pattern) {
        long total = target.byteSize();
        long p = pattern.byteSize();
        if (total == 0) {
            return;
        }
        byte first = pattern.get(ValueLayout.JAVA_BYTE, 0);
        boolean uniform = true;
        for (long i = 1; i < p && uniform; i++) {
            uniform = pattern.get(ValueLayout.JAVA_BYTE, i) == first;
        }
        if (uniform) {
            target.fill(first);
            return;
        }
        MemorySegment.copy(pattern, 0, target, 0, p);
        long block = Math.max(p, FILL_BLOCK / p * p);
        long filled = p;
        while (filled < total) {
            long n = Math.min(Math.min(filled, block), total - filled);
            MemorySegment.copy(target, 0, target, filled, n);
            filled += n;
        }
    }

    private static MemorySegment hostSegment(Buffer b, String role) {
        if (!b.kind().hostAccessible()) {
            throw new IllegalArgumentException("the cpu backend reaches host memory only; " + role + " " + b
                    + " is " + b.kind() + " on " + b.device());
        }
        return b.segment();
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

    /**
     * Runs {@code gather} on every core: its planes in pieces of 64 Ki elements on the common
     * fork-join pool, the calling thread included; small gathers run on the calling thread. The bytes
     * are {@link PlaneGather#runOnHost}'s, and where two planes name the same output plane the later
     * one wins, as there. The source and the output must not overlap. Returns when the output is written.
     */
    @Override
    public void gather(PlaneGather gather) {
        if (closed) {
            throw new IllegalStateException("CpuBackend is closed; cannot gather " + gather.planes() + " planes");
        }
        hostSegment(gather.src(), "gather source");
        hostSegment(gather.dst(), "gather output");
        HostGather.run(gather);
    }

    @Override
    public int preferredBatchSize() {
        return 1;
    }

    @Override
    public CpuCodecProvider codecs() {
        return codecs;
    }

    /** The pool behind {@link #allocate}. */
    public HostBufferPool pool() {
        return pool;
    }

    /** Buffers allocated here and not yet closed. */
    public long liveBuffers() {
        return pool.liveBuffers();
    }

    /** Throws {@link IllegalStateException} naming every open buffer and, when tracked, where it was allocated. */
    public void assertNoLiveBuffers() {
        pool.assertNoLiveBuffers();
    }

    /** Records allocation stacks (and guards stale segments) for buffers allocated from now on; for tests. */
    public void trackBuffers(boolean on) {
        pool.trackBuffers(on);
    }

    @Override
    public void close() {
        closed = true;
        pool.close();
    }

    @Override
    public String toString() {
        return "CpuBackend[" + pool + "]";
    }
}
