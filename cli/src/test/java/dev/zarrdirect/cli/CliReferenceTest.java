// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CliReferenceTest {

    private static final Path DOC = Path.of("..", "docs", "cli.md");

    @Test
    void theCommittedReferenceIsWhatTheCommandsPrint() throws IOException {
        String now = CliReference.markdown();
        if (Boolean.getBoolean("zd.updateSnapshots")) {
            Files.writeString(DOC, now, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(DOC) ? Files.readString(DOC, StandardCharsets.UTF_8) : "";
        assertEquals(now, committed, "docs/cli.md is out of date with the commands; regenerate it with: "
                + "mvn -B -q -pl cli -am test -Dtest=CliReferenceTest -Dsurefire.failIfNoSpecifiedTests=false "
                + "-Dzd.updateSnapshots=true");
    }

    @Test
    void everyCommandHasASection() {
        String md = CliReference.markdown();
        for (String c : new String[]{"demo", "info", "cat", "checksum", "convert", "bench", "doctor", "stats",
                "loader-serve", "version"}) {
            assertTrue(md.contains("\n## " + c + "\n"), c);
        }
    }
}
