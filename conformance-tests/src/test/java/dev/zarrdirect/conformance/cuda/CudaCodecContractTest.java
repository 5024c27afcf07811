// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.testing.BackendContract.Placement;
import dev.zarrdirect.testing.DeviceCodecContract;

/**
 * Every CUDA codec decodes what the CPU decodes, rejects what it rejects and writes only its
 * output (the shared device-codec contract). CUDA specifics (every zstd level up to 8 MiB, batches
 * of hundreds of frames, delta in place at unaligned addresses) stay in {@link CudaCodecsMatchCpuTest}.
 */
class CudaCodecContractTest extends DeviceCodecContract {

    @Override
    protected Backend openBackend() {
        return CudaTests.open();
    }

    @Override
    protected void assertNoLiveBuffers(Backend backend) {
        ((CudaBackend) backend).assertNoLiveBuffers();
    }

    @Override
    protected Placement codecMemory(Backend backend) {
        return new Placement(backend.defaultDevice(), MemoryKind.DEVICE);
    }

    @Override
    protected Placement hostMemory(Backend backend) {
        return new Placement(backend.defaultDevice(), MemoryKind.HOST_PINNED);
    }
}
