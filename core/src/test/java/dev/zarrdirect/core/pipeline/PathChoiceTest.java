// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.core.pipeline.PathChoice.Path;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The choice between decoding a batch on the device and on the host ({@link PathChoice}), driven
 * with batch times given here (the reads that go both ways: conformance-tests' SerialRunRuleTest).
 */
class PathChoiceTest {

    /** A clock of the test's own: batches run one after another, each taking what its path costs. */
    private static final class Reader {
        final PathChoice choice;
        long now = 1_000_000;
        final List<Path> ways = new ArrayList<>();

        Reader(PathChoice choice) {
            this.choice = choice;
        }

        /** One batch, read alone: fetch, decode, next. Nanoseconds per byte by path. */
        void batch(int chunks, long bytes, double deviceNsPerByte, double hostNsPerByte) {
            long start = now;
            Path way = choice.next(chunks, start);
            ways.add(way);
            now += (long) (bytes * (way == Path.DEVICE ? deviceNsPerByte : hostNsPerByte));
            choice.ended(way, chunks, bytes, start, now);
            now += 1000;
        }

        /**
         * One batch read alone at {@code gbps.apply(way, n)} GB/s, n being how many batches went
         * that way before it (so a way's first batches can be slower, as cold ones are).
         */
        void batch(int chunks, long bytes, java.util.function.ToDoubleBiFunction<Path, Integer> gbps) {
            long start = now;
            Path way = choice.next(chunks, start);
            int before = (int) ways.stream().filter(w -> w == way).count();
            ways.add(way);
            now += (long) (bytes / gbps.applyAsDouble(way, before));
            choice.ended(way, chunks, bytes, start, now);
        }
    }

    /**
     * A read with {@code depth} batches queued, as DevicePipeline reads: batch i is fetched once
     * batch i - depth has been handed over, and batches are handed over in order. A host batch
     * decodes during its fetch on the host's cores (one batch at a time, {@code hostMs}); a device
     * batch decodes when its turn comes ({@code deviceMs}, one at a time). So a host batch sent
     * among device batches decodes beside them and ends just after the one before it.
     */
    private static final class Queue {
        final PathChoice choice;
        final int depth;
        final double deviceMs;
        final double hostMs;
        final List<Path> ways = new ArrayList<>();
        final List<Double> ends = new ArrayList<>();
        final List<Double> starts = new ArrayList<>();
        /** Batches told to the choice so far. */
        int told;
        double hostFree;
        double deviceFree;

        Queue(PathChoice choice, int depth, double deviceMs, double hostMs) {
            this.choice = choice;
            this.depth = depth;
            this.deviceMs = deviceMs;
            this.hostMs = hostMs;
        }

        void batches(int n) {
            for (int k = 0; k < n; k++) {
                int i = ways.size();
                double start = i < depth ? 0 : ends.get(i - depth);
                // the batches handed over by the time this one is fetched have been told
                tell(start);
                Path way = choice.next(32, (long) (start * 1e6));
                ways.add(way);
                double before = i == 0 ? 0 : ends.get(i - 1);
                double end;
                if (way == Path.HOST) {
                    hostFree = Math.max(hostFree, start) + hostMs;
                    end = Math.max(hostFree, before);
                } else {
                    deviceFree = Math.max(Math.max(deviceFree, start), before) + deviceMs;
                    end = deviceFree;
                }
                ends.add(end);
                starts.add(start);
            }
        }

        /** Tells the batches still in flight, as the read's end does. */
        void finish() {
            tell(Double.POSITIVE_INFINITY);
        }

        private void tell(double upTo) {
            while (told < ways.size() && ends.get(told) <= upTo) {
                choice.ended(ways.get(told), 32, 1 << 20, (long) (starts.get(told) * 1e6),
                        (long) (ends.get(told) * 1e6));
                told++;
            }
        }

        double millis() {
            return ends.getLast();
        }

        long count(Path way, int from) {
            return ways.subList(from, ways.size()).stream().filter(w -> w == way).count();
        }
    }

    /** Indexes among a size's batches, after {@code probes} probes, of the rechecks below {@code n}, {@code gap} apart. */
    private static List<Integer> rechecks(int probes, int n, long gap) {
        List<Integer> at = new ArrayList<>();
        for (long d = gap; probes + d - 1 < n; d += gap) {
            at.add((int) (probes + d - 1));
        }
        return at;
    }

    @Test
    void rechecksComeLessOftenTheSlowerTheLosingWayIs() {
        assertEquals(PathChoice.MIN_GAP, PathChoice.gap(1.0));
        assertEquals(PathChoice.MIN_GAP, PathChoice.gap(1.2));
        assertEquals(16, PathChoice.gap(1.5));
        assertEquals(96, PathChoice.gap(4));
        assertEquals(PathChoice.MAX_GAP, PathChoice.gap(1000));
        assertEquals(PathChoice.MAX_GAP, PathChoice.gap(Double.POSITIVE_INFINITY));
        assertEquals(PathChoice.MAX_GAP, PathChoice.gap(Double.NaN));
    }

    @Test
    void theFirstBatchesGoThePriorWayThenTheOtherThenTheFasterOne() {
        Reader r = new Reader(new PathChoice(Path.DEVICE));
        int n = 40;
        for (int i = 0; i < n; i++) {
            r.batch(16, 100 << 20, 0.5, 0.35);
        }
        // the host is 0.5 / 0.35 = 1.43 times faster: the device's window fills with rechecks 2
        // batches apart (it is close), then a recheck every 14 batches
        int early = 2 * PathChoice.MIN_SAMPLES + 2 * PathChoice.EARLY_GAP;
        List<Integer> rechecks = new ArrayList<>(List.of(5, 7));
        rechecks.addAll(rechecks(early, n, 14));
        assertEquals(List.of(5, 7, 21, 35), rechecks);
        for (int i = 0; i < n; i++) {
            Path want = i < PathChoice.MIN_SAMPLES || rechecks.contains(i) ? Path.DEVICE : Path.HOST;
            assertEquals(want, r.ways.get(i), "batch " + i + " of " + r.ways);
        }
        String d = r.choice.describe();
        assertTrue(d.contains("batches of 16-31 chunks: device 2.00 GB/s host 2.86 GB/s"), d);
    }

    @Test
    void whenTheDeviceIsFasterItKeepsTheBatchesAfterTheProbes() {
        Reader r = new Reader(new PathChoice(Path.DEVICE));
        for (int i = 0; i < 300; i++) {
            r.batch(256, 64 << 20, 0.1, 0.4);
        }
        int probes = 2 * PathChoice.MIN_SAMPLES;
        List<Integer> host = new ArrayList<>();
        for (int i = 0; i < r.ways.size(); i++) {
            if (r.ways.get(i) == Path.HOST) {
                host.add(i);
            }
        }
        List<Integer> want = new ArrayList<>(List.of(2, 3));
        want.addAll(rechecks(probes, 300, 96));
        assertEquals(want, host, "the probes, then a recheck every 96 batches (the host is 4x slower)");
    }

    @Test
    void slowFirstBatchesDoNotDecideForEver() {
        // the first batch each way fills the pools, and the host's third is slow too (an H100 host's
        // host path took 1024, 71 and 471 ms for its first three): the median of the host's window
        // stays up until three of its four batches are settled ones, and the host, 8% faster once
        // settled but timed 7x slower by its probes, is rechecked seldom: it wins after some 450
        // batches (the price of a figure that queued batches ending together cannot fool)
        PathChoice c = new PathChoice(Path.DEVICE);
        long now = 0;
        List<Path> ways = new ArrayList<>();
        int hostSeen = 0;
        for (int i = 0; i < 600; i++) {
            Path way = c.next(8, now);
            ways.add(way);
            long ms = way == Path.DEVICE ? (ways.indexOf(Path.DEVICE) == i ? 300 : 77)
                    : switch (hostSeen++) { case 0 -> 1024; case 2 -> 471; default -> 71; };
            c.ended(way, 8, 1 << 20, now, now + ms * 1_000_000);
            now += ms * 1_000_000 + 1;
        }
        assertEquals(List.of(Path.HOST, Path.HOST, Path.HOST), ways.subList(ways.size() - 3, ways.size()),
                ways + " " + c.describe());
        assertTrue(c.describe().contains("host 0.01 GB/s") && hostSeen > 4, c.describe());
    }

    @Test
    void aCloseLoserIsTimedAgainSoon() {
        // the host path's first two batches are slow (pools, compiled code): timed at 1.5 GB/s where
        // it reads 2.4 once settled, it loses its probes to the device's 1.9, and must win soon after:
        // rechecked every second batch until its window is full, then 8 batches later, and from then
        // on its figure (the median of four) is the settled one
        Reader r = new Reader(new PathChoice(Path.DEVICE));
        for (int i = 0; i < 30; i++) {
            r.batch(16, 133 << 20, (way, n) -> way == Path.DEVICE ? 1.9 : n < 2 ? 1.5 : 2.4);
        }
        assertEquals(List.of(Path.DEVICE, Path.DEVICE, Path.HOST, Path.HOST, Path.DEVICE, Path.HOST),
                r.ways.subList(0, 6), "probes, then a recheck of the host 2 batches later: " + r.ways);
        assertEquals(List.of(Path.HOST, Path.HOST, Path.HOST), r.ways.subList(r.ways.size() - 3, r.ways.size()),
                r.ways + " " + r.choice.describe());
        // with a far slower way the early rechecks do not apply: the host 4x slower waits 96 batches
        Reader far = new Reader(new PathChoice(Path.DEVICE));
        for (int i = 0; i < 40; i++) {
            far.batch(16, 1 << 20, 0.1, 0.4);
        }
        assertEquals(2, far.ways.stream().filter(w -> w == Path.HOST).count(), far.ways.toString());
    }

    @Test
    void aLoserUpToFourTimesSlowerIsTimedAgainWithinEightBatches() {
        // the device's two probes were cold (timed at 0.55 GB/s where it reads 2.7) and lost to the
        // host's 1.7, 3x faster: the device is timed again 8 batches later, and again, and once
        // three of its four timed batches are settled it wins
        Reader r = new Reader(new PathChoice(Path.DEVICE));
        for (int i = 0; i < 100; i++) {
            r.batch(32, 64 << 20, (way, n) -> way == Path.HOST ? 1.7 : n < 2 ? 0.55 : 2.7);
        }
        int firstRecheck = 2 * PathChoice.MIN_SAMPLES + PathChoice.MIN_GAP - 1;
        assertEquals(Path.DEVICE, r.ways.get(firstRecheck), r.ways.toString());
        assertEquals(List.of(Path.HOST, Path.HOST, Path.HOST, Path.HOST), r.ways.subList(firstRecheck - 4, firstRecheck),
                r.ways.toString());
        assertEquals(List.of(Path.DEVICE, Path.DEVICE, Path.DEVICE), r.ways.subList(r.ways.size() - 3, r.ways.size()),
                r.ways + " " + r.choice.describe());
        assertTrue(r.ways.subList(60, 100).stream().filter(w -> w == Path.DEVICE).count() > 36, r.ways.toString());
    }

    @Test
    void twoBatchesThatEndTogetherAreNotFree() {
        // two host batches fetched at once, each taking 100 ms, end half a millisecond apart: the
        // second is charged half of its time, not the half millisecond (the median of 100 and 50.25
        // ms for 1 MB is 0.01 GB/s; of 100 and 0.5 ms it would be 0.02)
        PathChoice c = new PathChoice(Path.HOST);
        Path a = c.next(64, 0);
        Path b = c.next(64, 0);
        c.ended(a, 64, 1_000_000, 0, 100_000_000);
        c.ended(b, 64, 1_000_000, 0, 100_500_000);
        String d = c.describe();
        assertTrue(d.contains("host 0.01 GB/s"), d);
        // two device batches so: each its share, 50 and 50.5 ms, together the 100.5 ms the two took
        PathChoice g = new PathChoice(Path.DEVICE);
        a = g.next(64, 0);
        b = g.next(64, 0);
        g.ended(a, 64, 1_000_000, 0, 100_000_000);
        g.ended(b, 64, 1_000_000, 0, 100_500_000);
        d = g.describe();
        assertTrue(d.contains("device 0.02 GB/s"), d);
    }

    @Test
    void deviceBatchesThatEndInClumpsAreTimedNearTheRateTheyRead() {
        // as an H200 read an 8.3 MB int16 zlib store's 2-step windows, 4 queued (66 MB a batch): the
        // device's batches start 11, 4.4 and 4 ms apart and end together about 71 ms after the
        // first: 4 x 66.4 MB in 75.7 ms, 3.51 GB/s. Their shares are 27.3, 17.3, 15.3 and 15.7 ms
        // (75.7 in all), whose median reads 4.02 GB/s; the interval rule charged 70.6, 31.3, 19.5
        // and 14.1 ms (median 2.61 GB/s), and the host, timed at 2.4, won windows it read at 3.0.
        PathChoice c = new PathChoice(Path.DEVICE);
        long bytes = 66_400_000;
        long[] startAt = {0, 11_000_000, 15_400_000, 19_400_000};
        long[] endAt = {70_600_000, 73_600_000, 74_000_000, 75_700_000};
        Path[] ways = new Path[4];
        for (int k = 0; k < 4; k++) {
            ways[k] = c.next(8, startAt[k]);
            assertEquals(Path.DEVICE, ways[k], "the prior's probes go out before any has ended");
        }
        for (int k = 0; k < 4; k++) {
            c.ended(ways[k], 8, bytes, startAt[k], endAt[k]);
        }
        String d = c.describe();
        assertTrue(d.contains("device 4.02 GB/s"), d);
    }

    @Test
    void theRechecksFollowAChange() {
        Reader r = new Reader(new PathChoice(Path.DEVICE));
        int probes = 2 * PathChoice.MIN_SAMPLES;
        for (int i = 0; i < probes + 20; i++) {
            r.batch(4, 10 << 20, 0.2, 0.3);
        }
        // the device kept the batches but for the host's rechecks: 2 early ones (it is close), then one 16 later
        assertEquals(3, r.ways.subList(probes, r.ways.size()).stream().filter(w -> w == Path.HOST).count(),
                r.ways.toString());
        // the host gets faster (say the device is now shared): the rechecks see it, and once most of
        // the host's window has, the batches follow
        for (int i = 0; i < 60; i++) {
            r.batch(4, 10 << 20, 0.2, 0.1);
        }
        assertEquals(Path.HOST, r.ways.getLast(), "after " + r.choice.describe());
        assertEquals(List.of(Path.HOST, Path.HOST, Path.HOST), r.ways.subList(r.ways.size() - 3, r.ways.size()));
    }

    @Test
    void sizesOfBatchGoTheirOwnWays() {
        // small batches are faster on the host, large ones on the device: both are learned
        Reader r = new Reader(new PathChoice(Path.DEVICE));
        for (int i = 0; i < 30; i++) {
            r.batch(8, 16 << 20, 0.6, 0.3);
            r.batch(512, 1 << 30, 0.1, 0.3);
        }
        assertEquals(Path.HOST, r.ways.get(r.ways.size() - 2), r.choice.describe());
        assertEquals(Path.DEVICE, r.ways.getLast(), r.choice.describe());
    }

    @Test
    void queuedBatchesAreChargedTheirTurnOnTheHostAndTheirShareOnTheDevice() {
        // four batches queued: a batch waits about 40 ms from its fetch to its end, yet they end 10
        // ms apart on the device and 20 ms apart on the host; the intervals decide
        Queue q = new Queue(new PathChoice(Path.DEVICE), 4, 10, 20);
        q.batches(400);
        q.finish();
        String d = q.choice.describe();
        // the device's figure is its share of the time: 10 ms a batch with four in flight, a little
        // more in the stretches where a host recheck holds one of the four places (0.09)
        assertTrue(d.contains("device 0.09 GB/s") && d.contains("host 0.05 GB/s"), d);
        assertTrue(q.count(Path.HOST, 0) <= 40, q.count(Path.HOST, 0) + " batches on the host: " + q.ways);
        assertTrue(q.millis() < 400 * 10 * 1.06, q.millis() + " ms");
    }

    @Test
    void aHostBatchQueuedAmongDeviceBatchesIsNotTimedShort() {
        // with batches queued, a host batch sent among device batches decodes beside them and ends
        // just after the one before it: timed by that interval the host looked faster than the
        // device where it is half as fast (this read took 4600 ms that way and sent 111 of its 400
        // batches to the host). Timed only when it ran alone, it is timed at its rate
        for (int depth : new int[] {2, 4, 8}) {
            Queue q = new Queue(new PathChoice(Path.DEVICE), depth, 10, 20);
            q.batches(400);
            q.finish();
            assertTrue(q.millis() < 400 * 10 * 1.07, "depth " + depth + ": " + q.millis() + " ms, " + q.ways);
            Queue h = new Queue(new PathChoice(Path.DEVICE), depth, 20, 10);
            h.batches(400);
            h.finish();
            assertTrue(h.millis() < 400 * 10 * 1.07, "depth " + depth + ": " + h.millis() + " ms, " + h.ways);
        }
    }

    @Test
    void onlyABatchThatRanAloneIsTimed() {
        PathChoice c = new PathChoice(Path.DEVICE);
        Path a = c.next(8, 0);
        Path b = c.next(8, 0);
        Path x = c.next(8, 0);
        assertEquals(List.of(Path.DEVICE, Path.DEVICE, Path.DEVICE), List.of(a, b, x));
        c.ended(a, 8, 1 << 20, 0, 4_000_000);
        c.ended(b, 8, 1 << 20, 0, 6_000_000);
        String probes = c.describe();
        // the device's probes are timed: the host's turn, while x is still in flight
        Path h = c.next(8, 7_000_000);
        assertEquals(Path.HOST, h);
        c.ended(h, 8, 1 << 20, 7_000_000, 9_000_000);
        assertTrue(c.describe().contains("host untimed"), "a host batch beside a device batch: " + c.describe());
        c.ended(x, 8, 1 << 20, 0, 10_000_000);
        assertEquals(probes, c.describe(), "a device batch beside a host batch is not timed either");
        Path alone = c.next(8, 11_000_000);
        assertEquals(Path.HOST, alone);
        c.ended(alone, 8, 1 << 20, 11_000_000, 13_000_000);
        assertTrue(c.describe().contains("host 0.52 GB/s"), c.describe());
    }

    @Test
    void aRecheckOfAQueuedReadEndsOnceOneOfItsBatchesRanAlone() {
        // the host 4x slower, batches queued four deep: the probes and each recheck send host
        // batches until one has run alone (about twice the depth), and no longer
        int depth = 4;
        Queue q = new Queue(new PathChoice(Path.DEVICE), depth, 10, 40);
        q.batches(2000);
        q.finish();
        List<Integer> runs = new ArrayList<>();
        int run = 0;
        for (Path w : q.ways) {
            if (w == Path.HOST) {
                run++;
            } else if (run > 0) {
                runs.add(run);
                run = 0;
            }
        }
        assertTrue(runs.size() >= 2 && runs.stream().allMatch(n -> n <= 2 * depth + 1), runs.toString());
        // after the probes, the rechecks take about 1/32 of the time
        long rechecks = q.count(Path.HOST, 100);
        assertTrue(rechecks > 0 && rechecks * 40 < (2000 - 100) * 10 / 16, rechecks + " host batches: " + runs);
    }

    @Test
    void aWayThatNeverRunsAloneIsTimedAnyway() {
        // a device batch that never ends (a read that keeps one in flight): no host batch runs
        // alone, so every MAX_BURST-th is timed anyway, and the host still gets its figure
        PathChoice c = new PathChoice(Path.DEVICE);
        assertEquals(Path.DEVICE, c.next(16, 0));
        long now = 0;
        int hosts = 0;
        for (int i = 0; i < 200 && hosts <= 2 * PathChoice.MAX_BURST; i++) {
            Path way = c.next(16, now);
            hosts += way == Path.HOST ? 1 : 0;
            c.ended(way, 16, 1 << 20, now, now + (way == Path.DEVICE ? 4_000_000 : 1_000_000));
            now += 5_000_000;
        }
        String d = c.describe();
        // each device batch shares its 4 ms with the one in flight for ever: 2 ms each
        assertTrue(d.contains("device 0.52 GB/s host 1.05 GB/s"), d);
        assertEquals(Path.HOST, c.next(16, now), d);
    }

    @Test
    void aProbeThatFailsIsTriedAgain() {
        PathChoice c = new PathChoice(Path.DEVICE);
        long now = 0;
        List<Path> ways = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Path way = c.next(16, now);
            ways.add(way);
            if (i == 2 || i == 3) {
                // the host's first two probes fail (a corrupt chunk): they are not counted, nor issued
                c.dropped(way, now);
                continue;
            }
            c.ended(way, 16, 1 << 20, now, now + (way == Path.DEVICE ? 2_000_000 : 1_000_000));
            now += 3_000_000;
        }
        assertEquals(List.of(Path.DEVICE, Path.DEVICE, Path.HOST, Path.HOST, Path.HOST, Path.HOST, Path.HOST, Path.HOST),
                ways, c.describe());
        assertTrue(c.describe().contains("host 1.05 GB/s"), c.describe());
    }

    @Test
    void manyThreadsAtOnceLeaveTheCountsWhole() throws Exception {
        PathChoice c = new PathChoice(Path.HOST);
        AtomicLong clock = new AtomicLong();
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> hosts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                hosts.add(pool.submit(() -> {
                    int host = 0;
                    for (int i = 0; i < 2000; i++) {
                        // each batch takes its own span of the clock, so its life does not depend on
                        // how long the other threads ran meanwhile (a thread descheduled between its
                        // start and its end would otherwise live for their batches too)
                        Path way;
                        long start;
                        synchronized (clock) {
                            start = clock.get();
                            way = c.next(64, start);
                            clock.addAndGet(way == Path.HOST ? 30 : 10);
                        }
                        host += way == Path.HOST ? 1 : 0;
                        c.ended(way, 64, 1000, start, start + (way == Path.HOST ? 30 : 10));
                    }
                    return host;
                }));
            }
            int host = 0;
            for (Future<Integer> f : hosts) {
                host += f.get();
            }
            // the device is three times faster here: after the probes, only the rechecks go to the host
            int n = threads * 2000;
            assertTrue(host < n / 10, host + " of " + n + " batches on the host: " + c.describe());
        } finally {
            pool.shutdownNow();
        }
    }
}
