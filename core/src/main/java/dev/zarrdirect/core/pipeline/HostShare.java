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
 * [{@value #MIN_SHARE}, {@value #MAX_SHARE}], so that neither side's figure goes stale.
 *
 * <p>A range decodes on one host core from start to end, so a batch of a few large ranges cannot be
 * cut finely: a batch of four 66 MB zlib streams, one or two of them on the host (one core each),
 * took 185-190 ms where the device alone took 86 (H200: 1.40-1.44 against 3.06-3.07 GB/s). So a
 * batch is shared only while one of its ranges on the host, by the last shared batch's figures (a
 * range's time on one of the host's lanes, the device's time a range), would end before the device
 * would have decoded the whole batch; else it goes one way ({@link PathChoice}). The
 * {@value #FIRST_RECHECK}th batch so declined is shared all the same, then the 8th after it, up to
 * every {@value #LAST_RECHECK}th, so that figures from one slow batch (a cold first one, a
 * collection) do not decide for good.
 * Thread-safe.
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
    /** Batches declined (too coarse to share) before the first one shared anyway to time both sides again. */
    static final int FIRST_RECHECK = 4;
    /** The most batches declined between two shared anyway. */
    static final int LAST_RECHECK = 64;

    /** Threads the host part decodes on: that many of its ranges decode at once. */
    private final int lanes;
    private double share = START;
    private long batches;
    /** From the last shared batch: one range's nanoseconds on one host lane, and the device's a range; -1 before. */
    private double hostRangeNanos = -1;
    private double deviceRangeNanos = -1;
    /** Batches declined since the last shared one, and how many are declined before the next recheck. */
    private int declined;
    private int recheckAfter = FIRST_RECHECK;
    /** Batches declined in all. */
    private long declinedTotal;

    /** A share for host parts that decode on {@code lanes} threads. */
    HostShare(int lanes) {
        if (lanes < 1) {
            throw new IllegalArgumentException(lanes + " lanes: the host part needs one or more");
        }
        this.lanes = lanes;
    }

    /** The share of the next batch's ranges that the host decodes. */
    synchronized double share() {
        return share;
    }

    /**
     * How many of {@code ranges} (at least 2) go to the host: the share of them, rounded, at least
     * one and leaving the device at least one; or 0, not shared, when by the last shared batch's
     * figures even one range on the host would take as long as the device would for the whole batch
     * (bar a recheck). A share too large for its batch is the share's to correct, batch by batch.
     */
    synchronized int hostRanges(int ranges) {
        if (ranges < 2) {
            throw new IllegalArgumentException(ranges + " ranges: a shared batch needs two or more");
        }
        int k = (int) Math.clamp(Math.round(share * ranges), 1, ranges - 1);
        if (hostRangeNanos < 0 || hostRangeNanos < ranges * deviceRangeNanos) {
            declined = 0;
            recheckAfter = FIRST_RECHECK;
            return k;
        }
        if (++declined < recheckAfter) {
            declinedTotal++;
            return 0;
        }
        declined = 0;
        recheckAfter = Math.min(2 * recheckAfter, LAST_RECHECK);
        return k;
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
        hostRangeNanos = Math.max(1, hostNanos) / (double) ((hostRanges + lanes - 1) / lanes);
        deviceRangeNanos = Math.max(1, deviceNanos) / (double) deviceRanges;
        batches++;
    }

    /**
     * For {@code devicePath}: e.g. "0.42 of each batch's ranges on the host (after 12 batches)", and
     * ", 40 more too coarse to share" when some went one way.
     */
    synchronized String describe() {
        return String.format(Locale.ROOT, "%.2f of each batch's ranges on the host (%s%s)", share,
                batches == 0 ? "to start with" : "after " + batches + (batches == 1 ? " batch" : " batches"),
                declinedTotal == 0 ? "" : ", " + declinedTotal + " more too coarse to share");
    }
}
