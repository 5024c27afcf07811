// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.settings.ResolvedSetting;
import dev.zarrdirect.api.settings.SettingValues;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class CpuSettingsTest {

    @Test
    void theProviderParsesItsSettingsWhenTheBackendStarts() {
        try (CpuBackend b = new CpuBackendProvider().open(SettingValues.builder().set("trackBuffers", "true")
                .set("cpu.poolRetainedBytes", "64m").set("decodeDepth", "4").build())) {
            assertTrue(b.pool().isTracking());
            List<String> lines = b.settings().stream().map(ResolvedSetting::describe).toList();
            assertEquals(List.of("cpu.poolRetainedBytes = 64m (explicit)", "trackBuffers = true (explicit)"), lines,
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
}
