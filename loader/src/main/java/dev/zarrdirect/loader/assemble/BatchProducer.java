// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.assemble;

import dev.zarrdirect.loader.dataset.WindowDataset;
import dev.zarrdirect.loader.sampling.EpochSampler;
import dev.zarrdirect.loader.slots.Slots;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The loop that produces one epoch: keeps up to {@code prefetch} batches reading ahead, and hands
 * each batch, in order, to the sink once it is assembled in a free slot. A consumer slower than the
 * reads holds every slot, which stops the loop (back-pressure); a faster one never waits for more
 * than the batch at the head.
 */
public final class BatchProducer {

    /** A batch in a slot: its index in the epoch, the slot, how many samples, each sample's first step. */
    public record Delivered(int index, int slot, int rows, long[] time) {
    }

    /** Where finished batches go (the socket, or an in-process queue). */
    public interface Sink {
        void batch(Delivered d) throws Exception;
    }

    private final BatchAssembler assembler;
    private final EpochSampler sampler;
    private final WindowDataset dataset;
    private final Slots slots;
    private final int prefetch;

    public BatchProducer(BatchAssembler assembler, EpochSampler sampler, WindowDataset dataset, Slots slots, int prefetch) {
        this.assembler = assembler;
        this.sampler = sampler;
        this.dataset = dataset;
        this.slots = slots;
        this.prefetch = prefetch;
    }

    public int batches() {
        return sampler.batches();
    }

    /** The time index of each sample's first input step, for batch {@code index} of {@code epoch}. */
    public long[] sampleStarts(int epoch, int index) {
        int[] samples = sampler.batch(epoch, index);
        long[] starts = new long[samples.length];
        for (int i = 0; i < samples.length; i++) {
            starts[i] = dataset.sampleStart(samples[i]);
        }
        return starts;
    }

    /**
     * Produces batches {@code position} to the end of {@code epoch}; a slot is taken from
     * {@code free} for each (the consumer puts it back when done). Returns at the end, or soon after
     * {@code stop} turns true; every read it started has ended when it returns, whatever happened.
     */
    public void run(int epoch, int position, BlockingQueue<Integer> free, Sink sink, BooleanSupplier stop)
            throws Exception {
        int batches = sampler.batches();
        if (position < 0 || position > batches) {
            throw new IllegalArgumentException("position " + position + " is not in [0, " + batches + "]");
        }
        Deque<BatchAssembler.Staged> inflight = new ArrayDeque<>();
        int next = position;
        try {
            for (int index = position; index < batches && !stop.getAsBoolean(); index++) {
                while (inflight.size() < prefetch && next < batches) {
                    inflight.add(assembler.stage(next, sampleStarts(epoch, next)));
                    next++;
                }
                BatchAssembler.Staged s = inflight.poll();
                Integer slot = null;
                while (slot == null && !stop.getAsBoolean()) {
                    slot = free.poll(100, TimeUnit.MILLISECONDS);
                }
                if (slot == null) {
                    assembler.abandon(s);
                    break;
                }
                slots.beforeWrite(slot);
                assembler.finish(s, slots.gatherTarget(slot));
                slots.publish(slot, assembler.slotLayout().slotBytes());
                sink.batch(new Delivered(index, slot, s.rows(), s.assembly().sampleStarts()));
            }
        } finally {
            for (BatchAssembler.Staged s : inflight) {
                assembler.abandon(s);
            }
        }
    }
}
