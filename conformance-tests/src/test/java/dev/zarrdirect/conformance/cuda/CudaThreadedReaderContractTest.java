// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.io.ThreadedReader;
import dev.zarrdirect.testing.BackendContract.Placement;
import dev.zarrdirect.testing.DirectReaderContract;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The threaded pread reader (pinned bounce buffers, then copies) holds to the DirectReader contract.
 * The files go where {@link CudaDirectReaderTest}'s go.
 */
class CudaThreadedReaderContractTest extends DirectReaderContract {

    @Override
    protected Backend openBackend() {
        return CudaTests.open();
    }

    @Override
    protected void assertNoLiveBuffers(Backend backend) {
        ((CudaBackend) backend).assertNoLiveBuffers();
    }

    @Override
    protected DirectReader newReader(Backend backend) {
        return new ThreadedReader((CudaBackend) backend, 4, 1 << 20);
    }

    @Override
    protected Placement destinationMemory(Backend backend) {
        return new Placement(backend.defaultDevice(), MemoryKind.DEVICE);
    }

    @Override
    protected Placement hostMemory(Backend backend) {
        return new Placement(backend.defaultDevice(), MemoryKind.HOST_PINNED);
    }

    @Override
    protected Path fileDirectory(Path tempDir) throws IOException {
        return Files.createDirectories(Path.of(System.getProperty(CudaDirectReaderTest.DIR_PROPERTY, "target"))
                .toAbsolutePath());
    }
}
