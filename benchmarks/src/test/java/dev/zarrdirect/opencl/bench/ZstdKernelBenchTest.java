// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.bench;

import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.OpenClBackendProvider;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClZstdCodec;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ZstdKernelBenchTest {

    @Test
    void benchDecodesVerifiesAndReportsTheWallFigure() {
        OpenClBackendProvider p = new OpenClBackendProvider();
        ProbeResult r = p.probe();
        assumeTrue(r.available() || "1".equals(System.getenv("ZD_REQUIRE_OPENCL")), r.reason());
        assumeTrue(OpenClZstdCodec.kernelAvailable(), "no zstd kernel on the class path");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OpenClBackend b = p.open()) {
            var result = ZstdKernelBench.run(b, 3, 4096, 3, 1, new PrintStream(out, true, StandardCharsets.UTF_8));
            assertTrue(result.wallGBps() > 0, result.toString());
            assertTrue(b.liveBuffers() == 0);
        }
        String log = out.toString(StandardCharsets.UTF_8);
        assertTrue(log.contains("3 frames of 4096 bytes") && log.contains("GB/s wall per batch call"), log);
    }
}
