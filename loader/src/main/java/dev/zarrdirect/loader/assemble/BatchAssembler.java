// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.assemble;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.plan.ReadPlan;
import dev.zarrdirect.loader.dataset.WindowDataset;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Reads batches into staging buffers on the context's device and gathers them into slots.
 *
 * <p>{@link #stage} starts a batch's reads (queued behind earlier ones on a device, so a loader
 * keeps several in flight) into one of {@code depth} staging buffers allocated at construction;
 * {@link #finish} waits for them and runs one {@link PlaneGather} per variable into the slot, then
 * gives the staging buffer back. Nothing is allocated per batch. Not thread-safe: one producer
 * thread stages and finishes, in order.
 */
public final class BatchAssembler implements AutoCloseable {

    private final ZarrContext ctx;
    private final WindowDataset dataset;
    private final SlotLayout slot;
    private final StagingLayout staging;
    private final Normalizer norm;
    private final Float nanValue;
    private final List<Buffer> buffers = new ArrayList<>();
    private final BlockingQueue<Buffer> free;

    /** A batch whose reads are under way. */
    public final class Staged {
        private final int index;
        private final BatchAssembly assembly;
        private final Buffer buffer;
        private final List<CompletableFuture<Void>> reads;

        private Staged(int index, BatchAssembly assembly, Buffer buffer, List<CompletableFuture<Void>> reads) {
            this.index = index;
            this.assembly = assembly;
            this.buffer = buffer;
            this.reads = reads;
        }

        public int index() {
            return index;
        }

        public BatchAssembly assembly() {
            return assembly;
        }

        public int rows() {
            return assembly.sampleStarts().length;
        }
    }

    public BatchAssembler(ZarrContext ctx, WindowDataset dataset, SlotLayout slot, Normalizer norm, Float nanValue,
                          int depth) {
        this.ctx = ctx;
        this.dataset = dataset;
        this.slot = slot;
        this.norm = norm;
        this.nanValue = nanValue;
        this.staging = new StagingLayout(dataset.variables(), slot.batchSize() * (slot.history() + slot.future()),
                slot.planeElements());
        this.free = new ArrayBlockingQueue<>(depth);
        Backend b = ctx.backend();
        Device dev = b.defaultDevice();
        try {
            for (int i = 0; i < depth; i++) {
                Buffer buf = b.allocateUninitialized(dev, dev.isHost() ? MemoryKind.HOST : MemoryKind.DEVICE,
                        staging.totalBytes());
                buffers.add(buf);
                free.add(buf);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** Bytes of one staging buffer. */
    public static long stagingBytes(WindowDataset dataset, SlotLayout slot) {
        return new StagingLayout(dataset.variables(), slot.batchSize() * (slot.history() + slot.future()),
                slot.planeElements()).totalBytes();
    }

    public SlotLayout slotLayout() {
        return slot;
    }

    /**
     * Plans batch {@code index} (samples starting at {@code sampleStarts}) and starts its reads.
     * Blocks while every staging buffer is in use.
     */
    public Staged stage(int index, long[] sampleStarts) throws InterruptedException {
        BatchAssembly a = BatchAssembly.of(dataset, staging, slot, norm, sampleStarts);
        Buffer buf = free.take();
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        try {
            for (int vi = 0; vi < a.variables().size(); vi++) {
                BatchAssembly.VariableAssembly va = a.variables().get(vi);
                ReadPlan plan = va.variable().array().plan(va.requests(), va.destShape());
                long bytes = dev.zarrdirect.core.grid.Shapes.product(va.destShape())
                        * va.variable().array().dataType().byteSize();
                reads.add(va.variable().array().readIntoAsync(plan, buf.slice(staging.offset(vi), Math.max(1, bytes))));
            }
        } catch (RuntimeException | Error e) {
            awaitQuietly(reads);
            free.add(buf);
            throw e;
        }
        return new Staged(index, a, buf, reads);
    }

    /**
     * Waits for {@code s}'s reads and gathers the batch into {@code out} (memory this context's
     * backend reaches). The staging buffer is given back whatever happens.
     */
    public void finish(Staged s, Buffer out) {
        try {
            for (int vi = 0; vi < s.reads.size(); vi++) {
                await(s, vi);
            }
            Backend b = ctx.backend();
            for (int vi = 0; vi < s.assembly.variables().size(); vi++) {
                BatchAssembly.VariableAssembly va = s.assembly.variables().get(vi);
                b.gather(new PlaneGather(s.buffer, staging.offset(vi), va.variable().array().dataType(), out, 0,
                        slot.dtype(), slot.planeElements(), va.srcPlane(), va.dstPlane(), va.scale(), va.shift(),
                        nanValue != null, nanValue == null ? 0f : nanValue));
            }
        } finally {
            awaitQuietly(s.reads);
            free.add(s.buffer);
        }
    }

    /** Waits for {@code s}'s reads, ignoring their outcome, and gives its staging buffer back. */
    public void abandon(Staged s) {
        awaitQuietly(s.reads);
        free.add(s.buffer);
    }

    private void await(Staged s, int vi) {
        BatchAssembly.VariableAssembly va = s.assembly.variables().get(vi);
        try {
            s.reads.get(vi).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZarrDirectException("interrupted while reading batch " + s.index, e);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new ZarrDirectException("batch " + s.index + " (samples starting at time steps "
                    + Arrays.toString(s.assembly.sampleStarts()) + "): reading variable '" + va.variable().name()
                    + "' at time steps " + Arrays.toString(s.assembly.steps()) + " of " + dataset + " failed: "
                    + cause.getMessage(), cause);
        }
    }

    private static void awaitQuietly(List<CompletableFuture<Void>> reads) {
        for (CompletableFuture<Void> f : reads) {
            try {
                f.handle((ok, x) -> null).join();
            } catch (RuntimeException ignored) {
                // only waiting for the read to stop touching the buffer
            }
        }
    }

    @Override
    public void close() {
        for (Buffer b : buffers) {
            if (b.isOpen()) {
                b.close();
            }
        }
        buffers.clear();
        free.clear();
    }
}
