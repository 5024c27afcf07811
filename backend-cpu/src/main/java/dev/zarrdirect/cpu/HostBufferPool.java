// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Sizes;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A pool of 64-byte aligned host memory blocks, handed out as {@link HostBuffer}s.
 *
 * <h2>What is pooled and why</h2>
 * Decoding a chunk needs staging memory of about the chunk's size, thousands of times a second.
 * A fresh {@link Arena#ofShared() shared arena} per buffer costs a {@code malloc}, the zeroing of
 * every byte, page faults on first touch, and on close a handshake with every JVM thread; the pool
 * keeps closed blocks and hands them out again instead. Requests are rounded up to a size class
 * (multiples of 64 bytes up to 256 bytes, then four classes per power of two, so at most 25% is
 * wasted) and each class keeps a LIFO stack of free blocks, so the block reused is the one most
 * likely still in cache. Requests above {@link #maxPooledBlock()} are not pooled: they are
 * allocated and freed directly, as retaining them would pin too much memory.
 *
 * <h2>Limits</h2>
 * At most {@link #maxRetainedBytes()} bytes of free blocks are kept; a block returned beyond that
 * is freed at once. Memory in use is not limited by the pool.
 *
 * <h2>Zeroing</h2>
 * {@link #allocate} returns zeroed bytes (a reused block is cleared, a fresh one comes zeroed
 * from an arena, or from {@code calloc} when it is 1 MiB or more: see {@link NativeBlocks});
 * {@link #allocateUninitialized} skips the clearing of reused blocks, for
 * outputs that a codec overwrites completely, and may return bytes of an earlier user.
 *
 * <h2>Lifetime</h2>
 * Closing a buffer gives its block back; closing it twice throws {@link IllegalStateException}
 * (returning memory to a pool twice is a bug). After close, {@link HostBuffer#segment()} and
 * {@link HostBuffer#address()} throw. A segment obtained <em>before</em> close still points at the
 * pooled block; with {@linkplain #trackBuffers(boolean) tracking} on, each buffer's segment is
 * scoped to an arena of its own that closes with the buffer, so such stale segments fail loudly
 * too (tests run this way; it costs an arena handshake per close, so production does not). That
 * uses the restricted {@link MemorySegment#reinterpret(Arena, java.util.function.Consumer)}: run
 * with {@code --enable-native-access=ALL-UNNAMED}.
 *
 * <p>Thread-safe. Closing the pool frees the free blocks; buffers still in use stay valid and are
 * freed, not retained, when their owners close them. Closing the pool twice is harmless.
 */
public final class HostBufferPool implements AutoCloseable {

    /**
     * The setting that turns on allocation stacks and stale-segment guards; read by
     * {@link CpuSettings} when the backend starts, which calls {@link #trackBuffers(boolean)}.
     */
    public static final String TRACK_PROPERTY = "zarrdirect.trackBuffers";

    static final long ALIGNMENT = 64;

    private record Block(MemorySegment segment, Runnable free) {
    }

    private record Live(long id, long bytes, MemoryKind kind, String thread, Throwable allocatedAt) {
    }

    private final long maxRetainedBytes;
    private final long maxPooledBlock;
    private final boolean hugePages;
    private final ConcurrentHashMap<Long, ConcurrentLinkedDeque<Block>> free = new ConcurrentHashMap<>();
    private final Map<Long, Live> live = new ConcurrentHashMap<>();
    private final AtomicLong retained = new AtomicLong();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong reuses = new AtomicLong();
    private volatile boolean tracking;
    private volatile boolean closed;

    /**
     * @param maxRetainedBytes the most bytes of free blocks kept for reuse
     * @param maxPooledBlock   requests larger than this are allocated and freed directly
     */
    public HostBufferPool(long maxRetainedBytes, long maxPooledBlock) {
        this(maxRetainedBytes, maxPooledBlock, true);
    }

    /**
     * @param maxRetainedBytes the most bytes of free blocks kept for reuse
     * @param maxPooledBlock   requests larger than this are allocated and freed directly
     * @param hugePages        advise new blocks of 8 MiB or more to use huge pages (Linux; see {@link NativeBlocks})
     */
    public HostBufferPool(long maxRetainedBytes, long maxPooledBlock, boolean hugePages) {
        if (maxRetainedBytes < 0 || maxPooledBlock < 0) {
            throw new IllegalArgumentException("negative pool limit: maxRetainedBytes=" + maxRetainedBytes
                    + ", maxPooledBlock=" + maxPooledBlock);
        }
        this.maxRetainedBytes = maxRetainedBytes;
        this.maxPooledBlock = maxPooledBlock;
        this.hugePages = hugePages;
    }

    /** Zeroed memory of {@code bytes} bytes, of {@code kind} (a label only: all of it is host memory). */
    public HostBuffer allocate(long bytes, MemoryKind kind) {
        return acquire(bytes, kind, true);
    }

    /** Like {@link #allocate} but a reused block keeps whatever an earlier user wrote. */
    public HostBuffer allocateUninitialized(long bytes, MemoryKind kind) {
        return acquire(bytes, kind, false);
    }

    /** Turns allocation stacks and stale-segment guards on or off for buffers allocated from now on. */
    public void trackBuffers(boolean on) {
        tracking = on;
    }

    public boolean isTracking() {
        return tracking;
    }

    /** Buffers handed out and not yet closed. */
    public long liveBuffers() {
        return live.size();
    }

    /** Bytes of free blocks held for reuse. */
    public long retainedBytes() {
        return retained.get();
    }

    /** How many allocations were served by a reused block. */
    public long reuseCount() {
        return reuses.get();
    }

    public long maxRetainedBytes() {
        return maxRetainedBytes;
    }

    public long maxPooledBlock() {
        return maxPooledBlock;
    }

    /**
     * Throws {@link IllegalStateException} listing every buffer still open, with the stack of its
     * allocation when tracking was on; does nothing when none is.
     */
    public void assertNoLiveBuffers() {
        List<Live> open = new ArrayList<>(live.values());
        if (open.isEmpty()) {
            return;
        }
        open.sort(Comparator.comparingLong(Live::id));
        StringBuilder msg = new StringBuilder();
        msg.append(open.size()).append(open.size() == 1 ? " buffer" : " buffers")
                .append(" of the CPU host pool still open:");
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
        IllegalStateException failure = new IllegalStateException(msg.toString());
        for (Live l : open) {
            if (l.allocatedAt() != null) {
                failure.addSuppressed(l.allocatedAt());
            }
        }
        throw failure;
    }

    /** The block size a request of {@code bytes} is served from. */
    static long sizeClass(long bytes) {
        if (bytes <= 256) {
            return Math.max(ALIGNMENT, (bytes + ALIGNMENT - 1) & -ALIGNMENT);
        }
        long base = Long.highestOneBit(bytes - 1); // base < bytes <= 2 * base
        long step = base >>> 2;
        long over = bytes - base;
        return base + ((over + step - 1) / step) * step;
    }

    @SuppressWarnings("restricted") // reinterpret only narrows a lifetime here; size and address stay
    private HostBuffer acquire(long bytes, MemoryKind kind, boolean zeroed) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative buffer size " + bytes);
        }
        if (!kind.hostAccessible()) {
            throw new IllegalArgumentException("the CPU host pool allocates HOST or HOST_PINNED memory, not " + kind);
        }
        if (closed) {
            throw new IllegalStateException("the CPU host pool is closed; cannot allocate " + Sizes.human(bytes));
        }
        long size = sizeClass(bytes);
        boolean pooled = size <= maxPooledBlock;
        Block block = pooled ? takeFree(size) : null;
        if (block != null) {
            reuses.incrementAndGet();
            if (zeroed) {
                block.segment().asSlice(0, bytes).fill((byte) 0);
            }
        } else {
            block = newBlock(size, hugePages);
        }
        long id = ids.incrementAndGet();
        boolean track = tracking;
        live.put(id, new Live(id, bytes, kind, Thread.currentThread().getName(),
                track ? new Throwable("buffer #" + id + " allocated here") : null));
        MemorySegment view = block.segment().asSlice(0, bytes);
        Arena guard = null;
        if (track) {
            guard = Arena.ofShared();
            view = view.reinterpret(guard, null);
        }
        Block b = block;
        Arena g = guard;
        return HostBuffer.of(view, kind, Device.CPU, () -> release(id, b, pooled, g));
    }

    private Block takeFree(long size) {
        ConcurrentLinkedDeque<Block> stack = free.get(size);
        if (stack == null) {
            return null;
        }
        Block b = stack.pollFirst();
        if (b != null) {
            retained.addAndGet(-size);
        }
        return b;
    }

    private static Block newBlock(long size, boolean hugePages) {
        NativeBlocks.Block b = NativeBlocks.allocate(size, ALIGNMENT, hugePages);
        return new Block(b.segment(), b.free());
    }

    private void release(long id, Block block, boolean pooled, Arena guard) {
        live.remove(id);
        if (guard != null) {
            guard.close();
        }
        long size = block.segment().byteSize();
        if (pooled && !closed) {
            if (retained.addAndGet(size) <= maxRetainedBytes) {
                free.computeIfAbsent(size, k -> new ConcurrentLinkedDeque<>()).addFirst(block);
                if (closed) {
                    drain(); // the pool closed while we pushed; do not strand the block
                }
                return;
            }
            retained.addAndGet(-size);
        }
        block.free().run();
    }

    private void drain() {
        for (ConcurrentLinkedDeque<Block> stack : free.values()) {
            Block b;
            while ((b = stack.pollFirst()) != null) {
                retained.addAndGet(-b.segment().byteSize());
                b.free().run();
            }
        }
    }

    /** Frees the free blocks; buffers in use are freed when closed. Closing twice is harmless. */
    @Override
    public void close() {
        closed = true;
        drain();
    }

    @Override
    public String toString() {
        return "HostBufferPool[live=" + live.size() + ", retained=" + Sizes.human(retained.get())
                + " of " + Sizes.human(maxRetainedBytes) + "]";
    }
}
