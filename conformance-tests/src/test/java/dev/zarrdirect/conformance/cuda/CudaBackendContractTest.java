// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.testing.BackendContract;

import java.util.List;

/**
 * The CUDA backend holds to the Backend contract for each kind it has: device, pinned host,
 * managed and pageable host memory. Skipped without a GPU ({@code ZD_REQUIRE_CUDA=1} fails instead).
 */
class CudaBackendContractTest extends BackendContract {

    @Override
    protected Backend openBackend() {
        return CudaTests.open();
    }

    @Override
    protected void assertNoLiveBuffers(Backend backend) {
        ((CudaBackend) backend).assertNoLiveBuffers();
    }

    @Override
    protected List<Placement> placements(Backend backend) {
        Device cuda0 = backend.defaultDevice();
        return List.of(new Placement(cuda0, MemoryKind.DEVICE), new Placement(cuda0, MemoryKind.HOST_PINNED),
                new Placement(cuda0, MemoryKind.MANAGED), new Placement(Device.CPU, MemoryKind.HOST));
    }
}
