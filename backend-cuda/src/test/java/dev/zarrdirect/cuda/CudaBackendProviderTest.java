// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda;

import dev.zarrdirect.api.MissingBackendException;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.cuda.driver.CudaDriver;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class CudaBackendProviderTest {

    static boolean driverInstalled() {
        for (String dir : List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64",
                "/usr/lib/aarch64-linux-gnu")) {
            if (Files.exists(Path.of(dir, CudaDriver.LIBRARY))) {
                return true;
            }
        }
        return CudaDriver.load().isPresent();
    }

    @Test
    void probeNeverThrowsAndAnswersInOneSentence() {
        ProbeResult p = assertDoesNotThrow(() -> new CudaBackendProvider().probe());
        assertNotNull(p.reason());
        assertFalse(p.reason().contains("\n"), p.reason());
        assertTrue(p.reason().startsWith("CUDA"), p.reason());
        if (p.available()) {
            assertFalse(p.devices().isEmpty());
        }
    }

    @Test
    void probeWithoutADriverNamesTheMissingLibrary() {
        if (driverInstalled()) {
            return; // the GPU machine: the conformance tests cover the available case
        }
        ProbeResult p = new CudaBackendProvider().probe();
        assertFalse(p.available());
        assertEquals("CUDA: libcuda.so.1 not found (no NVIDIA driver installed)", p.reason());
        assertTrue(p.devices().isEmpty());
    }

    @Test
    void openWithoutADriverThrowsMissingBackendWithTheProbeReason() {
        ProbeResult p = new CudaBackendProvider().probe();
        if (p.available()) {
            return;
        }
        MissingBackendException e = assertThrows(MissingBackendException.class, () -> new CudaBackendProvider().open());
        assertEquals(p.reason(), e.getMessage());
    }

    @Test
    void nameAndPriority() {
        assertEquals("cuda", new CudaBackendProvider().name());
        assertEquals(30, new CudaBackendProvider().priority());
    }

    @Test
    void serviceLoaderFindsTheProviders() {
        assertTrue(java.util.ServiceLoader.load(dev.zarrdirect.api.backend.BackendProvider.class).stream()
                .anyMatch(p -> p.type() == CudaBackendProvider.class));
        assertTrue(java.util.ServiceLoader.load(dev.zarrdirect.api.codec.CodecProvider.class).stream()
                .anyMatch(p -> p.type() == CudaCodecProvider.class));
    }

    @Test
    void theServiceLoadedCodecProviderOffersNothingWithoutCuda() {
        CudaCodecProvider p = new CudaCodecProvider();
        assertEquals("cuda", p.name());
        if (!new CudaBackendProvider().probe().available()) {
            assertTrue(p.codecNames().isEmpty());
            assertTrue(p.create("zstd", java.util.Map.of(), new dev.zarrdirect.api.Device(
                    dev.zarrdirect.api.DeviceType.CUDA, 0)).isEmpty());
        }
    }

    @Test
    void managedAllocationsBeyondFreeMemoryAreRefusedWithTheNumbers() {
        var e = assertThrows(dev.zarrdirect.cuda.driver.CudaException.class,
                () -> CudaBackend.checkManagedFits("cuda:0 (H200)", 200L << 30, 100L << 30, 140L << 30));
        assertTrue(e.getMessage().contains("200 GiB"), e.getMessage());
        assertTrue(e.getMessage().contains("only 100 GiB of 140 GiB are free"), e.getMessage());
        assertDoesNotThrow(() -> CudaBackend.checkManagedFits("cuda:0", 1 << 20, 100L << 30, 140L << 30));
    }
}
