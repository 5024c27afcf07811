package dev.zarrdirect.core.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

/**
 * The device tasks of one read, handed out in batches while their shards are still being planned.
 *
 * <p>A sharded read must read every shard's index before it knows its tasks. Here a batch is cut
 * as soon as the parts it needs are planned, so the first fetch does not wait for the last shard's
 * index. The batches may ramp up: the first holds {@code first} tasks and each next one twice as
 * many, up to {@code size}, so that the device starts on a small batch while larger ones behind it
 * are read ({@code ZarrArray.FIRST_BATCH_PROPERTY}; off by default, as it measured slower on the
 * H200).
 *
 * <p>Parts are consumed in order, so the tasks come out in plan order. {@link #next} is called by
 * one fetch at a time (fetches are chained), but is synchronized so that any caller sees a
 * consistent cursor.
 */
public final class TaskBatches {

    private final List<Future<List<DeviceDecoder.Task>>> parts;
    private final int size;
    private int nextSize;
    private int part;
    private List<DeviceDecoder.Task> current = List.of();
    private int inCurrent;
    private int handedOut;

    /**
     * @param parts the plan, in order: each future gives the tasks of one chunk or shard
     * @param size  tasks per batch once ramped up (at least 1)
     * @param first tasks in the first batch (clamped to 1..size); each later batch doubles
     */
    public TaskBatches(List<Future<List<DeviceDecoder.Task>>> parts, int size, int first) {
        if (size < 1) {
            throw new IllegalArgumentException("batch size must be at least 1, got " + size);
        }
        this.parts = List.copyOf(parts);
        this.size = size;
        this.nextSize = Math.clamp(first, 1, size);
    }

    /**
     * The next batch, waiting for the parts it needs to be planned; empty once every task has been
     * handed out. A part whose planning failed throws its exception here.
     */
    public synchronized List<DeviceDecoder.Task> next() {
        int want = nextSize;
        List<DeviceDecoder.Task> batch = new ArrayList<>(want);
        while (batch.size() < want) {
            if (inCurrent == current.size()) {
                if (part == parts.size()) {
                    break;
                }
                current = Futures.await(parts.get(part++), "planning a shard failed",
                        "interrupted while planning device batches");
                inCurrent = 0;
                continue;
            }
            int take = Math.min(want - batch.size(), current.size() - inCurrent);
            batch.addAll(current.subList(inCurrent, inCurrent + take));
            inCurrent += take;
        }
        if (!batch.isEmpty()) {
            nextSize = (int) Math.min(size, 2L * nextSize);
        }
        handedOut += batch.size();
        return batch;
    }

    /** Tasks handed out so far. */
    public synchronized int handedOut() {
        return handedOut;
    }
}
