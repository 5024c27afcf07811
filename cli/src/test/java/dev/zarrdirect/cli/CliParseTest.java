// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CliParseTest {

    @Test
    void catTakesARegionALimitAndABackend() {
        CatCommand c = CommandLine.populateCommand(new CatCommand(), "--region", "0:2,:", "--limit", "5",
                "--backend", "cpu", "/data/a.zarr");
        assertEquals("0:2,:", c.region);
        assertEquals(5, c.limit);
        assertEquals("cpu", c.store.backend);
        assertEquals("/data/a.zarr", c.store.location);
    }

    @Test
    void catAcceptsSelectAsAnotherNameForRegionAndDefaultsToAThousandElementsOnTheAutoBackend() {
        CatCommand c = CommandLine.populateCommand(new CatCommand(), "--select", "-3:", "a");
        assertEquals("-3:", c.region);
        assertEquals(1000, c.limit);
        assertEquals("auto", c.store.backend);
    }

    @Test
    void checksumNeedsAPath() {
        assertThrows(CommandLine.MissingParameterException.class,
                () -> CommandLine.populateCommand(new ChecksumCommand()));
    }

    @Test
    void checksumTakesProgressAndShortBackend() {
        ChecksumCommand c = CommandLine.populateCommand(new ChecksumCommand(), "-b", "cuda", "--progress", "x");
        assertEquals("cuda", c.store.backend);
        assertTrue(c.progress);
    }

    @Test
    void demoDefaultsToNinetySixStepsInBatchesOfFourOverFivePassesWithNoDirectory() {
        DemoCommand d = CommandLine.populateCommand(new DemoCommand());
        assertEquals(96, d.steps);
        assertEquals(5, d.passes);
        assertEquals(4, d.batch);
        assertEquals("auto", d.backend);
        assertNull(d.dir);
    }

    @Test
    void demoTakesADirectoryStepsAndBatch() {
        DemoCommand d = CommandLine.populateCommand(new DemoCommand(), "/tmp/d", "--steps", "3", "--batch", "2");
        assertEquals(Path.of("/tmp/d"), d.dir);
        assertEquals(3, d.steps);
        assertEquals(2, d.batch);
    }

    @Test
    void demoRejectsAStepCountThatIsNotANumber() {
        assertThrows(CommandLine.ParameterException.class,
                () -> CommandLine.populateCommand(new DemoCommand(), "--steps", "many"));
    }

    @Test
    void rootTakesSystemPropertiesAndStacktraceBeforeTheCommand() {
        ZarrDirectCli root = new ZarrDirectCli();
        new CommandLine(root).parseArgs("-Dzarrdirect.threads=1", "--stacktrace", "doctor");
        assertEquals("1", root.properties.get("zarrdirect.threads"));
        assertTrue(root.stacktrace);
    }

    @Test
    void firstElementsNarrowsTheRegionToTheBoxHoldingTheFirstOnesInCOrder() {
        var sel = new dev.zarrdirect.core.Selection(new long[]{1, 0, 0}, new long[]{5, 10, 10});
        var first = CatCommand.firstElements(sel, 25);
        assertEquals("[1:2, 0:3, 0:10]", first.toString());
        assertEquals("[1:5, 0:10, 0:10]", CatCommand.firstElements(sel, 1000).toString());
    }
}
