// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import static org.junit.jupiter.api.Assertions.*;

/** Runs the harness small, for its plumbing: no timing is asserted (see DESIGN.md). */
class ZstdThroughputTest {

    @Test
    void harnessDecodesItsChunksAndReportsTheRatioAndRate() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        double gbps = ZstdThroughput.decodeGBps(1 << 20, 64 << 10, 1, new PrintStream(log, true));
        assertTrue(gbps > 0 && Double.isFinite(gbps), "rate " + gbps);
        String text = log.toString();
        assertTrue(text.contains("16 chunks of 65536 bytes, ratio") && text.contains("GB/s"), text);
        assertThrows(IllegalArgumentException.class, () -> ZstdThroughput.decodeGBps(100, 6, 1, System.out));
    }
}
