// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.backend;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cpu.CpuBackend;
import dev.zarrdirect.cpu.CpuBackendProvider;
import dev.zarrdirect.testing.BackendContract;

import java.util.List;

/** The CPU backend holds to the Backend contract: pooled host memory of both host kinds. */
class CpuBackendContractTest extends BackendContract {

    @Override
    protected Backend openBackend() {
        CpuBackend b = new CpuBackendProvider().open();
        b.trackBuffers(true);
        return b;
    }

    @Override
    protected void assertNoLiveBuffers(Backend backend) {
        ((CpuBackend) backend).assertNoLiveBuffers();
    }

    @Override
    protected List<Placement> placements(Backend backend) {
        return List.of(new Placement(Device.CPU, MemoryKind.HOST), new Placement(Device.CPU, MemoryKind.HOST_PINNED));
    }
}
