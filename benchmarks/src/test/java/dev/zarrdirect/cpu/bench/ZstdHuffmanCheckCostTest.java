// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs the harness small, for its plumbing: no timing is asserted (see DESIGN.md). */
class ZstdHuffmanCheckCostTest {

    @Test
    void harnessTimesLibzstdTheCodecAndTheCheckAndDescribesTheLiterals() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        ZstdHuffmanCheckCost.Rates rates = ZstdHuffmanCheckCost.measure(256 << 10, 2, 1, true, 0.01, 1,
                new PrintStream(log, true));
        assertTrue(rates.libzstd() > 0 && rates.codec() > 0 && rates.checkAlone() > 0, rates.toString());
        String text = log.toString();
        assertTrue(text.contains("level 1, checksum true, 2 chunks of 256 KiB") && text.contains("Huffman literals")
                && text.contains("check alone"), text);
    }
}
