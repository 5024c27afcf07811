// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The share of a batch the host decodes beside the device: where it starts, where it goes, its bounds. */
class HostShareTest {

    /** Runs batches of {@code ranges} ranges against sides that decode a range in the given nanoseconds. */
    private static void run(HostShare s, int batches, int ranges, long hostPerRange, long devicePerRange) {
        for (int b = 0; b < batches; b++) {
            int h = s.hostRanges(ranges);
            s.ended(h, h * hostPerRange, ranges - h, (ranges - h) * devicePerRange);
        }
    }

    @Test
    void itSettlesWhereBothPartsEndTogether() {
        // the device three times the host's rate: a quarter of the ranges on the host
        HostShare s = new HostShare();
        assertEquals(HostShare.START, s.share());
        run(s, 30, 128, 3_000_000, 1_000_000);
        assertEquals(0.25, s.share(), 0.01);
        assertEquals(32, s.hostRanges(128));
        // the host becomes as fast as the device (the device busy with other work, say): half and half
        run(s, 30, 128, 1_000_000, 1_000_000);
        assertEquals(0.5, s.share(), 0.01);
        assertTrue(s.describe().matches("0\\.50 of each batch's ranges on the host \\(after 60 batches\\)"), s.describe());
    }

    @Test
    void oneSlowBatchMovesItHalfTheWay() {
        HostShare s = new HostShare();
        run(s, 20, 100, 1_000_000, 1_000_000);
        double before = s.share();
        // the host part stalled 9x (a collection): the balance says 0.1; the share goes half the way
        int h = s.hostRanges(100);
        s.ended(h, h * 9_000_000L, 100 - h, (100 - h) * 1_000_000L);
        assertEquals(before + HostShare.GAIN * (0.1 - before), s.share(), 1e-9);
    }

    @Test
    void neitherSideIsEverLeftOut() {
        HostShare s = new HostShare();
        run(s, 50, 64, 1_000_000_000, 1); // the host hopeless
        assertEquals(HostShare.MIN_SHARE, s.share(), 1e-12);
        assertEquals(4, s.hostRanges(64), "a sixteenth stays on the host, so its rate stays known");
        run(s, 50, 64, 1, 1_000_000_000); // the device hopeless
        assertEquals(HostShare.MAX_SHARE, s.share(), 1e-12);
        assertEquals(60, s.hostRanges(64));
        // two ranges: one each way while the host is the faster
        assertEquals(1, s.hostRanges(2));
        run(s, 50, 64, 1_000_000_000, 1);
        // the host hopeless: one range of 2 or 3 would hold the batch up past the device's whole time
        assertEquals(0, s.hostRanges(2));
        assertEquals(0, s.hostRanges(3));
    }

    @Test
    void aBatchTooCoarseToCutGoesOneWay() {
        // the host's cores a quarter as fast as the device a range: the balance is 0.2
        HostShare s = new HostShare();
        run(s, 40, 64, 4_000_000, 1_000_000);
        assertEquals(0.2, s.share(), 0.01);
        // 64 ranges: 13 on the host end in 52 ms, the other 51 on the device in 51: shared
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
    void nonsenseIsRefused() {
        HostShare s = new HostShare();
        assertThrows(IllegalArgumentException.class, () -> s.hostRanges(1));
        assertThrows(IllegalArgumentException.class, () -> s.ended(0, 10, 5, 10));
        assertThrows(IllegalArgumentException.class, () -> s.ended(5, 10, 0, 10));
        // a part timed at zero nanoseconds (a clock that did not move) counts as one
        s.ended(1, 0, 1, 0);
        assertEquals(HostShare.START + HostShare.GAIN * (0.5 - HostShare.START), s.share(), 1e-12);
    }
}
