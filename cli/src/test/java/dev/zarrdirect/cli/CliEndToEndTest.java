// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs commands in-process against stores written with core's API. */
class CliEndToEndTest {

    @TempDir
    Path tmp;

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = ZarrDirectCli.newCommandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    private static final List<CodecMetadata> ZSTD = List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
            CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false)));

    /** A [5, 7] float32 array, chunks [2, 3], zstd, element (i, j) = i * 7 + j + 0.25. */
    private Path float32Array() {
        Path dir = tmp.resolve("f32.zarr");
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            ZarrArray a = Zarr.createArray(store, "", ArrayMetadata.create(new long[]{5, 7}, DataType.FLOAT32,
                    new long[]{2, 3}, FillValue.zero(DataType.FLOAT32), ZSTD));
            try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, 5, 7)) {
                for (int i = 0; i < 35; i++) {
                    t.segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, i + 0.25f);
                }
                a.write(t);
            }
        }
        return dir;
    }

    /** A [4, 6] int32 array, chunks [2, 2], fill -1, of which only the rows 0..1 of columns 0..3 were written. */
    private Path int32WithMissingChunks(Path dir) {
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            ZarrArray a = Zarr.createArray(store, "", ArrayMetadata.create(new long[]{4, 6}, DataType.INT32,
                    new long[]{2, 2}, FillValue.parse(-1L, DataType.INT32, "test"), ZSTD)
                    .withDimensionNames(List.of("y", "x")));
            try (Tensor t = Tensor.allocateHost(DataType.INT32, 2, 4)) {
                for (int i = 0; i < 8; i++) {
                    t.segment().setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, i * 10);
                }
                a.write(new long[]{0, 0}, t);
            }
        }
        return dir;
    }

    @Test
    void checksumPrintsTheSha256OfTheLittleEndianElementsThenShapeAndType() throws Exception {
        Path dir = float32Array();
        ByteBuffer bb = ByteBuffer.allocate(35 * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 35; i++) {
            bb.putFloat(i + 0.25f);
        }
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bb.array()));

        Result r = run("checksum", dir.toString());

        assertEquals(0, r.code(), r.err());
        assertEquals("sha256 " + expected + "\nshape [5, 7] dtype float32\n", r.out().replace("\r\n", "\n"));
        assertEquals("", r.err());
    }

    @Test
    void checksumOfAGroupListsEachArrayBelowItWithItsRelativePath() throws Exception {
        Path dir = tmp.resolve("g.zarr");
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            ZarrGroup g = Zarr.createGroup(store, "", Map.of("title", "test"));
            ZarrGroup sub = g.createGroup("sub", Map.of());
            sub.createArray("zeros", ArrayMetadata.create(new long[]{3}, DataType.UINT8, new long[]{3},
                    FillValue.zero(DataType.UINT8), ZSTD));
        }
        String zeros = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(new byte[3]));

        Result r = run("checksum", dir.toString());

        assertEquals(0, r.code(), r.err());
        assertEquals("sha256 " + zeros + "  sub/zeros\n", r.out());
    }

    @Test
    void infoOfAnArrayWithMissingChunksCountsThePresentOnesAndNamesCodecsAndFill() {
        Path dir = int32WithMissingChunks(tmp.resolve("i32.zarr"));

        Result r = run("info", dir.toString());

        assertEquals(0, r.code(), r.err());
        String out = r.out();
        assertTrue(out.contains("node type:         array\n"), out);
        assertTrue(out.contains("shape:             [4, 6]\n"), out);
        assertTrue(out.contains("chunk shape:       [2, 2]\n"), out);
        assertTrue(out.contains("data type:         int32\n"), out);
        assertTrue(out.contains("codecs:            bytes {\"endian\": \"little\"}, zstd {"), out);
        assertTrue(out.contains("implementations:   bytes@cpu, zstd@cpu\n"), out);
        assertTrue(out.contains("fill value:        -1\n"), out);
        assertTrue(out.contains("dimension names:   y, x\n"), out);
        assertTrue(out.contains("chunks:            2 of 6 present (grid [2, 3])\n"), out);
        assertTrue(out.contains("logical bytes:     96 bytes (96 B)\n"), out);
        long stored = storedBytes(dir);
        assertTrue(out.contains(String.format("stored bytes:      %,d bytes", stored)), out);
        assertTrue(out.contains(String.format(java.util.Locale.ROOT, "compression ratio: %.2f\n", 96.0 / stored)), out);
    }

    private static long storedBytes(Path dir) {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().equals("zarr.json"))
                    .mapToLong(p -> p.toFile().length()).sum();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void infoOfAGroupShowsItsAttributesAndMembers() {
        Path dir = tmp.resolve("g.zarr");
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            ZarrGroup g = Zarr.createGroup(store, "", Map.of("title", "demo"));
            g.createArray("t2m", ArrayMetadata.create(new long[]{2, 3}, DataType.FLOAT64, new long[]{1, 3},
                    FillValue.zero(DataType.FLOAT64), ZSTD));
        }

        Result r = run("info", dir.toString());

        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("node type:  group\n"), r.out());
        assertTrue(r.out().contains("attributes: {\"title\": \"demo\"}\n"), r.out());
        assertTrue(r.out().contains("  t2m  array float64 [2, 3] chunks [1, 3]\n"), r.out());
    }

    @Test
    void catPrintsNestedBracketsWithTheFillValueWhereNoChunkWasWritten() {
        Path dir = int32WithMissingChunks(tmp.resolve("i32.zarr"));

        Result r = run("cat", dir.toString());

        assertEquals(0, r.code(), r.err());
        assertEquals("""
                [[0, 10, 20, 30, -1, -1],
                 [40, 50, 60, 70, -1, -1],
                 [-1, -1, -1, -1, -1, -1],
                 [-1, -1, -1, -1, -1, -1]]
                """, r.out());
    }

    @Test
    void catOfARegionStopsAtTheLimitWithAnEllipsis() {
        Path dir = float32Array();

        Result r = run("cat", dir.toString(), "--region", "1:3,2:", "--limit", "6");

        assertEquals(0, r.code(), r.err());
        assertEquals("""
                [[9.25, 10.25, 11.25, 12.25, 13.25],
                 [16.25, ...]]
                """, r.out());
    }

    @Test
    void anUnknownOptionIsABadUsageWithSynopsisAndHelpPointer() {
        Result r = run("cat", "--bogus", "x");

        assertEquals(2, r.code());
        assertEquals("""
                zarr-direct: Unknown option: '--bogus'
                Usage: zarr-direct cat [-hV] [--no-sign-request] [--stacktrace] [-b=NAME]
                                [--endpoint-url=URL] [--max-requests=N] [-n=N] [--profile=NAME]
                                [-r=START:STOP,...] [--set=NAME=VALUE]... PATH
                Run 'zarr-direct cat --help' for more information on usage.
                """, r.err());
        assertEquals("", r.out());
    }

    @Test
    void aMissingPathIsABadUsageWithSynopsisAndHelpPointer() {
        Result r = run("checksum");

        assertEquals(2, r.code());
        assertEquals("""
                zarr-direct: Missing required parameter: 'PATH'
                Usage: zarr-direct checksum [-hV] [--force] [--no-sign-request] [--progress]
                                     [--stacktrace] [-b=NAME] [--endpoint-url=URL]
                                     [--max-requests=N] [--profile=NAME] [--set=NAME=VALUE]...
                                     PATH
                Run 'zarr-direct checksum --help' for more information on usage.
                """, r.err());
    }

    @Test
    void aDirectoryWithoutZarrJsonFailsWithExitOneNamingThePath() throws Exception {
        Path empty = Files.createDirectory(tmp.resolve("nothing-here"));

        Result r = run("info", empty.toString());

        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("zarr-direct: no Zarr v3 array or group at " + empty.toAbsolutePath()
                + ": it holds no zarr.json"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void aPathThatDoesNotExistFailsWithExitOneNamingIt() {
        Path missing = tmp.resolve("absent.zarr");

        Result r = run("cat", missing.toString());

        assertEquals(1, r.code());
        assertEquals("zarr-direct: " + missing.toAbsolutePath() + " does not exist\n", r.err());
    }

    @Test
    void stacktraceAfterTheCommandPrintsTheTraceOfAFailure() {
        Result r = run("checksum", "--stacktrace", tmp.resolve("absent").toString());

        assertEquals(1, r.code());
        assertTrue(r.err().contains("\tat dev.zarrdirect.cli."), r.err());
    }

    @Test
    void anUnknownBackendFailsWithExitOneNamingTheBackendsFound() {
        Path dir = float32Array();

        Result r = run("checksum", "--backend", "quantum", dir.toString());

        assertEquals(1, r.code());
        // Which other backends are listed depends on the machine (CUDA, OpenCL); the CPU one is always there.
        assertTrue(r.err().startsWith("zarr-direct: no backend named \"quantum\"; found: "), r.err());
        assertTrue(r.err().contains("cpu (available)"), r.err());
        assertTrue(r.err().contains("Put the backend's jar on the class path, or choose one of ["), r.err());
    }

    @Test
    void catOfARegionOutsideTheShapeIsABadUsageNamingTheDimensionTheRangeAndTheSize() {
        Path dir = float32Array();

        Result r = run("cat", dir.toString(), "--region", "200:300");

        assertEquals(2, r.code(), r.out());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("zarr-direct: bad --region: slice 200:300 is outside dimension 0 of size 5"),
                r.err());
    }

    @Test
    void catOfAnIndexOutsideTheShapeIsABadUsageNamingTheDimensionAndTheSize() {
        Path dir = float32Array();

        Result r = run("cat", dir.toString(), "--region", "1,7");

        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().startsWith("zarr-direct: bad --region: index 7 is outside dimension 1 of size 7"), r.err());
    }

    @Test
    void catWithAnIntegerIndexDropsThatDimensionAsNumPyDoes() {
        Path dir = float32Array();

        Result row = run("cat", dir.toString(), "-r", "1,:");
        Result column = run("cat", dir.toString(), "-r", "...,-1");
        Result element = run("cat", dir.toString(), "-r", "1,2");

        assertEquals(0, row.code(), row.err());
        assertEquals("[7.25, 8.25, 9.25, 10.25, 11.25, 12.25, 13.25]\n", row.out());
        assertEquals("[6.25, 13.25, 20.25, 27.25, 34.25]\n", column.out());
        assertEquals("9.25\n", element.out());
    }

    @Test
    void catWithStepsTakesEveryNthElementAndStopsAtTheLimit() {
        Path dir = float32Array();

        Result r = run("cat", dir.toString(), "-r", "::2,1:7:3");
        Result limited = run("cat", dir.toString(), "-r", "::2,1:7:3", "--limit", "3");

        assertEquals(0, r.code(), r.err());
        assertEquals("""
                [[1.25, 4.25],
                 [15.25, 18.25],
                 [29.25, 32.25]]
                """, r.out());
        assertEquals("""
                [[1.25, 4.25],
                 [15.25, ...]]
                """, limited.out());
    }

    @Test
    void catRefusesANegativeStepWithAClearMessage() {
        Path dir = float32Array();

        Result r = run("cat", dir.toString(), "-r", "::-1");

        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().startsWith("zarr-direct: bad --region: step -1 in dimension 0: only positive steps"), r.err());
    }

    @Test
    void aBadRegionIsABadUsage() {
        Path dir = float32Array();

        Result r = run("cat", dir.toString(), "--region", "0:1,x");

        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("zarr-direct: bad --region: selection \"0:1,x\": entry 1 \"x\""), r.err());
    }

    @Test
    void demoPrintsTheSameSha256AsChecksumOfItsArrayAndReusesTheStore() {
        Path dir = tmp.resolve("demo.zarr");

        Result first = run("demo", dir.toString(), "--steps", "3", "--batch", "2");

        assertEquals(0, first.code(), first.err());
        String sha = shaLine(first.out());
        // computed with the CLI's own generator at 732b923, before the testkit had it, so figures compare
        assertTrue(sha.contains("ade96aa981841d36b2cd45f46e313001428a4064da9a7c8eca6c641138fcee95"), sha);
        Result check = run("checksum", dir.resolve("era5").toString());
        assertEquals(0, check.code(), check.err());
        assertEquals(sha, shaLine(check.out()));
        assertTrue(check.out().contains("shape [3, 8, 181, 360] dtype float32"), check.out());
        assertTrue(first.out().contains("decoded:  " + String.format("%,d", 3L * 8 * 181 * 360 * 4)), first.out());
        assertTrue(first.err().contains("writing [") && first.err().contains("reading 1/5 ["), first.err());

        Result again = run("demo", dir.toString(), "--steps", "3", "--batch", "3");

        assertEquals(0, again.code(), again.err());
        assertTrue(again.out().contains("reusing the demo array"), again.out());
        assertEquals(sha, shaLine(again.out()));
    }

    @Test
    void theDemoStoreDefaultsToThisUsersCacheNotTheSharedTmp() {
        assertEquals(Path.of("/home/u/.cache/zarr-direct/demo.zarr"), DemoCommand.defaultDir(Map.of(), "/home/u"));
        assertEquals(Path.of("/xdg/zarr-direct/demo.zarr"),
                DemoCommand.defaultDir(Map.of("XDG_CACHE_HOME", "/xdg"), "/home/u"));
        assertEquals(Path.of("/home/u/.cache/zarr-direct/demo.zarr"),
                DemoCommand.defaultDir(Map.of("XDG_CACHE_HOME", "relative"), "/home/u"));
        Result help = run("demo", "--help");
        assertTrue(help.out().contains("~/.cache"), help.out());
        assertTrue(!help.out().contains("tmpdir"), help.out());
    }

    @Test
    void demoRefusesADirectoryThatHoldsSomethingElse() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("precious"));
        Files.writeString(dir.resolve("notes.txt"), "keep me");

        Result r = run("demo", dir.toString(), "--steps", "1");

        assertEquals(1, r.code());
        assertTrue(r.err().contains(dir.toAbsolutePath() + " is neither empty nor a zarr-direct demo store"), r.err());
        assertTrue(Files.exists(dir.resolve("notes.txt")));
    }

    @Test
    void doctorNamesTheCpuBackendAndWhichProviderEachCodecResolvesTo() {
        Result r = run("doctor");

        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("  cpu  priority 0  available: "), r.out());
        assertTrue(r.out().contains("default backend: cpu (the available backend of highest priority)"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("  zstd +cpu")), r.out());
    }

    private static String shaLine(String out) {
        Matcher m = Pattern.compile("(?m)^sha256 ([0-9a-f]{64})$").matcher(out);
        assertTrue(m.find(), "no sha256 line in:\n" + out);
        return m.group(1);
    }
}
