// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

/** Where a buffer's bytes live, which decides who can touch them and how fast they move. */
public enum MemoryKind {
    /** Ordinary host memory, pageable. */
    HOST,
    /** Host memory pinned (page-locked) for a device's DMA engine. */
    HOST_PINNED,
    /** Memory on a device, reachable only through its backend. */
    DEVICE,
    /** Unified memory that migrates between host and device on demand. */
    MANAGED;

    /**
     * Whether the JVM can read and write the bytes through a {@link java.lang.foreign.MemorySegment}:
     * true for {@link #HOST} and {@link #HOST_PINNED}, false for {@link #DEVICE} and (even though
     * the CPU can reach it) {@link #MANAGED}: a backend may still give managed memory a segment (the
     * CUDA backend does, valid while no kernel uses the memory), but portable code must not rely on it.
     *
     * @return true when {@link Buffer#segment()} works for this kind on every backend
     */
    public boolean hostAccessible() {
        return this == HOST || this == HOST_PINNED;
    }
}
