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
    /** The first batches of epoch {@code aheadEpoch}, read at the end of the epoch before. */
    private final Deque<BatchAssembler.Staged> ahead = new ArrayDeque<>();
    private int aheadEpoch = -1;

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
     * {@code stop} turns true.
     *
     * <p>Once the last batches of the epoch are reading, the first batches of {@code epoch + 1} are
     * read too, into the staging buffers left free: a training loop asks for that epoch next, and
     * would otherwise wait for a whole batch at each epoch start. They are kept for the next
     * {@code run} of that epoch from position 0, and dropped (their reads awaited) by any other
     * {@code run}, by a stopped one and by {@link #discardAhead}. Every other read this method
     * started has ended when it returns, whatever happened.
     */
    public void run(int epoch, int position, BlockingQueue<Integer> free, Sink sink, BooleanSupplier stop)
            throws Exception {
        int batches = sampler.batches();
        if (position < 0 || position > batches) {
            throw new IllegalArgumentException("position " + position + " is not in [0, " + batches + "]");
        }
        Deque<BatchAssembler.Staged> inflight = new ArrayDeque<>();
        int next = position;
        if (!ahead.isEmpty() && aheadEpoch == epoch && position == 0) {
            inflight.addAll(ahead);
            next = ahead.size();
            ahead.clear();
        }
        discardAhead();
        int nextEpochBatches = 0;
        boolean completed = false;
        try {
            for (int index = position; index < batches && !stop.getAsBoolean(); index++) {
                while (inflight.size() < prefetch && next < batches) {
                    inflight.add(assembler.stage(next, sampleStarts(epoch, next)));
                    next++;
                }
                while (inflight.size() < prefetch && next >= batches && nextEpochBatches < batches) {
                    inflight.add(assembler.stage(nextEpochBatches, sampleStarts(epoch + 1, nextEpochBatches)));
                    nextEpochBatches++;
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
            completed = !stop.getAsBoolean();
            while (completed && inflight.size() < prefetch && nextEpochBatches < batches) {
                inflight.add(assembler.stage(nextEpochBatches, sampleStarts(epoch + 1, nextEpochBatches)));
                nextEpochBatches++;
            }
        } finally {
            if (completed) {
                // what is left is the next epoch's first batches, in order
                ahead.addAll(inflight);
                aheadEpoch = epoch + 1;
            } else {
                for (BatchAssembler.Staged s : inflight) {
                    assembler.abandon(s);
                }
            }
        }
    }

    /** Drops the next epoch's batches read ahead, once their reads have ended. */
    public void discardAhead() {
        for (BatchAssembler.Staged s : ahead) {
            assembler.abandon(s);
        }
        ahead.clear();
    }

    /** How many batches of the next epoch are read ahead (for tests and traces). */
    public int readAhead() {
        return ahead.size();
    }
}
