// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.backend;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cpu.CpuBackend;
import dev.zarrdirect.cpu.CpuBackendProvider;
import dev.zarrdirect.testing.BackendContract.Placement;
import dev.zarrdirect.testing.DeviceCodecContract;

/**
 * The device-codec contract on the CPU backend, against itself: it proves the contract's harness
 * (batches of slices, guard bytes, damaged frames) on the reference, so that a failure on a device
 * backend is the device's.
 */
class CpuCodecContractTest extends DeviceCodecContract {

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
    protected Placement codecMemory(Backend backend) {
        return new Placement(Device.CPU, MemoryKind.HOST);
    }

    @Override
    protected Placement hostMemory(Backend backend) {
        return new Placement(Device.CPU, MemoryKind.HOST);
    }
}
