// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingValues;
import dev.zarrdirect.cuda.codec.ZstdKernelPolicy;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The CUDA backend's settings without a GPU: the defaults measured on the H200 stay what they were. */
class CudaSettingsTest {

    private static CudaSettings parse(Map<String, String> explicit, Map<String, String> env) {
        return CudaSettings.from(new SettingResolver(SettingValues.of(explicit), n -> null, env::get));
    }

    @Test
    void theDefaultsAreTheMeasuredValues() {
        CudaSettings d = CudaSettings.defaults();
        assertEquals(new CudaSettings(CudaSettings.DERIVED, 1L << 30, 128, 1L << 30, "auto", 8, 4L << 20, false, 8,
                16L << 20, false, "auto", null, false, CudaSettings.DERIVED, 64L << 10, true,
                ZstdKernelPolicy.Overrides.NONE), d);
        assertEquals(1L << 30, d.bloscScratchBytes(80L << 30), "1 GiB on an H100");
        assertEquals(512L << 20, d.bloscScratchBytes(16L << 30), "512 MiB on a 16 GiB card");
        assertEquals(4L << 30, d.poolRetainedBytes(8L << 30), "at least 4 GiB");
        assertEquals(141L << 30 >> 2, d.poolRetainedBytes(141L << 30), "a quarter of an H200's memory");
    }

    @Test
    void valuesComeFromExplicitThenEnvironment() {
        CudaSettings s = parse(Map.of("cuda.batchBytes", "512m", "zarrdirect.cuda.reader", "cufile",
                        "cuda.bloscScratchBytes", "1g", "zarrdirect.cuda.inflateSplitBytes", "0"),
                Map.of("ZARRDIRECT_CUDA_BATCH_BYTES", "2g", "ZARRDIRECT_CUDA_BATCH_SIZE", "64",
                        "ZARRDIRECT_CUDA_POOL_RETAINED_BYTES", "64g", "ZARRDIRECT_CUDA_ZSTD_MULTI_PASS_DEFER", "0"));
        assertEquals(512L << 20, s.batchBytes());
        assertEquals(64, s.batchSize());
        assertEquals("cufile", s.reader());
        assertEquals(1L << 30, s.bloscScratchBytes(8L << 30), "an explicit value holds on any device");
        assertEquals(0, s.inflateSplitBytes(), "0 turns splitting off");
        assertEquals(64L << 30, s.poolRetainedBytes(8L << 30));
        assertEquals(0L, s.zstd().deferBlocks());
        assertNull(s.zstd().window(), "not set: the device decides");
    }

    @Test
    void badValuesFailWithTheNameAndWhatIsAccepted() {
        var e = assertThrows(InvalidSettingException.class, () -> parse(Map.of("cuda.reader", "gds"), Map.of()));
        assertEquals("zarrdirect.cuda.reader = \"gds\": expected one of auto, threaded, cufile", e.getMessage());
        e = assertThrows(InvalidSettingException.class, () -> parse(Map.of(), Map.of("ZARRDIRECT_CUDA_SCHEDULE", "fast")));
        assertEquals("zarrdirect.cuda.schedule = \"fast\": expected one of auto, spin, yield, blocking (from the "
                + "environment variable ZARRDIRECT_CUDA_SCHEDULE)", e.getMessage());
        assertThrows(InvalidSettingException.class, () -> parse(Map.of("cuda.readerTaskBytes", "1k"), Map.of()));
        assertThrows(InvalidSettingException.class, () -> parse(Map.of("cuda.batchSize", "0"), Map.of()));
        // below 1 MiB is refused: a launch takes scratch for at least one group whatever this says
        assertThrows(InvalidSettingException.class, () -> parse(Map.of("cuda.bloscScratchBytes", "64k"), Map.of()));
    }

    @Test
    void theProviderListsEverySettingOnce() {
        var names = new HashSet<String>();
        CudaSettings.SETTINGS.forEach(s -> assertTrue(names.add(s.name()), s.name()));
        assertEquals(CudaSettings.SETTINGS, new CudaBackendProvider().settings());
        assertEquals(17, ZstdKernelPolicy.SETTINGS.size());
        assertTrue(names.containsAll(java.util.List.of("zarrdirect.cuda.zstdThreads", "zarrdirect.cuda.zstdMultiPassMin",
                "zarrdirect.cuda.zstdMultiPassSeqAbove", "zarrdirect.trackBuffers", "zarrdirect.cuda.kernelImage",
                "zarrdirect.cuda.bloscScratchBytes")));
    }
}
