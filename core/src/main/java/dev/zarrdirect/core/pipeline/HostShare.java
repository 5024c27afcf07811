// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import java.util.Locale;

/**
 * How much of a shared batch the host decodes while the device decodes the rest, for chains whose
 * device stages inflate serially (gzip, zlib, blosc with zlib): the batch's last ranges go to the
 * host's cores, the others to the device, and both start at the batch's fetch. The share moves
 * towards the split at which both parts would have ended together, from how long each part of each
 * batch took: {@code host ranges / host nanoseconds} against {@code device ranges / device
 * nanoseconds}. A part that waited its turn (queued host batches, device batches in flight) took
 * longer, so a side that is the read's bottleneck is given less: what matters is which side the
 * batches wait on, not either side's rate alone.
 *
 * <p>Why share rather than send each batch one way (the timed choice, {@link PathChoice}): the two
 * ways read these stores within 2x of each other, so the side left idle was half the machine. On an
 * H200 with 16 cores, three small-chunk deflate stores read three ways each: sharing 1.00-2.00x
 * cpu+copy (whole arrays 1.36-1.64x), and 1.08-1.50x the timed choice on 8 of 9 reads, 0.98x on the
 * ninth (docs/performance.md, "Host and device at once").
 *
 * <p>Starts at {@value #START}, the best fixed share measured there; stays within
 * [{@value #MIN_SHARE}, {@value #MAX_SHARE}], so that neither side's figure goes stale. Thread-safe.
 */
final class HostShare {

    /** The share before any batch has ended. */
    static final double START = 0.4;
    /** The least share the host keeps. */
    static final double MIN_SHARE = 1.0 / 16;
    /** The most share the host takes. */
    static final double MAX_SHARE = 15.0 / 16;
    /**
     * How far one batch moves the share towards its balance: half the way, so that one batch slowed
     * by something else (a collection, a page fault storm) moves it only half as far.
     */
    static final double GAIN = 0.5;

    private double share = START;
    private long batches;

    /** The share of the next batch's ranges that the host decodes. */
    synchronized double share() {
        return share;
    }

    /**
     * How many of {@code ranges} (at least 2) go to the host: the share of them, rounded, at least
     * one and leaving the device at least one; or 0, not shared, when that many would keep the host
     * busy longer than the device takes for the whole batch. At the share, the host's rate per range
     * is {@code share / (1 - share)} of the device's, so k ranges on the host end first only while
     * {@code k < ranges x share / (1 - share)}: a batch of a few large chunks (4 streams of 66 MB, one
     * core each on the host, many thread blocks each on the device) cannot be cut finely enough, and
     * goes one way. (Reasoned from that store's figures in earlier stops, not measured with sharing;
     * the nine reads measured with it all pass this test at the shares they settled at.)
     */
    synchronized int hostRanges(int ranges) {
        if (ranges < 2) {
            throw new IllegalArgumentException(ranges + " ranges: a shared batch needs two or more");
        }
        int k = (int) Math.clamp(Math.round(share * ranges), 1, ranges - 1);
        return k < ranges * share / (1 - share) ? k : 0;
    }

    /**
     * A shared batch has ended: the host decoded {@code hostRanges} ranges in {@code hostNanos}, the
     * device {@code deviceRanges} in {@code deviceNanos}, both from the batch's fetch.
     */
    synchronized void ended(int hostRanges, long hostNanos, int deviceRanges, long deviceNanos) {
        if (hostRanges <= 0 || deviceRanges <= 0) {
            throw new IllegalArgumentException(hostRanges + " and " + deviceRanges + " ranges: both parts have some");
        }
        double host = hostRanges / (double) Math.max(1, hostNanos);
        double device = deviceRanges / (double) Math.max(1, deviceNanos);
        double balance = host / (host + device);
        share = Math.clamp(share + GAIN * (balance - share), MIN_SHARE, MAX_SHARE);
        batches++;
    }

    /** For {@code devicePath}: e.g. "0.42 of each batch on the host (after 12 batches)". */
    synchronized String describe() {
        return String.format(Locale.ROOT, "%.2f of each batch's ranges on the host (%s)", share,
                batches == 0 ? "to start with" : "after " + batches + (batches == 1 ? " batch" : " batches"));
    }
}
