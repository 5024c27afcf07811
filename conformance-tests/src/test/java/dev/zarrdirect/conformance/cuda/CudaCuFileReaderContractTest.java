// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.io.CuFile;
import dev.zarrdirect.cuda.io.CuFileReader;
import dev.zarrdirect.testing.BackendContract.Placement;
import dev.zarrdirect.testing.DirectReaderContract;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The cuFile (GPUDirect Storage) reader holds to the DirectReader contract, whichever path (cuFile
 * or its pread fallback) serves each file; skipped where libcufile does not load. The files go under
 * {@value CudaDirectReaderTest#DIR_PROPERTY} (default {@code target}): {@code /tmp} may be a file
 * system that cuFile cannot register.
 */
class CudaCuFileReaderContractTest extends DirectReaderContract {

    @Override
    protected Backend openBackend() {
        if (CuFile.load().isEmpty()) {
            Assumptions.abort("cuFile unavailable: " + CuFile.failure());
        }
        return CudaTests.open();
    }

    @Override
    protected void assertNoLiveBuffers(Backend backend) {
        ((CudaBackend) backend).assertNoLiveBuffers();
    }

    @Override
    protected DirectReader newReader(Backend backend) {
        return CuFileReader.open((CudaBackend) backend, 4, 1 << 20);
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
