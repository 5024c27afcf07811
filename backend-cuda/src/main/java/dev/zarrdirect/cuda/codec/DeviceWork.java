// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.memory.DeviceAllocator;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The device side of one codec call: the context made current, one borrowed stream, an arena for
 * the host halves of the tables, and device scratch taken from the stream-ordered pool. Everything
 * queued on the stream is ordered; {@link #sync} waits for it; {@link #close()} gives the scratch
 * back (ordered after the work) and returns the stream. One thread uses an instance.
 */
final class DeviceWork implements AutoCloseable {

    final CudaBackend backend;
    final CudaDevice device;
    final CudaDriver driver;
    final long stream;
    final Arena arena = Arena.ofConfined();
    private final DeviceAllocator allocator;
    private final List<Long> scratch = new ArrayList<>();

    DeviceWork(CudaBackend backend, CudaDevice device) {
        this.backend = backend;
        this.device = device;
        this.driver = device.driver();
        this.allocator = backend.allocator(device);
        device.makeCurrent();
        this.stream = device.acquireStream();
    }

    /** {@code bytes} of device scratch, freed on {@link #close()}. */
    long scratch(long bytes) {
        long p = allocator.allocate(Math.max(1, bytes), stream);
        scratch.add(p);
        return p;
    }

    /** Copies {@code host} to new device scratch (one asynchronous copy) and returns its address. */
    long upload(MemorySegment host) {
        long p = scratch(host.byteSize());
        driver.memcpyHtoDAsync(p, host.address(), host.byteSize(), stream);
        return p;
    }

    /** Queues a copy of {@code bytes} from device address {@code src} into {@code host} at {@code hostOffset}. */
    void download(long src, MemorySegment host, long hostOffset, long bytes) {
        driver.memcpyDtoHAsync(host.address() + hostOffset, src, bytes, stream);
    }

    void launch(String kernel, int grid, int block, int sharedBytes, KernelArgs args) {
        long f = device.function(kernel, sharedBytes);
        driver.launch(f, kernel, grid, block, sharedBytes, stream, args.build(arena));
    }

    void sync(String what) {
        driver.streamSynchronize(stream, what);
    }

    /** A grid for a grid-stride loop over {@code n} items with {@code block} threads per group. */
    int gridFor(long n, int block) {
        long groups = (n + block - 1) / block;
        return (int) Math.max(1, Math.min(groups, 32L * device.multiprocessors()));
    }

    @Override
    public void close() {
        try {
            for (long p : scratch) {
                allocator.free(p, stream);
            }
            scratch.clear();
        } finally {
            device.releaseStream(stream);
            arena.close();
        }
    }

    /**
     * The device address of {@code b} for item {@code i}: device or managed memory of this device,
     * or pinned host memory (mapped into the device's address space). Anything else fails the item.
     */
    static long address(String codec, CodecBatch batch, int i, Buffer b, String role, CudaDevice device) {
        MemoryKind k = b.kind();
        boolean ok = switch (k) {
            case DEVICE, MANAGED -> b.device().index() == device.ordinal()
                    && b.device().type() == dev.zarrdirect.api.DeviceType.CUDA;
            case HOST_PINNED -> b.device().type() == dev.zarrdirect.api.DeviceType.CUDA_HOST;
            case HOST -> false;
        };
        if (!ok) {
            throw new CodecException(codec, "the cuda " + codec + " codec on " + device + " needs memory the device can"
                    + " address, but the " + role + " of " + batch.label(i) + " is " + b);
        }
        return b.address();
    }
}
