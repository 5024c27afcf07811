package dev.zarrdirect.core.pipeline;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Per-thread reusable native memory for the decode and encode hot paths, so that a steady read
 * allocates nothing per chunk. Each slot grows to the largest size asked of it and is reused;
 * the memory is left to the garbage collector ({@link Arena#ofAuto()}) when the thread ends.
 *
 * <p>Slots have fixed jobs so that nested stages never hand each other the same memory:
 * see the constants. A segment from a slot is valid until the same slot is asked for again on the
 * same thread.
 */
final class Scratch {

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

    private static final ThreadLocal<Scratch> LOCAL = ThreadLocal.withInitial(Scratch::new);

    private final MemorySegment[] slots = new MemorySegment[SLOTS];

    static MemorySegment get(int slot, long bytes) {
        return LOCAL.get().slot(slot, bytes);
    }

    /**
     * Slots keep at most this much each: larger requests (chunks of hundreds of MiB) get memory of
     * their own that the garbage collector frees, so one huge chunk does not pin its size for the
     * life of every worker thread.
     */
    static final long RETAIN_LIMIT = 256L << 20;

    private MemorySegment slot(int slot, long bytes) {
        if (bytes > RETAIN_LIMIT) {
            return Arena.ofAuto().allocate(bytes, 64);
        }
        MemorySegment s = slots[slot];
        if (s == null || s.byteSize() < bytes) {
            // Grow by half again so a slowly rising size does not reallocate every time.
            long cap = Math.min(RETAIN_LIMIT, Math.max(bytes, s == null ? 0 : s.byteSize() + s.byteSize() / 2));
            s = Arena.ofAuto().allocate(Math.max(cap, 64), 64);
            slots[slot] = s;
        }
        return s.asSlice(0, bytes);
    }

    private Scratch() {
    }
}
