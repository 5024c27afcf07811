// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.testing.BackendContract.Placement;
import dev.zarrdirect.testing.DeviceCodecContract;

/**
 * Every OpenCL codec decodes what the CPU decodes, rejects what it rejects and writes only its
 * output (the shared device-codec contract). OpenCL specifics (the three batch layouts, zstd frame
 * kinds, delta in place) stay in {@link OpenClCodecsMatchCpuTest}.
 */
class OpenClCodecContractTest extends DeviceCodecContract {

    @Override
    protected Backend openBackend() {
        return OpenClHarness.openBackendOrSkip();
    }

    @Override
    protected void assertNoLiveBuffers(Backend backend) {
        ((OpenClBackend) backend).assertNoLiveBuffers();
    }

    @Override
    protected Placement codecMemory(Backend backend) {
        return new Placement(backend.defaultDevice(), MemoryKind.DEVICE);
    }

    @Override
    protected Placement hostMemory(Backend backend) {
        return new Placement(Device.CPU, MemoryKind.HOST);
    }
}
