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
            Path way = choice.next(chunks);
            ways.add(way);
            long start = now;
            now += (long) (bytes * (way == Path.DEVICE ? deviceNsPerByte : hostNsPerByte));
            choice.ended(way, chunks, bytes, start, now);
            now += 1000;
        }

        /**
         * One batch read alone at {@code gbps.apply(way, n)} GB/s, n being how many batches went
         * that way before it (so a way's first batches can be slower, as cold ones are).
         */
        void batch(int chunks, long bytes, java.util.function.ToDoubleBiFunction<Path, Integer> gbps) {
            Path way = choice.next(chunks);
            int before = (int) ways.stream().filter(w -> w == way).count();
            ways.add(way);
            long start = now;
            now += (long) (bytes / gbps.applyAsDouble(way, before));
            choice.ended(way, chunks, bytes, start, now);
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
    void slowFirstBatchesDoNotDecide() {
        // the first batch each way fills the pools, and the host's third is slow too (an H100 host's
        // host path took 1024, 71 and 471 ms for its first three): the lowest of the window decides
        PathChoice c = new PathChoice(Path.DEVICE);
        long now = 0;
        List<Path> ways = new ArrayList<>();
        int hostSeen = 0;
        for (int i = 0; i < 10; i++) {
            Path way = c.next(8);
            ways.add(way);
            long ms = way == Path.DEVICE ? (ways.indexOf(Path.DEVICE) == i ? 300 : 77)
                    : switch (hostSeen++) { case 0 -> 1024; case 2 -> 471; default -> 71; };
            c.ended(way, 8, 1 << 20, now, now + ms * 1_000_000);
            now += ms * 1_000_000 + 1;
        }
        assertEquals(Path.HOST, ways.getLast(), ways + " " + c.describe());
    }

    @Test
    void aCloseLoserIsTimedAgainSoon() {
        // the host path's first two batches are slow (pools, compiled code): timed at 1.5 GB/s where
        // it reads 2.4 once settled, it loses its probes to the device's 1.9, and must win soon after
        Reader r = new Reader(new PathChoice(Path.DEVICE));
        for (int i = 0; i < 12; i++) {
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
        // host's 1.7, 3x faster: the device is timed again 8 batches later, and then wins
        Reader r = new Reader(new PathChoice(Path.DEVICE));
        for (int i = 0; i < 24; i++) {
            r.batch(32, 64 << 20, (way, n) -> way == Path.HOST ? 1.7 : n < 2 ? 0.55 : 2.7);
        }
        int firstRecheck = 2 * PathChoice.MIN_SAMPLES + PathChoice.MIN_GAP - 1;
        assertEquals(Path.DEVICE, r.ways.get(firstRecheck), r.ways.toString());
        assertEquals(List.of(Path.HOST, Path.HOST, Path.HOST, Path.HOST), r.ways.subList(firstRecheck - 4, firstRecheck),
                r.ways.toString());
        assertEquals(List.of(Path.DEVICE, Path.DEVICE, Path.DEVICE), r.ways.subList(r.ways.size() - 3, r.ways.size()),
                r.ways + " " + r.choice.describe());
    }

    @Test
    void twoBatchesThatEndTogetherAreNotFree() {
        // two batches fetched at once, each taking 100 ms, end half a millisecond apart: the second is
        // charged half of its time, not the half millisecond
        PathChoice c = new PathChoice(Path.DEVICE);
        Path a = c.next(64);
        Path b = c.next(64);
        c.ended(a, 64, 1_000_000, 0, 100_000_000);
        c.ended(b, 64, 1_000_000, 0, 100_500_000);
        String d = c.describe();
        assertTrue(d.contains("device 0.02 GB/s"), d);
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
        // the host gets faster (say the device is now shared): the next recheck sees it, and the
        // batches follow
        for (int i = 0; i < 20; i++) {
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
    void queuedBatchesAreChargedTheIntervalBetweenTheirEnds() {
        // batches queued four deep: each takes 50 ms from its fetch to its end, yet they end 10 ms
        // apart on the device and 20 ms apart on the host; the intervals decide, not the 50 ms. The
        // first batches of the pipeline wait longer (nothing ended before them), so the device's
        // probes look slow and the host wins at first: the first recheck puts that right
        PathChoice c = new PathChoice(Path.DEVICE);
        long end = 100_000_000;
        for (int i = 0; i < 20; i++) {
            Path way = c.next(32);
            end += way == Path.DEVICE ? 10_000_000 : 20_000_000;
            c.ended(way, 32, 1 << 20, end - 50_000_000, end);
        }
        String d = c.describe();
        assertTrue(d.contains("device 0.10 GB/s") && d.contains("host 0.05 GB/s"), d);
        assertEquals(Path.DEVICE, c.next(32), d);
    }

    @Test
    void aProbeThatFailsIsTriedAgain() {
        PathChoice c = new PathChoice(Path.DEVICE);
        long now = 0;
        List<Path> ways = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Path way = c.next(16);
            ways.add(way);
            if (i == 2 || i == 3) {
                // the host's first two probes fail (a corrupt chunk): they are not counted, nor issued
                c.dropped(way, 16);
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
                        Path way = c.next(64);
                        long start = clock.getAndAdd(10);
                        host += way == Path.HOST ? 1 : 0;
                        c.ended(way, 64, 1000, start, clock.addAndGet(way == Path.HOST ? 30 : 10));
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
