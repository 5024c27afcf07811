// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * Picks, batch by batch, whether a device decoder's batch decodes on the device or on the host, by
 * timing both. It serves chains whose device stages inflate serially (gzip, zlib, blosc with zlib),
 * where no fixed rule holds: which side wins moves with the host's cores, the device, the chunk size
 * and how the batches are read (an H100 against 16 cores read an int16 shuffle + zlib store 0.70x
 * cpu+copy in calls of 4 on the device, yet 2.32x in 2-step windows of the same store).
 *
 * <p>What it times is a batch's cost to the read. A host batch's cost is from its fetch's start, or
 * from the end of the batch that ended before it when that is later, to its decode's end: the host
 * serves queued batches in turn (a semaphore holds two at a time), so that is the interval between
 * their ends, what a reader waits per batch; with one batch at a time it is the whole batch. Two
 * queued batches may end close together, so a batch is charged at least its own time over the
 * batches that ended while it ran, itself included. A device batch's cost is its share of the
 * wall time: over its life, each moment divided among the device batches in flight then. The
 * device runs its queued batches side by side and they end in clumps (an H200 reading an 8.3 MB
 * int16 zlib store's 2-step windows, 4 queued, ended four batches within 5 ms, 78 ms after the
 * clump before ended), which the interval rule's floor charged 127 ms in all: the device was timed
 * at 1.7 GB/s where it reads 4.1, and the windows went to the host at 3.05 GB/s; their shares add
 * up to the wall time, the device is timed at 4.1-4.3 and the windows read 4.10
 * (docs/performance.md, "A device batch's share of the time"). Queued host batches are not shared that way: a batch that
 * waits its turn at the semaphore would be charged a fraction of the time it waited.
 *
 * <p>Only a batch that ran alone is timed: one during whose life, from its fetch to its end, no
 * batch of the other way was in flight. A host batch queued among device batches decodes on the
 * host's cores beside them and ends just after the one before it, so the interval charges it a
 * fraction of its time (on an H200 the host path of a 2 MB int16 zlib store's 2-step windows was
 * timed at 7.2 GB/s that way, where the host reads it at 2.6), and the device batches beside it
 * share the host's cores with it. A way is therefore sent in bursts: the probes, and each
 * recheck, go on until one of their batches has been timed; with reads queued d deep that is
 * about 2d batches, with one batch at a time one. A way that has sent {@value #MAX_BURST} batches
 * of a size without one running alone has its next one timed anyway, so a read that never lets a
 * way run alone still gets figures.
 *
 * <p>A path's figure is the median cost per decoded byte of its last {@value #WINDOW} timed batches
 * of a size. The lowest, kept before, was fooled by batches that end close together; the mean
 * would be by the first batches each way, slow for reasons that pass (pools filled, code compiled:
 * on an H100 host the host path's first three batches of 16 chunks of 8.3 MB took 1024, 71 and 471
 * ms, later ones about 70). The median pays for them too, less: two in a window of four hold it up
 * until three are settled, so a way that lost its probes cold comes back later. Measured side by
 * side on an H200 (one call, six ways of reading a 2 MB int16 and a 2 MB float32 zlib store, each
 * twice), timed alone the median read 40.0 GB/s summed over the six, the lowest 37.3, and the rule
 * before (every batch timed, the lowest) 36.1: docs/performance.md, "Device or host: batches timed
 * alone". Figures are kept apart for each size of batch (powers of two of its chunks: whole-array
 * reads and small windows may go different ways).
 *
 * <p>For each size, batches go the way {@code prior} says until {@value #MIN_SAMPLES} of them are
 * timed, then the other way until {@value #MIN_SAMPLES} of its are; from then on each batch goes the
 * way of the lower figure, and now and then a recheck goes the other way to keep its figure current.
 * How often follows what a recheck costs: a way r times slower costs r - 1 batches more a batch
 * sent, so it is rechecked once in {@value #RECHECK_SHARE} x (r - 1) batches (at least
 * {@value #MIN_GAP}, at most {@value #MAX_GAP}), times the batches the last recheck took: about
 * 1/{@value #RECHECK_SHARE} of the time goes to rechecks. (On an H100 the device read a zlib store 7x
 * faster than the host in 2-step windows: each recheck of the host showed as a pass at a third of
 * the others when they came every 64 batches.) While the losing way has fewer than
 * {@value #WINDOW} timed batches and is less than {@value #CLOSE} times slower, it is rechecked
 * every {@value #EARLY_GAP} batches instead: two slow first batches can make the faster way look
 * that much slower (on an H100 the host path read an int16 zlib store's calls of 4 at 2.3 GB/s once
 * settled but lost its probes to the device's 1.9, and with rechecks 8 batches apart the batches
 * moved to it only in the sixth of 8 passes). A way up to {@value #FAR} times slower is rechecked
 * every {@value #MIN_GAP} batches until its window is full. A batch that fails is not timed, so a
 * probe that failed is tried again. Thread-safe.
 */
final class PathChoice {

    /** Where a batch decodes. */
    enum Path { DEVICE, HOST }

    /** Batches of each path a size times before its batches go the faster way. */
    static final int MIN_SAMPLES = 2;

    /** A path's figure is the median of its last this many timed batches of the size. */
    static final int WINDOW = 4;

    /** Rechecks cost about one batch in this many: the gap is this times what a recheck costs in batches. */
    static final int RECHECK_SHARE = 32;

    /** The fewest batches between two rechecks of a size. */
    static final int MIN_GAP = 8;

    /** The most batches between two rechecks of a size. */
    static final int MAX_GAP = 1024;

    /** A losing way less than this many times slower is rechecked every {@link #EARLY_GAP} batches until its window is full. */
    static final double CLOSE = 1.5;

    /** Batches between rechecks of a close losing way whose window is not full yet. */
    static final int EARLY_GAP = 2;

    /** A losing way less than this many times slower is rechecked every {@link #MIN_GAP} batches until its window is full. */
    static final double FAR = 4;

    /**
     * A way that has sent this many batches of a size since one of them was timed alone has its
     * next batch timed anyway: a read that never lets one way run alone still gets figures.
     */
    static final int MAX_BURST = 16;

    /** Ended batches of each way kept for the shares of wall time of the batches that overlapped them. */
    static final int HISTORY = 64;

    /** Batches between rechecks when the losing way is {@code ratio} times slower: see the class comment. */
    static long gap(double ratio) {
        // less a hair, so that a ratio of 4 timed as 4.0000001 still gives 96
        double g = Math.ceil((ratio - 1) * RECHECK_SHARE - 1e-3);
        return (long) Math.clamp(Double.isNaN(g) ? MAX_GAP : g, MIN_GAP, MAX_GAP);
    }

    private final Path prior;
    /** Per size class (floor of log2 of the batch's chunks). */
    private final TreeMap<Integer, Size> sizes = new TreeMap<>();
    /** Ends of the last batches, any size or path, for the batches that ended while one ran. */
    private final long[] ends = new long[32];
    private long endCount;
    /**
     * The starts of each way's batches issued and not yet ended or dropped (a batch's start
     * identifies it), any size: how many are in flight, and since when, for the shares of wall time.
     */
    private final List<List<Long>> started = List.of(new ArrayList<>(), new ArrayList<>());
    /** The last {@value #HISTORY} ended batches of each way, any size: start and end, for the shares of wall time. */
    private final long[][][] history = new long[2][HISTORY][2];
    private final long[] historyCount = new long[2];
    /**
     * When a batch of each way last ended, any size: the later of the two is where the next batch's
     * cost starts at the earliest.
     */
    private final long[] lastGone = {Long.MIN_VALUE, Long.MIN_VALUE};

    /** @param prior the way batches go until both have been timed */
    PathChoice(Path prior) {
        this.prior = prior;
    }

    /** Per-size state: the last costs of each path, and the recheck under way. */
    private static final class Size {
        final double[][] costs = new double[2][WINDOW];
        final long[] counted = new long[2];
        /** Batches issued each way since one of that way was counted. */
        final long[] sinceCounted = new long[2];
        /** Batches that went the faster way since the last recheck. */
        long sinceRecheck;
        /** The way being rechecked, until one of its batches is counted; null between rechecks. */
        Path rechecking;
        /** Its count when the recheck began. */
        long countedAtRecheck;
        /** Batches the recheck under way has sent. */
        long burst;
        /** Batches the last recheck sent (1 before the first): the gap to the next is this many times longer. */
        long lastBurst = 1;

        /** The median nanoseconds per decoded byte in the window; infinite when nothing is counted. */
        double figure(Path p) {
            int n = (int) Math.min(counted[p.ordinal()], WINDOW);
            if (n == 0) {
                return Double.POSITIVE_INFINITY;
            }
            double[] c = Arrays.copyOf(costs[p.ordinal()], n);
            Arrays.sort(c);
            return (c[(n - 1) / 2] + c[n / 2]) / 2;
        }
    }

    private static int sizeClass(int chunks) {
        return 31 - Integer.numberOfLeadingZeros(Math.max(1, chunks));
    }

    private static Path other(Path p) {
        return p == Path.DEVICE ? Path.HOST : Path.DEVICE;
    }

    /**
     * The way a batch of {@code chunks} chunks, starting at {@code startNanos} ({@link System#nanoTime}),
     * goes; it is in flight that way until it ends or is dropped (both told the same start).
     */
    synchronized Path next(int chunks, long startNanos) {
        Size s = sizes.computeIfAbsent(sizeClass(chunks), k -> new Size());
        Path way = choose(s);
        s.sinceCounted[way.ordinal()]++;
        started.get(way.ordinal()).add(startNanos);
        return way;
    }

    private Path choose(Size s) {
        // each way until it has its samples: queued batches of one way run alone only once the
        // other way's have ended, so a way's first timed batch comes some batches after its first
        Path second = other(prior);
        if (s.counted[prior.ordinal()] < MIN_SAMPLES) {
            return prior;
        }
        if (s.counted[second.ordinal()] < MIN_SAMPLES) {
            return second;
        }
        if (s.rechecking != null) {
            if (s.counted[s.rechecking.ordinal()] == s.countedAtRecheck) {
                s.burst++;
                return s.rechecking;
            }
            s.rechecking = null;
            s.lastBurst = s.burst;
        }
        double host = s.figure(Path.HOST);
        double device = s.figure(Path.DEVICE);
        Path winner = host < device ? Path.HOST : Path.DEVICE;
        Path loser = other(winner);
        double ratio = host < device ? device / host : host / device;
        boolean early = s.counted[loser.ordinal()] < WINDOW;
        long gap = early && ratio < CLOSE ? EARLY_GAP : early && ratio < FAR ? MIN_GAP : gap(ratio);
        if (++s.sinceRecheck < gap * s.lastBurst) {
            return winner;
        }
        s.sinceRecheck = 0;
        s.rechecking = loser;
        s.countedAtRecheck = s.counted[loser.ordinal()];
        s.burst = 1;
        return loser;
    }

    /**
     * A batch of {@code chunks} chunks and {@code decodedBytes} bytes that went {@code way} has
     * ended: fetched from {@code startNanos}, decoded by {@code endNanos} ({@link System#nanoTime}).
     */
    synchronized void ended(Path way, int chunks, long decodedBytes, long startNanos, long endNanos) {
        int p = way.ordinal();
        int o = other(way).ordinal();
        // alone: no batch of the other way was in flight at any time while this one ran (one
        // dropped meanwhile is not seen: failures are rare, and a dropped batch has no end time)
        boolean ranAlone = started.get(o).isEmpty() && lastGone[o] <= startNanos;
        long from = Math.max(startNanos, Math.max(lastGone[p], lastGone[o]));
        started.get(p).remove(Long.valueOf(startNanos));
        lastGone[p] = Math.max(lastGone[p], endNanos);
        int overlapping = 1;
        for (int i = 0; i < Math.min(endCount, (long) ends.length); i++) {
            if (ends[i] > startNanos) {
                overlapping++;
            }
        }
        ends[(int) (endCount++ % ends.length)] = endNanos;
        // the device runs its batches side by side, the host serves them in turn: see the class comment
        double cost = way == Path.DEVICE ? share(p, startNanos, endNanos)
                : Math.max(endNanos - from, (endNanos - startNanos) / overlapping);
        long[] h = history[p][(int) (historyCount[p]++ % HISTORY)]; // after its share: not counted twice
        h[0] = startNanos;
        h[1] = endNanos;
        Size s = sizes.computeIfAbsent(sizeClass(chunks), k -> new Size());
        if (!ranAlone && s.sinceCounted[p] < MAX_BURST) {
            return;
        }
        s.sinceCounted[p] = 0;
        s.costs[p][(int) (s.counted[p]++ % WINDOW)] = Math.max(0, cost) / (double) Math.max(1, decodedBytes);
    }

    /**
     * A batch's share of the wall time from {@code start} to {@code end}: at each moment, the time
     * divided among the batches of way {@code p} in flight then, itself included (those ended, as far
     * as the history goes, and those still in flight, which run past {@code end}).
     */
    private double share(int p, long start, long end) {
        List<long[]> spans = new ArrayList<>();
        spans.add(new long[] {start, end});
        for (int i = 0; i < Math.min(historyCount[p], HISTORY); i++) {
            long[] h = history[p][i];
            if (h[1] > start && h[0] < end) {
                spans.add(h);
            }
        }
        for (long s0 : started.get(p)) {
            if (s0 < end) {
                spans.add(new long[] {s0, Long.MAX_VALUE});
            }
        }
        long[] points = new long[2 * spans.size()];
        for (int i = 0; i < spans.size(); i++) {
            points[2 * i] = Math.clamp(spans.get(i)[0], start, end);
            points[2 * i + 1] = Math.clamp(spans.get(i)[1], start, end);
        }
        Arrays.sort(points);
        double cost = 0;
        for (int i = 1; i < points.length; i++) {
            long a = points[i - 1], b = points[i];
            if (b == a) {
                continue;
            }
            int n = 0;
            for (long[] sp : spans) {
                if (sp[0] <= a && sp[1] >= b) {
                    n++;
                }
            }
            cost += (b - a) / (double) Math.max(1, n);
        }
        return cost;
    }

    /**
     * A batch that went {@code way}, started at {@code startNanos}, will not end (it failed, or its
     * read did): it is not timed, so a probe that failed is tried again.
     */
    synchronized void dropped(Path way, long startNanos) {
        started.get(way.ordinal()).remove(Long.valueOf(startNanos));
    }

    /** The figures so far, per size: e.g. "batches of 16-31 chunks: device 1.87 GB/s host 2.65 GB/s". */
    synchronized String describe() {
        if (sizes.isEmpty()) {
            return "no batch timed yet";
        }
        StringBuilder b = new StringBuilder();
        sizes.forEach((k, s) -> {
            if (!b.isEmpty()) {
                b.append("; ");
            }
            b.append("batches of ").append(k == 0 ? "1" : (1 << k) + "-" + ((2 << k) - 1)).append(" chunks:");
            for (Path p : Path.values()) {
                double c = s.figure(p);
                b.append(' ').append(p.name().toLowerCase(Locale.ROOT)).append(' ')
                        .append(Double.isInfinite(c) ? "untimed" : String.format(Locale.ROOT, "%.2f GB/s", 1 / c));
            }
        });
        return b.toString();
    }
}
