// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.memory;

import dev.zarrdirect.api.buffer.Sizes;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;

/**
 * Device memory of one device from the driver's stream-ordered allocator: {@code cuMemAllocAsync}
 * and {@code cuMemFreeAsync} on the device's default memory pool, whose release threshold is
 * raised to {@code retainedBytes} so that freed memory stays in the pool for the next batch
 * instead of going back to the driver at every synchronisation. Devices or drivers without memory
 * pools fall back to {@code cuMemAlloc}/{@code cuMemFree}.
 *
 * <p>The default pool is shared with every other user of the device in the process (the CUDA
 * runtime's {@code cudaMallocAsync} uses it too); {@link #close()} trims it to nothing.
 * Thread-safe.
 */
public final class DeviceAllocator implements AutoCloseable {

    private final CudaDevice device;
    private final CudaDriver driver;
    private final long pool;

    public DeviceAllocator(CudaDevice device, long retainedBytes) {
        this.device = device;
        this.driver = device.driver();
        if (device.memoryPools()) {
            device.makeCurrent();
            pool = driver.defaultMemPool(device.handle());
            driver.memPoolSetAttribute64(pool, CudaDriver.MEMPOOL_ATTR_RELEASE_THRESHOLD, retainedBytes);
        } else {
            pool = 0;
        }
    }

    /** True when allocations come from the stream-ordered pool. */
    public boolean pooled() {
        return pool != 0;
    }

    /**
     * {@code bytes} (> 0) of device memory, usable on {@code stream} at once and on any stream once
     * {@code stream} is synchronised. The current context must be the device's.
     */
    public long allocate(long bytes, long stream) {
        return pool != 0 ? driver.memAllocAsync(bytes, stream) : driver.memAlloc(bytes);
    }

    /** Frees after the work queued on {@code stream}; the memory must be used by no other stream then. */
    public void free(long address, long stream) {
        if (pool != 0) {
            driver.memFreeAsync(address, stream);
        } else {
            driver.memFree(address);
        }
    }

    /** Bytes of the pool in use now, or -1 without a pool. */
    public long usedBytes() {
        if (pool == 0) {
            return -1;
        }
        device.makeCurrent();
        return driver.memPoolGetAttribute64(pool, CudaDriver.MEMPOOL_ATTR_USED_MEM_CURRENT);
    }

    /** Gives the pool's free memory back to the driver. */
    @Override
    public void close() {
        if (pool != 0) {
            device.makeCurrent();
            driver.contextSynchronize();
            driver.memPoolTrimTo(pool, 0);
        }
    }

    @Override
    public String toString() {
        return "DeviceAllocator[" + device + (pool != 0 ? ", stream-ordered pool, " + Sizes.human(usedBytes()) + " used"
                : ", cuMemAlloc") + "]";
    }
}
