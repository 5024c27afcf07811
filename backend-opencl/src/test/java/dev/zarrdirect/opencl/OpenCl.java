// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.backend.ProbeResult;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Opens the OpenCL backend for a test, or skips with the probe's reason (fails instead with ZD_REQUIRE_OPENCL=1). */
final class OpenCl {

    private OpenCl() {
    }

    static OpenClBackend openOrSkip() {
        OpenClBackendProvider p = new OpenClBackendProvider();
        ProbeResult r = p.probe();
        if (!r.available()) {
            if ("1".equals(System.getenv("ZD_REQUIRE_OPENCL"))) {
                fail("ZD_REQUIRE_OPENCL=1 but OpenCL is unavailable: " + r.reason());
            }
            assumeTrue(false, r.reason());
        }
        OpenClBackend b = p.open();
        b.trackBuffers(true);
        return b;
    }
}
