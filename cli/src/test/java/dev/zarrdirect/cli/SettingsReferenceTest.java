// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.settings.Setting;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

class SettingsReferenceTest {

    private static final Path DOC = Path.of("..", "docs", "settings.md");

    @Test
    void theCommittedReferenceIsWhatTheDescriptorsPrint() throws IOException {
        String now = SettingsReference.markdown();
        if (Boolean.getBoolean("zd.updateSnapshots")) {
            Files.writeString(DOC, now, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(DOC) ? Files.readString(DOC, StandardCharsets.UTF_8) : "";
        assertEquals(now, committed, "docs/settings.md is out of date with the Setting descriptors; regenerate it with: "
                + "mvn -B -q -pl cli -am test -Dtest=SettingsReferenceTest -Dsurefire.failIfNoSpecifiedTests=false "
                + "-Dzd.updateSnapshots=true");
    }

    @Test
    void everySettingIsListedOnceWithAUniqueEnvironmentVariable() {
        Set<String> envs = new HashSet<>();
        for (Setting<?> s : SettingsReference.all()) {
            assertTrue(envs.add(s.env()), "two settings read " + s.env());
            assertTrue(SettingsReference.markdown().contains("`" + s.name().replace("<", "&lt;").replace(">", "&gt;") + "`"),
                    s.name());
        }
        // the backends are on the test class path: their settings are in the table
        for (String n : new String[]{"zarrdirect.decodeDepth", "zarrdirect.threads", "zarrdirect.cuda.batchBytes",
                "zarrdirect.cuda.zstdMultiPassSeqLanes", "zarrdirect.opencl.zstdLocalSize", "zarrdirect.cpu.poolRetainedBytes",
                "zarrdirect.cpu.zstdStreamCheck", "zarrdirect.trackBuffers", "zarrdirect.debug"}) {
            assertTrue(SettingsReference.all().stream().anyMatch(s -> s.name().equals(n)), n);
        }
    }
}
