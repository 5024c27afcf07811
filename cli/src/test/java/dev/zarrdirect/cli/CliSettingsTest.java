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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** {@code --set NAME=VALUE} end to end: parsed before the command runs, passed to contexts, shown by doctor. */
class CliSettingsTest {

    @TempDir
    Path tmp;

    private Path array() {
        Path dir = tmp.resolve("a.zarr");
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            ZarrArray a = Zarr.createArray(store, "", ArrayMetadata.create(new long[]{4}, DataType.INT32, new long[]{2},
                    FillValue.zero(DataType.INT32), List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
                            CodecMetadata.of("zstd", Map.of("level", 1L, "checksum", false)))));
            try (Tensor t = Tensor.allocateHost(DataType.INT32, 4)) {
                a.write(t);
            }
        }
        return dir;
    }

    @Test
    void setIsRepeatableAndTakesNamesWithOrWithoutThePrefix() {
        CommandLine cl = ZarrDirectCli.newCommandLine(new java.io.PrintWriter(new java.io.StringWriter()),
                new java.io.PrintWriter(new java.io.StringWriter()));
        CommandLine.ParseResult pr = cl.parseArgs("info", "x", "--set", "decodeDepth=4", "--set",
                "zarrdirect.cuda.batchBytes=512m");
        ZarrDirectCli root = (ZarrDirectCli) pr.commandSpec().userObject();
        assertEquals(Map.of("decodeDepth", "4", "zarrdirect.cuda.batchBytes", "512m"), root.settings);
        var v = CliSettings.parse(root.settings);
        assertEquals(List.of("zarrdirect.decodeDepth", "zarrdirect.cuda.batchBytes"), List.copyOf(v.names()));
    }

    @Test
    void doctorPrintsEverySettingInForceWithItsSource() {
        var r = CliEndToEndTest.run("doctor", "--set", "backend=cpu", "--set", "threads=3", "--set",
                "zarrdirect.decodeDepth=5", "--set", "codec.zstd=cpu", "--set", "cpu.zstdStreamCheck=false");
        assertEquals(0, r.code(), r.err() + r.out());
        assertTrue(r.out().contains("default backend: cpu (set by --set)"), r.out());
        assertTrue(r.out().contains("worker threads:  3 (set by --set)"), r.out());
        assertTrue(r.out().contains("settings in force"), r.out());
        for (String line : new String[]{"  decodeDepth = 5 (--set)", "  threads = 3 (--set)", "  trace = false (default)",
                "  deviceBatchBytes = 0 (default)", "  cpu.poolRetainedBytes = 512m (default)",
                "  cpu.zstdStreamCheck = false (--set)", "  trackBuffers = false (default)", "  codec.zstd = cpu (--set)", "  codec.crc32c = auto (default)"}) {
            assertTrue(r.out().contains(line + "\n") || r.out().contains(line + System.lineSeparator()),
                    "missing \"" + line + "\" in:\n" + r.out());
        }
    }

    @Test
    void aSettingSetReachesTheContextOfACommand() {
        Path a = array();
        var r = CliEndToEndTest.run("checksum", a.toString(), "-b", "cpu", "--set", "threads=2", "--set", "trace=false");
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void aBadValueIsAUsageErrorWithTheSettingsMessage() {
        var r = CliEndToEndTest.run("info", array().toString(), "--set", "decodeDepth=banana");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zarr-direct: zarrdirect.decodeDepth = \"banana\": expected an integer 1..64\n"),
                r.err());
        assertTrue(r.err().contains("Usage: zarr-direct info"), r.err());
        assertTrue(r.err().contains("Run 'zarr-direct info --help' for more information on usage."), r.err());
        r = CliEndToEndTest.run("info", array().toString(), "--set", "cuda.batchBytes=1t");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("zarrdirect.cuda.batchBytes = \"1t\": expected a byte size 1.."), r.err());
        r = CliEndToEndTest.run("info", array().toString(), "--set", "threads=9999999999999");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("zarrdirect.threads = \"9999999999999\": expected an integer 1..4096"), r.err());
    }

    @Test
    void anUnknownNameIsAUsageErrorListingTheKnownOnes() {
        var r = CliEndToEndTest.run("info", array().toString(), "--set", "decodeDepht=4");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zarr-direct: unknown setting zarrdirect.decodeDepht = \"4\"; the settings are: "),
                r.err());
        assertTrue(r.err().contains("zarrdirect.decodeDepth"), r.err());
    }

    @Test
    void aCodecProviderNoJarOffersIsAUsageError() {
        var r = CliEndToEndTest.run("info", array().toString(), "-b", "cpu", "--set", "codec.zstd=gpu");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zarr-direct: zarrdirect.codec.zstd = \"gpu\": expected auto or the name of a codec provider"),
                r.err());
    }
}
