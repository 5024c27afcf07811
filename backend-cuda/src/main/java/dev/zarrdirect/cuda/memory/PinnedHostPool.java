// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.memory;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Sizes;
import dev.zarrdirect.cuda.driver.CudaDriver;
import dev.zarrdirect.kernels.FreeBlocks;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Page-locked host memory ({@code cuMemHostAlloc}, portable and mapped), pooled by size class.
 *
 * <h2>What is pooled and why</h2>
 * Pinning is slow (page faults and page-table updates, milliseconds per hundred MiB), and the core
 * allocates a pinned staging buffer per batch. Blocks are therefore rounded up to a power of two
 * (at least 64 KiB) and kept on free lists when their buffer closes, up to {@code retainedBytes} in
 * all (the device backends' shared {@link FreeBlocks}: a block given back makes room by letting the
 * oldest free ones go, and a request may take a free block of up to twice its size); blocks over 1 GiB are freed at once.
 * Memory is not zeroed: it is staging that callers overwrite.
 *
 * <h2>Lifetime</h2>
 * {@link #close()} frees the free lists and every block still in use; a buffer closed after its
 * pool has nothing left to free. Closing twice is harmless. Thread-safe.
 */
public final class PinnedHostPool implements AutoCloseable {

    static final long MIN_CLASS = 64L << 10;
    static final long MAX_POOLED = 1L << 30;

    private final CudaDriver driver;
    private final Runnable makeCurrent;
    private final Device device;
    /** A free block: its address and size. */
    private record Free(long address, long size) {
    }

    private final FreeBlocks<Free> free;
    private final Map<Long, Long> inUse = new HashMap<>(); // address -> block size
    private boolean closed;

    /**
     * @param device        the device the buffers report ({@code cuda_host:N}, DLPack's pinned-host type)
     * @param makeCurrent   makes the owning device's context current (pinned memory is portable, but the
     *                      driver needs some context for the call)
     * @param retainedBytes bytes of free blocks kept for reuse
     */
    public PinnedHostPool(CudaDriver driver, Runnable makeCurrent, Device device, long retainedBytes) {
        this.driver = driver;
        this.makeCurrent = makeCurrent;
        this.device = device;
        this.free = new FreeBlocks<>(retainedBytes, Free::size);
    }

    /** The block size a request of {@code bytes} uses: a power of two from 64 KiB, or {@code bytes} itself above 1 GiB. */
    static long blockSize(long bytes) {
        if (bytes > MAX_POOLED) {
            return bytes;
        }
        long b = Math.max(MIN_CLASS, Long.highestOneBit(Math.max(1, bytes)));
        return b < bytes ? b << 1 : b;
    }

    /** {@code bytes} of pinned memory; the buffer's close gives it back. */
    public HostBuffer allocate(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative buffer size " + bytes + " for HOST_PINNED memory on " + device);
        }
        long block = blockSize(bytes);
        long address;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("pinned pool of " + device + " is closed; cannot allocate " + bytes + " bytes");
            }
            Free b = block > MAX_POOLED ? null : free.take(block);
            if (b != null) {
                address = b.address();
                inUse.put(address, b.size());
            } else {
                address = 0;
            }
        }
        if (address == 0) {
            makeCurrent.run();
            address = driver.memHostAlloc(block, CudaDriver.MEMHOSTALLOC_PORTABLE | CudaDriver.MEMHOSTALLOC_DEVICEMAP);
            synchronized (this) {
                if (closed) {
                    driver.memFreeHost(address);
                    throw new IllegalStateException("pinned pool of " + device + " closed during an allocation");
                }
                inUse.put(address, block);
            }
        }
        long addr = address;
        MemorySegment seg = MemorySegment.ofAddress(addr).reinterpret(block).asSlice(0, bytes);
        return HostBuffer.of(seg, MemoryKind.HOST_PINNED, device, () -> giveBack(addr));
    }

    private void giveBack(long address) {
        List<Long> toFree;
        synchronized (this) {
            Long b = inUse.remove(address);
            if (b == null) {
                return; // the pool was closed and freed it already
            }
            toFree = b > MAX_POOLED ? List.of(address)
                    : free.giveBack(new Free(address, b)).stream().map(Free::address).toList();
        }
        if (!toFree.isEmpty()) {
            makeCurrent.run();
            toFree.forEach(driver::memFreeHost);
        }
    }

    /** Bytes held on the free lists. */
    public synchronized long retainedBytes() {
        return free.retainedBytes();
    }

    @Override
    public void close() {
        Map<Long, Long> all = new HashMap<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            free.clear().forEach(b -> all.put(b.address(), b.size()));
            all.putAll(inUse);
            inUse.clear();
        }
        if (!all.isEmpty()) {
            makeCurrent.run();
            all.keySet().forEach(driver::memFreeHost);
        }
    }

    @Override
    public synchronized String toString() {
        return "PinnedHostPool[" + device + ", " + inUse.size() + " in use, " + Sizes.human(free.retainedBytes()) + " retained]";
    }
}
