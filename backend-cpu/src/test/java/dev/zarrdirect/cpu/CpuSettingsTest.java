// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.settings.ResolvedSetting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingSource;
import dev.zarrdirect.api.settings.SettingValues;
import dev.zarrdirect.cpu.codec.bytestobytes.BloscCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.GzipCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.ZlibCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdCodec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class CpuSettingsTest {

    @Test
    void theProviderParsesItsSettingsWhenTheBackendStarts() {
        try (CpuBackend b = new CpuBackendProvider().open(SettingValues.builder().set("trackBuffers", "true")
                .set("cpu.poolRetainedBytes", "64m").set("decodeDepth", "4").build())) {
            assertTrue(b.pool().isTracking());
            List<String> lines = b.settings().stream().map(ResolvedSetting::describe).toList();
            assertEquals(List.of("cpu.poolRetainedBytes = 64m (explicit)", "cpu.zstdStreamCheck = true (default)",
                    "cpu.hugePages = true (default)", "cpu.libdeflate = true (default)", "trackBuffers = true (explicit)"),
                    lines,
                    "only the backend's own settings; core's are the context's");
        }
        try (CpuBackend b = new CpuBackendProvider().open()) {
            assertEquals(CpuSettings.defaults().poolRetainedBytes(), b.settings().getFirst().value());
        }
    }

    @Test
    void aBadValueFailsTheStart() {
        var e = assertThrows(InvalidSettingException.class, () -> new CpuBackendProvider()
                .open(SettingValues.builder().set("trackBuffers", "yes").build()));
        assertEquals("zarrdirect.trackBuffers = \"yes\": expected true or false", e.getMessage());
        assertEquals(CpuSettings.SETTINGS, new CpuBackendProvider().settings());
    }

    @Test
    void theZstdStreamCheckIsOnUnlessSetAndExplicitBeatsPropertyBeatsEnvironment() {
        String name = "zarrdirect.cpu.zstdStreamCheck";
        String env = "ZARRDIRECT_CPU_ZSTD_STREAM_CHECK";
        assertEquals(env, CpuSettings.ZSTD_STREAM_CHECK.env());
        assertTrue(CpuSettings.defaults().zstdStreamCheck());
        assertStreamCheck(true, SettingSource.DEFAULT, new SettingResolver(SettingValues.none(), p -> null, e -> null));
        assertStreamCheck(false, SettingSource.ENVIRONMENT, new SettingResolver(SettingValues.none(), p -> null,
                Map.of(env, "false")::get));
        assertStreamCheck(true, SettingSource.SYSTEM_PROPERTY, new SettingResolver(SettingValues.none(),
                Map.of(name, "TRUE")::get, Map.of(env, "false")::get));
        assertStreamCheck(false, SettingSource.EXPLICIT, new SettingResolver(
                SettingValues.builder().set("cpu.zstdStreamCheck", "false").build(), Map.of(name, "true")::get,
                e -> null));
        var e = assertThrows(InvalidSettingException.class, () -> CpuSettings.from(new SettingResolver(
                SettingValues.none(), p -> null, Map.of(env, "off")::get)));
        assertEquals("zarrdirect.cpu.zstdStreamCheck = \"off\": expected true or false (from the environment variable "
                + env + ")", e.getMessage());
    }

    private static void assertStreamCheck(boolean on, SettingSource source, SettingResolver r) {
        assertEquals(on, CpuSettings.from(r).zstdStreamCheck());
        ResolvedSetting<?> s = SettingResolver.byName(r.resolved()).get("zarrdirect.cpu.zstdStreamCheck");
        assertEquals(source, s.source(), s.describe());
    }

    @Test
    void theServiceLoaderInstanceReadsTheSystemPropertyWhenItMakesItsFirstCodec() {
        CpuCodecProvider provider = new CpuCodecProvider();
        withProperty("false", () -> {
            assertFalse(((ZstdCodec) provider.create("zstd", Map.of(), Device.CPU).orElseThrow()).streamCheck());
            return null;
        });
        assertFalse(((BloscCodec) provider.create("blosc", Map.of(), Device.CPU).orElseThrow()).zstdStreamCheck(),
                "read once: the property cleared later does not change the provider");
        assertTrue(((ZstdCodec) new CpuCodecProvider().create("zstd", Map.of(), Device.CPU).orElseThrow()).streamCheck());
        // a bad value does not stop ServiceLoader from making the provider; its first codec names the value
        CpuCodecProvider typo = withProperty("nope", CpuCodecProvider::new);
        var e = assertThrows(InvalidSettingException.class,
                () -> withProperty("nope", () -> typo.create("zstd", Map.of(), Device.CPU)));
        assertEquals("zarrdirect.cpu.zstdStreamCheck = \"nope\": expected true or false (from the system property"
                + " -Dzarrdirect.cpu.zstdStreamCheck)", e.getMessage());
    }

    private static <T> T withProperty(String value, java.util.function.Supplier<T> body) {
        String name = CpuSettings.ZSTD_STREAM_CHECK.name();
        String before = System.getProperty(name);
        System.setProperty(name, value);
        try {
            return body.get();
        } finally {
            if (before == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, before);
            }
        }
    }

    @Test
    void libdeflateFalseReachesEveryInflatingCodecOfTheBackend() {
        try (CpuBackend b = new CpuBackendProvider().open(SettingValues.builder().set("cpu.libdeflate", "false").build())) {
            CpuCodecProvider codecs = b.codecs();
            assertFalse(((ZlibCodec) codecs.create("zlib", Map.of(), Device.CPU).orElseThrow()).libdeflate());
            assertFalse(((GzipCodec) codecs.create("gzip", Map.of(), Device.CPU).orElseThrow()).libdeflate());
            assertFalse(((BloscCodec) codecs.create("blosc", Map.of(), Device.CPU).orElseThrow()).libdeflate());
        }
        assertTrue(CpuSettings.defaults().libdeflate());
        assertTrue(((ZlibCodec) new CpuCodecProvider().create("numcodecs.zlib", Map.of(), Device.CPU).orElseThrow())
                .libdeflate());
    }

    @Test
    void hugePagesFalseLeavesTheBackendsLargeBuffersOnSmallPages() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(NativeBlocksTest.thpOnAdviceOnly(),
                "transparent huge pages on advice only (Linux, THP mode madvise)");
        long size = 64L << 20;
        for (boolean huge : new boolean[]{true, false}) {
            try (CpuBackend b = new CpuBackendProvider().open(SettingValues.builder()
                    .set("cpu.hugePages", Boolean.toString(huge)).set("cpu.poolRetainedBytes", "0").build());
                 dev.zarrdirect.api.buffer.HostBuffer buf = b.allocate(dev.zarrdirect.api.Device.CPU,
                         dev.zarrdirect.api.buffer.MemoryKind.HOST, size)) {
                java.lang.foreign.MemorySegment s = buf.segment();
                for (long at = 0; at < size; at += 4096) {
                    s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at, (byte) 1);
                }
                long inHuge = NativeBlocksTest.anonHugeBytes(s.address() + size / 2);
                if (huge) {
                    assertTrue(inHuge >= 8L << 20, "cpu.hugePages=true: " + inHuge + " bytes in huge pages");
                } else {
                    assertEquals(0, inHuge, "cpu.hugePages=false");
                }
            }
        }
    }
}
