// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import java.util.Locale;
import java.util.TreeMap;

/**
 * Picks, batch by batch, whether a device decoder's batch decodes on the device or on the host, by
 * timing both. It serves chains whose device stages inflate serially (gzip, zlib, blosc with zlib),
 * where no fixed rule holds: which side wins moves with the host's cores, the device, the chunk size
 * and how the batches are read (an H100 against 16 cores read an int16 shuffle + zlib store 0.70x
 * cpu+copy in calls of 4 on the device, yet 2.32x in 2-step windows of the same store).
 *
 * <p>What it times is a batch's cost to the read: from its fetch's start, or from the end of the
 * batch that ended before it when that is later, to its decode's end. With batches queued that is
 * the interval between their ends (what a reader waits per batch); with one batch at a time it is
 * the whole batch. Two queued batches may end close together, so a batch is charged at least its
 * own time over the batches that ended while it ran, itself included. A batch that overlaps the
 * other way's is charged short (on an H100 a host batch that ended just after device batches was
 * timed at 8.98 GB/s, more than the host's cores decode). Timing each way against its own batches
 * only, with a way up to 2.5x slower sent a batch whenever it had none in flight and the faster one
 * had (both ways at once on purpose), was tried on an H100 and not kept: a 2 MB int16 zlib store's
 * whole array read 1.53x cpu+copy where this rule had read 1.57x the call before, and a float32
 * store's windows 1.42x where 1.60x. Timed apart, a lone recheck in a queue is charged its whole
 * time rather than the interval since the batch before it, which makes the losing way look slower
 * than it would run queued.
 *
 * <p>A path's figure is the lowest cost per decoded byte among its last {@value #WINDOW} batches
 * of a size: the first batches each way are slow for reasons that pass (pools filled, code
 * compiled; on an H100 host the host path's first three batches of 16 chunks of 8.3 MB took 1024,
 * 71 and 471 ms, later ones about 70), and the lowest is the one they do not raise. Figures are
 * kept apart for each size of batch (powers of two of its chunks: whole-array reads and small
 * windows may go different ways).
 *
 * <p>For each size the first {@value #MIN_SAMPLES} batches go the way {@code prior} says, the
 * next {@value #MIN_SAMPLES} the other way; from then on each batch goes the way of the lower
 * figure, and now and then one goes the other way to keep its figure current. How often follows
 * what a recheck costs: a way r times slower costs r - 1 batches more, so it is rechecked once in
 * {@value #RECHECK_SHARE} x (r - 1) batches (at least {@value #MIN_GAP}, at most
 * {@value #MAX_GAP}): about 1/{@value #RECHECK_SHARE} of the time goes to rechecks. (On an H100
 * the device read a zlib store 7x faster than the host in 2-step windows: each recheck of the host
 * showed as a pass at a third of the others when they came every 64 batches.) While the losing way
 * has fewer than {@value #WINDOW} batches and is less than {@value #CLOSE} times slower, it is
 * rechecked every {@value #EARLY_GAP} batches instead: two slow first batches can make the faster
 * way look that much slower (on an H100 the host path read an int16 zlib store's calls of 4 at 2.3
 * GB/s once settled but lost its probes to the device's 1.9, and with rechecks 8 batches apart
 * the batches moved to it only in the sixth of 8 passes), and a recheck of a way that close costs
 * less than half a batch. A way up to {@value #FAR} times slower is rechecked every
 * {@value #MIN_GAP} batches until its window is full: queued reads issue both probes of a way at
 * once, cold (on an H100 a zlib store of 2 MB float32 chunks read in 32-step windows timed the
 * device at 0.98 GB/s that way, against 2.74 with every batch on the device, and the host's 3.02
 * kept every batch). A batch that fails is neither counted nor issued, so a probe that failed is
 * tried again. Thread-safe.
 */
final class PathChoice {

    /** Where a batch decodes. */
    enum Path { DEVICE, HOST }

    /** Batches of each path a size times before its batches go the faster way. */
    static final int MIN_SAMPLES = 2;

    /** A path's figure is the lowest of its last this many batches of the size. */
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

    /** Batches between rechecks when the losing way is {@code ratio} times slower: see the class comment. */
    static long gap(double ratio) {
        // less a hair, so that a ratio of 4 timed as 4.0000001 still gives 96
        double g = Math.ceil((ratio - 1) * RECHECK_SHARE - 1e-3);
        return (long) Math.clamp(Double.isNaN(g) ? MAX_GAP : g, MIN_GAP, MAX_GAP);
    }

    private final Path prior;
    /** Per size class (floor of log2 of the batch's chunks). */
    private final TreeMap<Integer, Size> sizes = new TreeMap<>();
    /** End of the last batch that ended, any size or path: where the next one's cost starts at the earliest. */
    private long lastEnd = Long.MIN_VALUE;
    /** Ends of the last batches, any size or path, for the batches that ended while one ran. */
    private final long[] ends = new long[32];
    private long endCount;

    /** @param prior the way batches go until both have been timed */
    PathChoice(Path prior) {
        this.prior = prior;
    }

    /** Per-size state: the last costs of each path, and batches issued each way. */
    private static final class Size {
        final double[][] costs = new double[2][WINDOW];
        final long[] counted = new long[2];
        final long[] issued = new long[2];
        /** Batches that went the faster way since the last recheck. */
        long sinceRecheck;

        /** The lowest nanoseconds per decoded byte in the window; infinite when nothing is counted. */
        double figure(Path p) {
            int n = (int) Math.min(counted[p.ordinal()], WINDOW);
            double best = Double.POSITIVE_INFINITY;
            for (int i = 0; i < n; i++) {
                best = Math.min(best, costs[p.ordinal()][i]);
            }
            return best;
        }
    }

    private static int sizeClass(int chunks) {
        return 31 - Integer.numberOfLeadingZeros(Math.max(1, chunks));
    }

    private static Path other(Path p) {
        return p == Path.DEVICE ? Path.HOST : Path.DEVICE;
    }

    /** The way a batch of {@code chunks} chunks goes; counts it as issued that way. */
    synchronized Path next(int chunks) {
        Size s = sizes.computeIfAbsent(sizeClass(chunks), k -> new Size());
        Path second = other(prior);
        Path way;
        if (s.issued[prior.ordinal()] < MIN_SAMPLES) {
            way = prior;
        } else if (s.issued[second.ordinal()] < MIN_SAMPLES) {
            way = second;
        } else if (s.counted[prior.ordinal()] < MIN_SAMPLES || s.counted[second.ordinal()] < MIN_SAMPLES) {
            // the probes are still in flight (or failed): the prior way until they are counted
            way = prior;
        } else {
            Path winner = s.figure(Path.HOST) < s.figure(Path.DEVICE) ? Path.HOST : Path.DEVICE;
            Path loser = other(winner);
            double ratio = s.figure(loser) / s.figure(winner);
            boolean early = s.issued[loser.ordinal()] < WINDOW;
            long gap = early && ratio < CLOSE ? EARLY_GAP : early && ratio < FAR ? MIN_GAP : gap(ratio);
            way = winner;
            if (++s.sinceRecheck >= gap) {
                way = loser;
                s.sinceRecheck = 0;
            }
        }
        s.issued[way.ordinal()]++;
        return way;
    }

    /**
     * A batch of {@code chunks} chunks and {@code decodedBytes} bytes that went {@code way} has
     * ended: fetched from {@code startNanos}, decoded by {@code endNanos} ({@link System#nanoTime}).
     */
    synchronized void ended(Path way, int chunks, long decodedBytes, long startNanos, long endNanos) {
        long from = lastEnd == Long.MIN_VALUE ? startNanos : Math.max(startNanos, lastEnd);
        lastEnd = lastEnd == Long.MIN_VALUE ? endNanos : Math.max(lastEnd, endNanos);
        int overlapping = 1;
        for (int i = 0; i < Math.min(endCount, (long) ends.length); i++) {
            if (ends[i] > startNanos) {
                overlapping++;
            }
        }
        ends[(int) (endCount++ % ends.length)] = endNanos;
        long cost = Math.max(endNanos - from, (endNanos - startNanos) / overlapping);
        Size s = sizes.computeIfAbsent(sizeClass(chunks), k -> new Size());
        int p = way.ordinal();
        s.costs[p][(int) (s.counted[p]++ % WINDOW)] = Math.max(0, cost) / (double) Math.max(1, decodedBytes);
    }

    /**
     * A batch that went {@code way} will not end (it failed, or its read did): it no longer counts
     * as issued that way, so a probe that failed is tried again.
     */
    synchronized void dropped(Path way, int chunks) {
        Size s = sizes.get(sizeClass(chunks));
        if (s != null && s.issued[way.ordinal()] > 0) {
            s.issued[way.ordinal()]--;
        }
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
