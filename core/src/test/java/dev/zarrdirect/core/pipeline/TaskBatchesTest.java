package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.ZarrDirectException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TaskBatchesTest {

    private static DeviceDecoder.Task task(int n) {
        return DeviceDecoder.Task.whole("k" + n, new long[] {n}, new long[] {1}, new long[] {n}, "#" + n);
    }

    /** Parts of the given sizes, numbered consecutively, already planned. */
    private static List<Future<List<DeviceDecoder.Task>>> parts(int... sizes) {
        List<Future<List<DeviceDecoder.Task>>> parts = new ArrayList<>();
        int n = 0;
        for (int s : sizes) {
            List<DeviceDecoder.Task> p = new ArrayList<>();
            for (int i = 0; i < s; i++) {
                p.add(task(n++));
            }
            parts.add(CompletableFuture.completedFuture(p));
        }
        return parts;
    }

    /** Every batch's size until the batches run out; checks that the tasks come out in order. */
    private static List<Integer> drain(TaskBatches b) {
        List<Integer> sizes = new ArrayList<>();
        int expect = 0;
        for (List<DeviceDecoder.Task> batch = b.next(); !batch.isEmpty(); batch = b.next()) {
            sizes.add(batch.size());
            for (DeviceDecoder.Task t : batch) {
                assertEquals("k" + expect++, t.key(), "tasks out of plan order");
            }
        }
        assertEquals(expect, b.handedOut());
        assertTrue(b.next().isEmpty(), "a used-up plan stays used up");
        return sizes;
    }

    @Test
    void batchesRampUpByDoublingAcrossPartBoundaries() {
        // 32 shards of 16 inner chunks, batches of 128 starting at 16: the ERA5 sharded read
        int[] shards = new int[32];
        java.util.Arrays.fill(shards, 16);
        assertEquals(List.of(16, 32, 64, 128, 128, 128, 16), drain(new TaskBatches(parts(shards), 128, 16)));
        // parts that do not line up with the batches, and empty parts (shards with no chunk written)
        assertEquals(List.of(3, 6, 10, 10, 1), drain(new TaskBatches(parts(5, 0, 7, 0, 0, 11, 7), 10, 3)));
    }

    @Test
    void firstBatchIsClampedAndNoRampWhenItIsTheFullSize() {
        assertEquals(List.of(4, 4, 2), drain(new TaskBatches(parts(10), 4, 4)));
        assertEquals(List.of(4, 4, 2), drain(new TaskBatches(parts(10), 4, 99)));
        assertEquals(List.of(1, 2, 4, 3), drain(new TaskBatches(parts(10), 4, 0)));
        assertEquals(List.of(4, 4, 2), drain(new TaskBatches(List.of(CompletableFuture.completedFuture(parts(10).getFirst().resultNow())), 4, 4)));
        assertThrows(IllegalArgumentException.class, () -> new TaskBatches(parts(1), 0, 1));
    }

    @Test
    void emptyPlansGiveNoBatch() {
        assertEquals(List.of(), drain(new TaskBatches(parts(), 8, 1)));
        assertEquals(List.of(), drain(new TaskBatches(parts(0, 0, 0), 8, 1)));
    }

    @Test
    void aFailedPartFailsTheBatchThatReachesItAndNotEarlierOnes() {
        List<Future<List<DeviceDecoder.Task>>> parts = new ArrayList<>(parts(4, 4));
        ZarrDirectException boom = new ZarrDirectException("shard index of c/1 is corrupt");
        parts.add(CompletableFuture.failedFuture(boom));
        TaskBatches b = new TaskBatches(parts, 8, 8);
        assertEquals(8, b.next().size());
        assertSame(boom, assertThrows(ZarrDirectException.class, b::next));
    }

    @Test
    void aBatchWaitsOnlyForThePartsItNeeds() throws Exception {
        CompletableFuture<List<DeviceDecoder.Task>> late = new CompletableFuture<>();
        List<Future<List<DeviceDecoder.Task>>> parts = new ArrayList<>(parts(2, 2));
        parts.add(late);
        TaskBatches b = new TaskBatches(parts, 4, 2);
        assertEquals(2, b.next().size());
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try {
            Future<List<DeviceDecoder.Task>> second = ex.submit(b::next);
            // the second batch wants 4: two from the planned part, two from the late one
            Thread.sleep(50);
            assertFalse(second.isDone(), "the batch was cut before its part was planned");
            late.complete(List.of(task(4), task(5), task(6)));
            assertEquals(List.of("k2", "k3", "k4", "k5"),
                    second.get(5, TimeUnit.SECONDS).stream().map(DeviceDecoder.Task::key).toList());
            assertEquals(List.of("k6"), b.next().stream().map(DeviceDecoder.Task::key).toList());
        } finally {
            ex.shutdownNow();
        }
    }

    @Test
    void randomPlansHandOutEveryTaskOnceInOrder() {
        Random rnd = new Random(20261121);
        for (int round = 0; round < 200; round++) {
            int[] sizes = new int[rnd.nextInt(12)];
            int total = 0;
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(20);
                total += sizes[i];
            }
            int size = 1 + rnd.nextInt(40);
            List<Integer> got = drain(new TaskBatches(parts(sizes), size, 1 + rnd.nextInt(size)));
            assertEquals(total, got.stream().mapToInt(Integer::intValue).sum());
            for (int i = 1; i < got.size() - 1; i++) {
                assertTrue(got.get(i) >= got.get(i - 1) && got.get(i) <= size, "sizes " + got);
            }
        }
    }
}
