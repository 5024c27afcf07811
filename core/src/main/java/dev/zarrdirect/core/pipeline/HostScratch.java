// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Reusable native memory for the host decode and encode paths, so that a steady read allocates
 * nothing per chunk. Owned by whoever runs the work (the read engine keeps a pool and lends one to
 * each task) and handed down to {@link CodecChain}: there are no hidden per-thread slots.
 *
 * <p>Not thread-safe: one task uses a scratch at a time. Each slot grows to the largest size asked
 * of it and is reused; its memory is left to the garbage collector ({@link Arena#ofAuto()}) when
 * the scratch is dropped. Slots have fixed jobs so that nested stages never hand each other the
 * same memory; a segment from a slot is valid until the same slot is asked for again.
 */
public final class HostScratch {

    /** Encoded bytes of a whole chunk as fetched from the store. */
    static final int ENCODED = 0;
    /** Ping-pong intermediates of decoding. */
    static final int DECODE_A = 1;
    static final int DECODE_B = 2;
    /** Ping-pong intermediates and result of encoding. */
    static final int ENCODE_A = 3;
    static final int ENCODE_B = 4;
    /** A decoded chunk staged before part of it is copied out. */
    static final int CHUNK = 5;
    /** A chunk gathered from a source tensor before it is encoded. */
    static final int GATHER = 6;
    private static final int SLOTS = 7;

    /**
     * Slots keep at most this much each: larger requests (chunks of hundreds of MiB) get memory of
     * their own that the garbage collector frees, so one huge chunk does not pin its size for the
     * life of the scratch.
     */
    static final long RETAIN_LIMIT = 256L << 20;

    private final MemorySegment[] slots = new MemorySegment[SLOTS];
    /** Where slots are allocated; null: memory of their own that the garbage collector frees. */
    private final Arena arena;

    /** A scratch whose memory the garbage collector frees once the scratch is dropped (for long-lived owners). */
    public HostScratch() {
        this.arena = null;
    }

    private HostScratch(Arena arena) {
        this.arena = arena;
    }

    /** A scratch for one short job, whose memory is {@code arena}'s and ends with it (no work for the collector). */
    public static HostScratch in(Arena arena) {
        return new HostScratch(arena);
    }

    private MemorySegment allocate(long bytes) {
        return (arena != null ? arena : Arena.ofAuto()).allocate(bytes, 64);
    }

    /** Memory of {@code bytes} bytes for the job {@code slot}, valid until that slot is asked for again. */
    MemorySegment get(int slot, long bytes) {
        if (bytes > RETAIN_LIMIT) {
            return allocate(bytes);
        }
        MemorySegment s = slots[slot];
        if (s == null || s.byteSize() < bytes) {
            // Grow by half again so a slowly rising size does not reallocate every time.
            long cap = Math.min(RETAIN_LIMIT, Math.max(bytes, s == null ? 0 : s.byteSize() + s.byteSize() / 2));
            s = allocate(Math.max(cap, 64));
            slots[slot] = s;
        }
        return s.asSlice(0, bytes);
    }

    /**
     * Memory for a chunk's (or a coalesced request's) encoded bytes as read from the store, valid
     * until this slot is asked for again; for a reader outside this package. The decoders of this
     * package never ask for this slot while decoding bytes handed to them in memory.
     */
    public MemorySegment encoded(long bytes) {
        return get(ENCODED, bytes);
    }
}
