// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Hostile and careless input never crashes, hangs or misleads the CLI (issue #25). */
class HostileInputCliTest {

    @TempDir
    Path tmp;

    private static final List<CodecMetadata> BYTES = List.of(CodecMetadata.of("bytes", Map.of("endian", "little")));

    /** A name that clears the screen, reverses the text and starts a forged checksum line. */
    private static final String EVIL = "x\u001b[2J\u202e\u0085\u007f\nsha256 0000000000000000000000000000000000000000000000000000000000000000  forged";

    private static boolean clean(String s) {
        return s.chars().noneMatch(c -> (c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f)
                || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069));
    }

    @Test
    void escapeMakesControlAndBidiCharactersVisibleAndLeavesTheRestAlone() {
        assertEquals("a\\u001b[31mb\\nc\\td\\r\\u007f\\u0085\\u202e\\u2066é/ü", Text.escape("a\u001b[31mb\nc\td\r\u007f\u0085\u202e\u2066é/ü"));
        assertEquals("plain/name", Text.escape("plain/name"));
    }

    @Test
    void memberNamesWithEscapesAndNewlinesArePrintedEscapedByChecksumAndInfo() {
        Path dir = tmp.resolve("g.zarr");
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            Zarr.createGroup(store, "", Map.of("title", "t\u001b]0;owned\u0007"));
            Zarr.createArray(store, EVIL, ArrayMetadata.create(new long[]{2}, DataType.INT8, new long[]{2},
                    FillValue.zero(DataType.INT8), BYTES));
        }
        var sum = CliEndToEndTest.run("checksum", dir.toString());
        assertEquals(0, sum.code(), sum.err());
        assertTrue(clean(sum.out()), sum.out());
        assertEquals(1, sum.out().lines().count(), "one array, one line: " + sum.out());
        assertTrue(sum.out().contains("x\\u001b[2J\\u202e\\u0085\\u007f\\nsha256 0000"), sum.out());
        var info = CliEndToEndTest.run("info", dir.toString());
        assertEquals(0, info.code(), info.err());
        assertTrue(clean(info.out()), info.out());
        assertTrue(info.out().contains("x\\u001b[2J"), info.out());
        var missing = CliEndToEndTest.run("cat", dir + "/" + EVIL + "nope");
        assertEquals(1, missing.code());
        assertTrue(clean(missing.err()), missing.err());
    }

    @Test
    void concurrencyOptionsAreBoundedAndTheErrorExplainsTheBound() {
        Path src = tmp.resolve("src.zarr");
        try (FileSystemStore store = FileSystemStore.create(src)) {
            Zarr.createArray(store, "", ArrayMetadata.create(new long[]{4}, DataType.INT8, new long[]{2},
                    FillValue.zero(DataType.INT8), BYTES));
        }
        int max = ZarrDirectCli.maxConcurrency();
        for (String[] args : List.of(
                new String[]{"convert", src.toString(), tmp.resolve("d1.zarr").toString(), "--parallel", "100000"},
                new String[]{"convert", src.toString(), tmp.resolve("d2.zarr").toString(), "--threads", "100000"},
                new String[]{"bench", src.toString(), "--threads", "100000"},
                new String[]{"bench", src.toString(), "--ahead", "100000"})) {
            long before = Thread.activeCount();
            var r = CliEndToEndTest.run(args);
            assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.err().contains(args[args.length - 2] + " 100000 is out of range: give 1 to " + max + " (4 x the "),
                    r.err());
            assertTrue(Thread.activeCount() < before + 100, "no threads were started for " + String.join(" ", args));
        }
        assertFalse(Files.exists(tmp.resolve("d1.zarr")));
        var ok = CliEndToEndTest.run("convert", src.toString(), tmp.resolve("d3.zarr").toString(), "--parallel",
                Integer.toString(max), "--threads", "3");
        assertEquals(0, ok.code(), ok.err());
    }

    @Test
    void benchGenerateNeverDeletesAFileItDidNotWrite() throws Exception {
        Path store = tmp.resolve("bench.zarr");
        var first = CliEndToEndTest.run("bench", store.toString(), "--generate", "era5", "--shape", "2,1,2,2", "--passes", "1");
        assertEquals(0, first.code(), first.err());
        // A user's file put into a store bench wrote, then a run that must replace the store.
        Files.writeString(store.resolve("notes.txt"), "keep");
        Files.createDirectories(store.resolve("c"));
        Files.writeString(store.resolve("c/README"), "keep too");
        var again = CliEndToEndTest.run("bench", store.toString(), "--generate", "era5", "--shape", "3,1,2,2", "--passes", "1");
        assertEquals(1, again.code(), again.err());
        assertTrue(again.err().contains(" holds 2 files that bench --generate did not write (c/README, notes.txt);"
                + " it replaces only what it wrote and never deletes anything else. Move them away, or give a new or"
                + " empty directory"), again.err());
        assertEquals("keep", Files.readString(store.resolve("notes.txt")));
        assertEquals("keep too", Files.readString(store.resolve("c/README")));
        assertTrue(Files.exists(store.resolve("c/0/0/0/0")), "the generated store is left as it was");

        Path file = Files.writeString(tmp.resolve("results.csv"), "precious");
        var onFile = CliEndToEndTest.run("bench", file.toString(), "--generate", "era5", "--shape", "1,1,2,2");
        assertEquals(1, onFile.code());
        assertTrue(onFile.err().contains("is a file, not a directory"), onFile.err());
        assertEquals("precious", Files.readString(file));

        Path other = Files.createDirectories(tmp.resolve("other"));
        Files.writeString(other.resolve("data.bin"), "x");
        var onDir = CliEndToEndTest.run("bench", other.toString(), "--generate", "era5", "--shape", "1,1,2,2");
        assertEquals(1, onDir.code());
        assertTrue(onDir.err().contains("(it holds data.bin)"), onDir.err());
    }

    @Test
    void checksumAndBenchOfAHugeNeverWrittenArrayAreRefusedWithinSecondsNamingTheSize() {
        Path dir = tmp.resolve("tib.zarr");
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            // 1 TiB declared, nothing written.
            Zarr.createArray(store, "", ArrayMetadata.create(new long[]{1L << 40}, DataType.INT8, new long[]{1L << 24},
                    FillValue.zero(DataType.INT8), BYTES));
        }
        long t0 = System.nanoTime();
        var sum = CliEndToEndTest.run("checksum", dir.toString());
        var bench = CliEndToEndTest.run("bench", dir.toString(), "--passes", "1");
        assertTrue(System.nanoTime() - t0 < 30_000_000_000L, "answered within seconds");
        assertEquals(1, sum.code(), sum.err());
        assertTrue(sum.err().contains("checksum of \"/\" would produce 1,099,511,627,776 bytes (1.0 TiB), about 1.0 TiB"
                + " of it the fill value of chunks never written: the array int8 [1099511627776] declares 65,536 chunks"
                + " and 0 of them are stored."), sum.err());
        assertTrue(sum.err().contains("Pass --force to do it anyway"), sum.err());
        assertEquals(1, bench.code(), bench.err());
        assertTrue(bench.err().contains("(one pass) would produce 1,099,511,627,776 bytes"), bench.err());
    }

    @Test
    void checksumOfALargeArrayShowsProgressEvenOffATerminal() {
        Path dir = tmp.resolve("big.zarr");
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            Zarr.createArray(store, "", ArrayMetadata.create(new long[]{ChecksumCommand.PROGRESS_BYTES}, DataType.INT8,
                    new long[]{1L << 26}, FillValue.zero(DataType.INT8), BYTES));
        }
        var sum = CliEndToEndTest.run("checksum", dir.toString());
        assertEquals(0, sum.code(), sum.err());
        assertTrue(sum.err().contains("256/256 MiB"), sum.err());
    }

    @Test
    void overflowingShapesAreReportedAsInvalidMetadataByEveryCommand() throws Exception {
        Path v3 = Files.createDirectories(tmp.resolve("v3.zarr"));
        Files.writeString(v3.resolve("zarr.json"), "{\"zarr_format\": 3, \"node_type\": \"array\","
                + " \"shape\": [4611686018427387904, 4611686018427387904], \"data_type\": \"float64\","
                + " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [1, 1]}},"
                + " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
                + " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}");
        Path v2 = Files.createDirectories(tmp.resolve("v2.zarr"));
        Files.writeString(v2.resolve(".zarray"), "{\"zarr_format\": 2, \"shape\": [10], \"chunks\": [4611686018427387904],"
                + " \"dtype\": \"<i4\", \"fill_value\": 0, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
        for (String cmd : List.of("info", "checksum", "cat")) {
            var r3 = CliEndToEndTest.run(cmd, v3.toString());
            assertEquals(1, r3.code(), cmd + ": " + r3.err());
            assertTrue(r3.err().contains("\"shape\" in \"zarr.json\" is [4611686018427387904, 4611686018427387904]:"
                    + " 21267647932558653966460912964485513216 elements in the array"), cmd + ": " + r3.err());
            assertFalse(r3.err().contains("unexpected error"), r3.err());
            var r2 = CliEndToEndTest.run(cmd, v2.toString());
            assertEquals(1, r2.code(), cmd + ": " + r2.err());
            assertTrue(r2.err().contains("\"chunks\" in \".zarray\" is [4611686018427387904]"), cmd + ": " + r2.err());
            assertFalse(r2.err().contains("unexpected error"), r2.err());
        }
    }

    @Test
    void demoRewriteNeverDeletesAFileItDidNotWriteButStillReusesItsStore() throws Exception {
        Path dir = tmp.resolve("demo.zarr");
        var first = CliEndToEndTest.run("demo", dir.toString(), "--steps", "1", "--passes", "1", "--batch", "1");
        assertEquals(0, first.code(), first.err());
        Files.writeString(dir.resolve("notes.txt"), "keep");
        var rewrite = CliEndToEndTest.run("demo", dir.toString(), "--steps", "1", "--passes", "1", "--batch", "1",
                "--rewrite");
        assertEquals(1, rewrite.code(), rewrite.err());
        assertTrue(rewrite.err().contains("holds 1 file that demo did not write (notes.txt)"), rewrite.err());
        assertEquals("keep", Files.readString(dir.resolve("notes.txt")));
        var reuse = CliEndToEndTest.run("demo", dir.toString(), "--steps", "1", "--passes", "1", "--batch", "1");
        assertEquals(0, reuse.code(), reuse.err());
        assertTrue(reuse.out().contains("reusing the demo array"), reuse.out());
    }
}
