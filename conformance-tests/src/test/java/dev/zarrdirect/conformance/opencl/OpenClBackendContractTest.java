// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.testing.BackendContract;

import java.util.List;

/**
 * The OpenCL backend holds to the Backend contract: device buffers (cl_mem handles, no address),
 * and host and pinned host memory. Skipped without an OpenCL platform; CI runs it on PoCL with
 * {@code ZD_REQUIRE_OPENCL=1}.
 */
class OpenClBackendContractTest extends BackendContract {

    @Override
    protected Backend openBackend() {
        return OpenClHarness.openBackendOrSkip();
    }

    @Override
    protected void assertNoLiveBuffers(Backend backend) {
        ((OpenClBackend) backend).assertNoLiveBuffers();
    }

    @Override
    protected List<Placement> placements(Backend backend) {
        return List.of(new Placement(backend.defaultDevice(), MemoryKind.DEVICE),
                new Placement(Device.CPU, MemoryKind.HOST), new Placement(Device.CPU, MemoryKind.HOST_PINNED));
    }
}
