// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The share of a batch the host decodes beside the device: where it starts, where it goes, its
 * bounds, and the batches too coarse to share.
 */
class HostShareTest {

    /**
     * Runs batches of {@code ranges} ranges against a host whose lanes take {@code hostPerRange}
     * nanoseconds a range ({@code lanes} at once) and a device that takes {@code devicePerRange} a
     * range; returns how many were shared.
     */
    private static int run(HostShare s, int lanes, int batches, int ranges, long hostPerRange, long devicePerRange) {
        int shared = 0;
        for (int b = 0; b < batches; b++) {
            int h = s.hostRanges(ranges);
            if (h > 0) {
                s.ended(h, (h + lanes - 1) / lanes * hostPerRange, ranges - h, (ranges - h) * devicePerRange);
                shared++;
            }
        }
        return shared;
    }

    /** As {@link #run(HostShare, int, int, int, long, long)} for a host part on one lane. */
    private static int run(HostShare s, int batches, int ranges, long hostPerRange, long devicePerRange) {
        return run(s, 1, batches, ranges, hostPerRange, devicePerRange);
    }

    @Test
    void itSettlesWhereBothPartsEndTogether() {
        // the device three times the host's rate: a quarter of the ranges on the host
        HostShare s = new HostShare(1);
        assertEquals(HostShare.START, s.share());
        assertEquals(30, run(s, 30, 128, 3_000_000, 1_000_000));
        assertEquals(0.25, s.share(), 0.01);
        assertEquals(32, s.hostRanges(128));
        // the host becomes as fast as the device (the device busy with other work, say): half and half
        run(s, 29, 128, 1_000_000, 1_000_000);
        assertEquals(0.5, s.share(), 0.01);
        assertTrue(s.describe().matches("0\\.50 of each batch's ranges on the host \\(after 59 batches\\)"), s.describe());
    }

    @Test
    void oneSlowBatchMovesItHalfTheWay() {
        HostShare s = new HostShare(1);
        run(s, 20, 100, 1_000_000, 1_000_000);
        double before = s.share();
        // the host part stalled 9x (a collection): the balance says 0.1; the share goes half the way
        int h = s.hostRanges(100);
        s.ended(h, h * 9_000_000L, 100 - h, (100 - h) * 1_000_000L);
        assertEquals(before + HostShare.GAIN * (0.1 - before), s.share(), 1e-9);
    }

    @Test
    void theShareStaysWithinItsBounds() {
        HostShare s = new HostShare(1);
        run(s, 50, 64, 1, 1_000_000_000); // the device hopeless
        assertEquals(HostShare.MAX_SHARE, s.share(), 1e-12);
        assertEquals(60, s.hostRanges(64), "a sixteenth stays on the device");
        assertEquals(1, s.hostRanges(2), "two ranges: one each way while the host is the faster");
        run(s, 400, 64, 1_000_000_000, 1); // the host hopeless: shared only on rechecks, which lower the share
        assertEquals(HostShare.MIN_SHARE, s.share(), 1e-12);
    }

    @Test
    void aBatchTooCoarseToCutGoesOneWay() {
        // the host's cores a quarter as fast as the device a range: the balance is 0.2
        HostShare s = new HostShare(1);
        assertEquals(40, run(s, 40, 64, 4_000_000, 1_000_000));
        assertEquals(0.2, s.share(), 0.01);
        // 64 ranges: 13 on the host end in 52 ms, the device would take 64 for all: shared
        assertEquals(13, s.hostRanges(64));
        // 3 ranges (3 large chunks): one on the host takes 4 ms, the device all three 3: one way; 2 too
        assertEquals(0, s.hostRanges(3));
        assertEquals(0, s.hostRanges(2));
        // 5: one on the host (4 ms) against the device's 5 for all: shared; 16: 3 (12) against 16
        assertEquals(1, s.hostRanges(5));
        assertEquals(3, s.hostRanges(16));
        // the share stays where it was: a batch that went one way says nothing about it
        assertEquals(0.2, s.share(), 0.01);
    }

    @Test
    void aFewLargeStreamsAreSharedOnceThenOnlyToRecheck() {
        // 66 MB zlib streams on an H200 host: one lane of eight takes 190 ms a stream (the others
        // idle), the device 20 ms a stream; batches of 4
        HostShare s = new HostShare(8);
        assertEquals(2, s.hostRanges(4), "no figures yet: the starting share");
        s.ended(2, 190_000_000, 2, 40_000_000);
        // one stream on the host (190 ms) outlasts the device's whole batch (80): declined, bar rechecks
        // after 3 declined, then 7, 15, 31, 63, 63...
        int[] shared = new int[400];
        for (int b = 0; b < shared.length; b++) {
            int h = s.hostRanges(4);
            if (h > 0) {
                shared[b] = 1;
                s.ended(h, 190_000_000, 4 - h, (4 - h) * 20_000_000L);
            }
        }
        assertEquals(1, shared[3]);
        assertEquals(0, shared[0] + shared[1] + shared[2] + shared[4] + shared[10]);
        assertEquals(1, shared[11]);
        assertEquals(1, shared[3 + 8 + 16 + 32 + 64 + 64]);
        int total = java.util.Arrays.stream(shared).sum();
        assertEquals(9, total, "rechecks back off to one batch in 64");
        assertTrue(s.describe().endsWith("on the host (after 10 batches, 391 more too coarse to share)"), s.describe());
        // a batch of 16 of them: its host part, a stream a lane, ends in 190 ms, before the device
        // would end all 16 (320)
        assertTrue(s.hostRanges(16) > 0);
    }

    @Test
    void aRecheckThatFindsTheHostFasterSharesAgain() {
        HostShare s = new HostShare(8);
        s.hostRanges(4);
        s.ended(2, 500_000_000, 2, 40_000_000); // a cold first batch: the host part ran 10x slow
        assertEquals(0, s.hostRanges(4));
        assertEquals(0, s.hostRanges(4));
        assertEquals(0, s.hostRanges(4));
        int h = s.hostRanges(4); // the recheck
        assertTrue(h > 0);
        s.ended(h, 15_000_000, 4 - h, (4 - h) * 20_000_000L); // warm: a stream in 15 ms
        assertTrue(s.hostRanges(4) > 0);
        assertTrue(s.hostRanges(4) > 0, "every batch shared again, not only rechecks");
    }

    @Test
    void aRangesTimeIsItsLanesShareOfThePart() {
        // the same batch, 2 ranges in 8 ms on the host: on one lane a range took 4 ms, on eight 8
        HostShare one = new HostShare(1);
        HostShare eight = new HostShare(8);
        one.hostRanges(4);
        eight.hostRanges(4);
        one.ended(2, 8_000_000, 2, 2_000_000);
        eight.ended(2, 8_000_000, 2, 2_000_000);
        assertEquals(one.share(), eight.share());
        // a batch of 5, which the device would decode in 5 ms
        assertTrue(one.hostRanges(5) > 0);
        assertEquals(0, eight.hostRanges(5));
    }

    @Test
    void nonsenseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new HostShare(0));
        HostShare s = new HostShare(1);
        assertThrows(IllegalArgumentException.class, () -> s.hostRanges(1));
        assertThrows(IllegalArgumentException.class, () -> s.ended(0, 10, 5, 10));
        assertThrows(IllegalArgumentException.class, () -> s.ended(5, 10, 0, 10));
        // a part timed at zero nanoseconds (a clock that did not move) counts as one
        s.ended(1, 0, 1, 0);
        assertEquals(HostShare.START + HostShare.GAIN * (0.5 - HostShare.START), s.share(), 1e-12);
    }
}
