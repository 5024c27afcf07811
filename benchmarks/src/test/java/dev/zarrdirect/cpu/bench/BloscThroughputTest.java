// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import static org.junit.jupiter.api.Assertions.*;

/** Runs the harness small, for its plumbing: no timing is asserted (see DESIGN.md). */
class BloscThroughputTest {

    @Test
    void harnessDecodesItsChunksAndReportsTheRatioAndRate() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        double gbps = BloscThroughput.decodeGBps(1 << 20, 64 << 10, "lz4", "shuffle", 5, new PrintStream(log, true));
        assertTrue(gbps > 0 && Double.isFinite(gbps), "rate " + gbps);
        String text = log.toString();
        assertTrue(text.contains("16 chunks of 65536 bytes, ratio") && text.contains("GB/s"), text);
        assertThrows(IllegalArgumentException.class,
                () -> BloscThroughput.decodeGBps(100, 6, "lz4", "shuffle", 5, System.out));
    }
}
