// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.benchmarks;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import static org.junit.jupiter.api.Assertions.*;

/** Runs the gather bench small, for its plumbing: no timing is asserted. */
class GatherBenchTest {

    @Test
    void theBenchGathersEveryOutputTypeAndReportsRates() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (CpuBackend b = new CpuBackend()) {
            double gbps = GatherBench.run(b, 3, 5000, DataType.FLOAT64, 0.01, new PrintStream(log, true));
            assertTrue(gbps > 0 && Double.isFinite(gbps), "rate " + gbps);
            b.assertNoLiveBuffers();
        }
        String text = log.toString();
        assertTrue(text.contains("to bfloat16") && text.contains("runOnHost") && text.contains("GB/s moved"), text);
    }
}
