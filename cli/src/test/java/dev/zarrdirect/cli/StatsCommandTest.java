// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.loader.LoaderSpec;
import dev.zarrdirect.loader.stats.StatsFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatsCommandTest {

    @TempDir
    Path tmp;

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = ZarrDirectCli.newCommandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Result(code, out.toString().replace("\r\n", "\n"), err.toString().replace("\r\n", "\n"));
    }

    private static final List<CodecMetadata> ZSTD = List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
            CodecMetadata.of("zstd", Map.of("level", 1L, "checksum", false)));

    /**
     * A group with t2m [6, 2, 3] = 280 + t (t the time index) and u [6, 2, 2, 3] = 10·c + x, float32,
     * dimensions named; one chunk per time step.
     */
    private Path era5() {
        Path dir = tmp.resolve("era5.zarr");
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            Zarr.createGroup(store, "", Map.of());
            ZarrArray t2m = Zarr.createArray(store, "t2m", ArrayMetadata.create(new long[]{6, 2, 3}, DataType.FLOAT32,
                    new long[]{1, 2, 3}, FillValue.zero(DataType.FLOAT32), ZSTD).withDimensionNames(List.of("time", "lat", "lon")));
            ZarrArray u = Zarr.createArray(store, "u", ArrayMetadata.create(new long[]{6, 2, 2, 3}, DataType.FLOAT32,
                    new long[]{1, 2, 2, 3}, FillValue.zero(DataType.FLOAT32), ZSTD)
                    .withDimensionNames(List.of("time", "level", "lat", "lon")));
            try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, 6, 2, 3);
                 Tensor v = Tensor.allocateHost(DataType.FLOAT32, 6, 2, 2, 3)) {
                for (int i = 0; i < 36; i++) {
                    t.segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, 280 + i / 6);
                }
                for (int i = 0; i < 72; i++) {
                    v.segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, 10 * (i / 6 % 2) + i % 3);
                }
                t2m.write(t);
                u.write(v);
            }
        }
        return dir;
    }

    @Test
    void statsWritesTheFileTheLoaderReadsAndPrintsATableOfTheChannels() {
        Path dir = era5();
        Path file = tmp.resolve("out.json");

        Result r = run("stats", dir.toString(), "--variables", "t2m,u", "--channels", "u=1", "--time-range", "1:5",
                "-o", file.toString(), "-b", "cpu");

        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
        // t2m over steps 1..4: mean 282.5, std sqrt(1.25); u[1] is 10 + x for x in 0..2: mean 11, std sqrt(2/3)
        assertEquals("""
                channel     mean       std  count  nan
                t2m      282.500   1.11803     24    0
                u[1]     11.0000  0.816497     24    0
                wrote %s: 2 channel(s) of 2 variable(s) over time steps [1, 5)
                """.formatted(file), r.out());
        StatsFile stats = StatsFile.read(file);
        assertEquals(dir.toString(), stats.store());
        assertEquals(1, stats.timeStart());
        assertEquals(5, stats.timeStop());
        assertNull(stats.variables().get("t2m").channels());
        assertArrayEquals(new int[]{1}, stats.variables().get("u").channels());
        LoaderSpec.Normalization n = stats.normalization("u", new int[]{1});
        assertEquals(11, n.mean()[0], 1e-12);
        assertEquals(Math.sqrt(2.0 / 3), n.std()[0], 1e-12);
    }

    @Test
    void anUnknownVariableIsBadUsageNamingWhatTheGroupHas() {
        Path dir = era5();

        Result r = run("stats", dir.toString(), "--variables", "t2m,v10", "-o", tmp.resolve("x.json").toString());

        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("zarr-direct: no variable \"v10\" in FileSystemStore("), r.err());
        assertTrue(r.err().contains("; the group has [t2m, u]\n"), r.err());
        assertTrue(r.err().endsWith("Run 'zarr-direct stats --help' for more information on usage.\n"), r.err());
        assertFalse(Files.exists(tmp.resolve("x.json")));
    }

    @Test
    void aWindowBeyondTheAxisAndAMalformedTimeRangeAreBadUsage() {
        Path dir = era5();
        Result beyond = run("stats", dir.toString(), "--variables", "t2m", "--time-range", "2:9");
        assertEquals(2, beyond.code());
        assertTrue(beyond.err().startsWith("zarr-direct: time_range [2, 9) is not within the time axis of 6 steps of"
                + " variable \"t2m\""), beyond.err());

        Result malformed = run("stats", dir.toString(), "--variables", "t2m", "--time-range", "5:2");
        assertEquals(2, malformed.code());
        assertTrue(malformed.err().startsWith("zarr-direct: --time-range \"5:2\" is not A:B with 0 <= A < B"),
                malformed.err());

        Result channel = run("stats", dir.toString(), "--variables", "u", "--channels", "u=0,x");
        assertEquals(2, channel.code());
        assertTrue(channel.err().startsWith("zarr-direct: --channels u=0,x: \"x\" is not a channel index"), channel.err());
    }

    @Test
    void progressGoesToStderrWhenAskedFor() {
        Path dir = era5();
        Result r = run("stats", dir.toString(), "--variables", "u", "--progress", "-o", tmp.resolve("p.json").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("] 6/6 steps"), r.err());
    }

    @Test
    void statsTakesTheLoadersSelectionOptionsAndWritesStatsJsonByDefault() {
        StatsCommand c = CommandLine.populateCommand(new StatsCommand(), "/data/era5.zarr", "--variables", "t2m,u,v",
                "--channels", "u=0,3", "--channels", "v=2", "--time-range", "100:", "--time-dim", "valid_time");
        assertEquals(Path.of("stats.json"), c.output);
        LoaderSpec spec = c.loaderSpec();
        assertEquals("/data/era5.zarr", spec.path());
        assertEquals(List.of("t2m", "u", "v"), spec.variables());
        assertArrayEquals(new int[]{0, 3}, spec.channels().get("u"));
        assertArrayEquals(new int[]{2}, spec.channels().get("v"));
        assertNull(spec.channels().get("t2m"));
        assertEquals(100, spec.timeStart());
        assertEquals(-1, spec.timeStop());
        assertEquals("valid_time", spec.timeDim());
        assertEquals(1, spec.span());
    }
}
