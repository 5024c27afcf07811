// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VersionCommandTest {

    @Test
    void versionPrintsTheBuildVersionTheJavaRuntimeAndTheBackendsFound() {
        CliEndToEndTest.Result r = CliEndToEndTest.run("version");

        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertTrue(lines[0].matches("zarr-direct \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), lines[0]);
        assertTrue(r.out().contains("Java " + Runtime.version()), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("backends:") && l.contains("cpu")), r.out());
    }

    @Test
    void dashDashVersionPrintsTheSameFirstLineAsTheVersionCommand() {
        CliEndToEndTest.Result flag = CliEndToEndTest.run("--version");
        CliEndToEndTest.Result command = CliEndToEndTest.run("version");

        assertEquals(0, flag.code(), flag.err());
        assertEquals(command.out().lines().findFirst().orElseThrow(), flag.out().lines().findFirst().orElseThrow());
    }

    @Test
    void helpNamesBothZarrFormatsNotV3Only() {
        CliEndToEndTest.Result r = CliEndToEndTest.run("--help");

        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("v3 and v2"), r.out());
        assertFalse(r.out().contains("Zarr v3 arrays"), r.out());
        assertTrue(r.out().contains("version"), r.out());
    }
}
