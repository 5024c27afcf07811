// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.ipc;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.backend.InterprocessMemory;
import dev.zarrdirect.api.buffer.Sizes;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.CudaBuffer;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;
import dev.zarrdirect.cuda.driver.CudaException;

import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * CUDA IPC for {@link CudaBackend#interprocess()}: each {@link Slab} is an allocation from plain
 * {@code cuMemAlloc} ({@link CudaBackend#allocateExportable}: IPC cannot export memory of a
 * stream-ordered pool or of {@code cuMemCreate}), exported with {@code cuIpcGetMemHandle}, and two
 * events created with {@code CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING} and exported with
 * {@code cuIpcGetEventHandle}. Every handle is 64 bytes.
 *
 * <h2>Ordering</h2>
 * The backend's writes ({@code gather}, {@code copy}, {@code fill}) are complete when they return, so
 * {@link Slab#markReady()} records {@code ready} on one of the device's streams after them and waits
 * for that stream: the consumer's {@code cudaStreamWaitEvent(ready)} then orders its reads after every
 * write made so far. {@link Slab#awaitReleased()} is {@code cuEventSynchronize(released)}: it waits for
 * the work the consumer recorded {@code released} after, and returns at once for an event never
 * recorded.
 *
 * <h2>Lifetimes</h2>
 * A slab owns device memory: its owner closes it (events destroyed, memory freed with
 * {@code cuMemFree}), and closing it twice throws {@link IllegalStateException}, as for every owning
 * buffer. {@link Slab#buffer()} is a view of the memory that cannot be closed; it fails once the slab
 * is closed. The consumer must have closed its mapping before: CUDA leaves freeing exported memory
 * that another process still maps undefined. Slabs still open when the backend closes are closed
 * with it. Thread-safe.
 */
public final class CudaIpcMemory implements InterprocessMemory {

    private final CudaBackend backend;
    private final Set<Slab> open = ConcurrentHashMap.newKeySet();

    public CudaIpcMemory(CudaBackend backend) {
        this.backend = backend;
    }

    /**
     * A slab of {@code bytes} (> 0) on {@code device} ({@code cuda:N}), not zeroed, with its two events.
     *
     * @throws UnsupportedOperationException when the driver or the device has no IPC events
     */
    @Override
    public Slab allocate(Device device, long bytes) {
        if (device.type() != DeviceType.CUDA) {
            throw new IllegalArgumentException("CUDA IPC exports memory of a cuda device, not of " + device);
        }
        if (bytes <= 0) {
            throw new IllegalArgumentException("a shared slab needs at least one byte, not " + bytes + " (on " + device
                    + ")");
        }
        CudaDevice d = backend.cudaDevice(device);
        CudaDriver driver = backend.driver();
        if (!driver.hasIpc()) {
            throw new UnsupportedOperationException("CUDA IPC is unavailable: " + CudaDriver.LIBRARY
                    + " has no cuIpc* calls");
        }
        if (!ipcEvents(driver, d)) {
            throw new UnsupportedOperationException(d + " has no interprocess events"
                    + " (CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED is 0): a loader cannot hand it batches through CUDA IPC");
        }
        CudaBuffer memory = null;
        long ready = 0;
        long released = 0;
        boolean ok = false;
        try {
            memory = backend.allocateExportable(device, bytes);
            d.makeCurrent();
            byte[] memoryHandle = driver.ipcGetMemHandle(memory.address());
            int flags = CudaDriver.EVENT_INTERPROCESS | CudaDriver.EVENT_DISABLE_TIMING;
            ready = driver.eventCreate(flags);
            released = driver.eventCreate(flags);
            Slab s = new Slab(d, memory, memoryHandle, ready, driver.ipcGetEventHandle(ready), released,
                    driver.ipcGetEventHandle(released));
            open.add(s);
            ok = true;
            return s;
        } finally {
            if (!ok) {
                d.makeCurrent();
                if (released != 0) {
                    driver.eventDestroy(released);
                }
                if (ready != 0) {
                    driver.eventDestroy(ready);
                }
                if (memory != null) {
                    memory.close();
                }
            }
        }
    }

    private static boolean ipcEvents(CudaDriver driver, CudaDevice d) {
        try {
            return driver.deviceAttribute(d.handle(), CudaDriver.ATTR_IPC_EVENT_SUPPORTED) != 0;
        } catch (CudaException e) {
            return true; // a driver that does not know the attribute: cuIpcGetEventHandle will say
        }
    }

    /** Slabs allocated here and not yet closed. */
    public int openSlabs() {
        return open.size();
    }

    /**
     * Frees every slab still open (events and memory); the backend calls this when it closes. A slab
     * freed so can still be closed once, which then does nothing more.
     */
    public void closeAll() {
        RuntimeException first = null;
        for (Slab s : new ArrayList<>(open)) {
            try {
                s.free();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** One exported allocation and its two interprocess events. */
    public final class Slab implements SharedSlab {

        private final CudaDevice device;
        private final CudaBuffer memory;
        private final CudaBuffer view;
        private final byte[] memoryHandle;
        private final long ready;
        private final byte[] readyHandle;
        private final long released;
        private final byte[] releasedHandle;
        private final AtomicBoolean closed = new AtomicBoolean(); // by its owner
        private final AtomicBoolean freed = new AtomicBoolean();  // by its owner or by closeAll

        private Slab(CudaDevice device, CudaBuffer memory, byte[] memoryHandle, long ready, byte[] readyHandle,
                     long released, byte[] releasedHandle) {
            this.device = device;
            this.memory = memory;
            this.view = memory.slice(0, memory.byteSize());
            this.memoryHandle = memoryHandle;
            this.ready = ready;
            this.readyHandle = readyHandle;
            this.released = released;
            this.releasedHandle = releasedHandle;
        }

        /** The memory, as a view for the backend's gather, copy and fill; it cannot be closed. */
        @Override
        public CudaBuffer buffer() {
            checkOpen();
            return view;
        }

        @Override
        public byte[] memoryHandle() {
            checkOpen();
            return memoryHandle.clone();
        }

        @Override
        public byte[] readyEventHandle() {
            checkOpen();
            return readyHandle.clone();
        }

        @Override
        public byte[] releasedEventHandle() {
            checkOpen();
            return releasedHandle.clone();
        }

        /** Records {@code ready} on a stream of the device, after every write the backend has returned from. */
        @Override
        public void markReady() {
            checkOpen();
            CudaDriver driver = backend.driver();
            device.makeCurrent();
            long stream = device.acquireStream();
            try {
                driver.eventRecord(ready, stream);
                driver.streamSynchronize(stream, "recording the ready event of " + this);
            } finally {
                device.releaseStream(stream);
            }
        }

        @Override
        public void awaitReleased() {
            checkOpen();
            device.makeCurrent();
            backend.driver().eventSynchronize(released);
        }

        /**
         * Destroys the events and frees the memory (nothing more when the backend closed first).
         *
         * @throws IllegalStateException when the slab is already closed
         */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                throw new IllegalStateException(this + " is already closed");
            }
            free();
        }

        private void free() {
            if (!freed.compareAndSet(false, true)) {
                return;
            }
            open.remove(this);
            CudaDriver driver = backend.driver();
            try {
                device.makeCurrent();
                driver.eventDestroy(ready);
                driver.eventDestroy(released);
            } finally {
                memory.close();
            }
        }

        private void checkOpen() {
            if (closed.get() || freed.get()) {
                throw new IllegalStateException(this + " is closed");
            }
        }

        @Override
        public String toString() {
            return "CudaIpcMemory.Slab[" + device.device() + " " + Sizes.human(memory.byteSize()) + "]";
        }
    }
}
