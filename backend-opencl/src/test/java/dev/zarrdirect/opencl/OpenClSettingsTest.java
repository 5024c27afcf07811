// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingValues;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class OpenClSettingsTest {

    private static OpenClSettings parse(Map<String, String> explicit) {
        return OpenClSettings.from(new SettingResolver(SettingValues.of(explicit), n -> null, n -> null));
    }

    @Test
    void theZstdPolicyKeepsTheDefaultsAndThePoclWorkaround() {
        OpenClSettings d = parse(Map.of());
        assertEquals(new OpenClSettings.ZstdPolicy(64, "-cl-opt-disable"), d.zstdPolicy("Portable Computing Language"));
        assertEquals(new OpenClSettings.ZstdPolicy(64, ""), d.zstdPolicy("NVIDIA CUDA"));
        OpenClSettings s = parse(Map.of("opencl.zstdBuildOptions", "", "opencl.zstdLocalSize", "32"));
        assertEquals(new OpenClSettings.ZstdPolicy(32, ""), s.zstdPolicy("Portable Computing Language"),
                "empty options set explicitly replace the PoCL default");
    }

    @Test
    void inflateSplitsOnGpusUnlessSetAndStaysOffOnOtherDevices() {
        OpenClSettings d = parse(Map.of());
        assertEquals(64 << 10, d.inflateSplitBytes(true));
        assertEquals(0, d.inflateSplitBytes(false), "a CPU device leaves large streams to the host path");
        OpenClSettings off = parse(Map.of("opencl.inflateSplitBytes", "0"));
        assertEquals(0, off.inflateSplitBytes(true));
        OpenClSettings on = parse(Map.of("opencl.inflateSplitBytes", "16k"));
        assertEquals(16 << 10, on.inflateSplitBytes(false));
        assertThrows(InvalidSettingException.class, () -> parse(Map.of("opencl.inflateSplitBytes", "256m")));
    }

    @Test
    void queuesDefaultToFourAndAreBounded() {
        assertEquals(4, parse(Map.of()).queues());
        assertEquals(1, parse(Map.of("opencl.queues", "1")).queues());
        assertThrows(InvalidSettingException.class, () -> parse(Map.of("opencl.queues", "0")));
        assertThrows(InvalidSettingException.class, () -> parse(Map.of("opencl.queues", "65")));
    }

    @Test
    void badValuesFailWhenTheBackendWouldStart() {
        var e = assertThrows(InvalidSettingException.class, () -> parse(Map.of("opencl.zstdLocalSize", "0")));
        assertEquals("zarrdirect.opencl.zstdLocalSize = \"0\": expected an integer 1..1024", e.getMessage());
        assertThrows(InvalidSettingException.class, () -> parse(Map.of("opencl.device", " ")));
    }
}
