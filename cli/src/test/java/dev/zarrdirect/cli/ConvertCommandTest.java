// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.convert.Converter;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.testkit.SyntheticEra5;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs {@code convert} in-process on small ERA5-like stores: what it prints, its exit codes and its
 * usage errors. The engine's round trips are {@code dev.zarrdirect.core.convert.ConverterTest}.
 */
class ConvertCommandTest {

    @TempDir
    Path tmp;

    static final long T = 30;
    static final long C = 4;
    static final long LAT = 19;
    static final long LON = 36;

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

    /** ERA5-like float32 [time 30, channel 4, lat 19, lon 36] chunked by 10 time steps, zstd. */
    private Path era5(String name) {
        Path dir = tmp.resolve(name);
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            writeEra5(store, "");
        }
        return dir;
    }

    private static ZarrArray writeEra5(Store store, String path) {
        ArrayMetadata md = ArrayMetadata.create(new long[]{T, C, LAT, LON}, DataType.FLOAT32,
                        new long[]{10, C, LAT, LON}, FillValue.parse("NaN", DataType.FLOAT32, "test"), ZSTD)
                .withDimensionNames(List.of("time", "channel", "lat", "lon"))
                .withAttributes(Map.of("units", "K"));
        ZarrArray a = Zarr.createArray(store, path, md);
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, T, C, LAT, LON)) {
            new SyntheticEra5((int) LAT, (int) LON).fill(t.segment(), 0, (int) T, (int) C);
            a.write(t);
        }
        return a;
    }

    private static String checksum(Path location, String path) {
        try (Store s = Stores.open(location.toString())) {
            return ArrayChecksum.sha256(Zarr.openArray(s, path));
        }
    }

    private static ArrayMetadata metadata(Path location, String path) {
        try (Store s = Stores.open(location.toString())) {
            return Zarr.openArray(s, path).metadata();
        }
    }

    @Test
    void tenStepChunksBecomeOneStepChunksWithTheSameElements() {
        Path src = era5("src.zarr");
        Path dst = tmp.resolve("dst.zarr");

        Result r = run("convert", src.toString(), dst.toString(), "--chunks", "1,-1,-1,-1", "--verify");

        assertEquals(0, r.code(), r.err() + r.out());
        assertEquals(checksum(src, ""), checksum(dst, ""));
        ArrayMetadata md = metadata(dst, "");
        assertArrayEquals(new long[]{1, C, LAT, LON}, md.chunkShape());
        assertEquals(List.of("bytes", "zstd"), md.codecs().stream().map(CodecMetadata::name).toList());
        assertEquals(List.of("time", "channel", "lat", "lon"), md.dimensionNames());
        assertEquals(Map.of("units", "K"), md.attributes());
        assertFalse(Files.exists(dst.resolve(Converter.JOURNAL_KEY)));
        assertTrue(r.out().contains("memory bound: ~"), r.out());
        assertTrue(r.out().contains("verified:     1 array, source and destination checksums equal"), r.out());
        assertTrue(r.err().contains("converting [##############################] 30/30 chunks"), r.err());
    }

    @Test
    void aGroupIsConvertedArrayByArrayKeepingItsStructureAndAttributes() {
        Path src = tmp.resolve("group.zarr");
        try (FileSystemStore store = FileSystemStore.create(src)) {
            Zarr.createGroup(store, "", Map.of("title", "era5 subset"));
            writeEra5(store, "t2m");
            Zarr.createGroup(store, "surface", Map.of("level", "sfc"));
            writeEra5(store, "surface/msl");
            ZarrArray lat = Zarr.createArray(store, "lat", ArrayMetadata.create(new long[]{LAT}, DataType.FLOAT64,
                    new long[]{LAT}, FillValue.zero(DataType.FLOAT64), ZSTD));
            try (Tensor t = Tensor.allocateHost(DataType.FLOAT64, LAT)) {
                for (int i = 0; i < LAT; i++) {
                    t.segment().setAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED, i, 90.0 - 10 * i);
                }
                lat.write(t);
            }
        }
        Path dst = tmp.resolve("group-out.zarr");

        Result r = run("convert", src.toString(), dst.toString(), "--chunks", "1,-1,-1,-1", "--shard", "5,-1,-1,-1",
                "--verify");

        assertEquals(0, r.code(), r.err() + r.out());
        for (String a : List.of("t2m", "surface/msl", "lat")) {
            assertEquals(checksum(src, a), checksum(dst, a), a);
        }
        try (Store s = Stores.open(dst.toString())) {
            ZarrGroup g = Zarr.openGroup(s, "");
            assertEquals(Map.of("title", "era5 subset"), g.attributes());
            assertEquals(Map.of("level", "sfc"), Zarr.openGroup(s, "surface").attributes());
            assertArrayEquals(new long[]{5, C, LAT, LON}, Zarr.openArray(s, "surface/msl").chunkShape());
            assertArrayEquals(new long[]{LAT}, Zarr.openArray(s, "lat").chunkShape());
        }
        assertTrue(r.out().contains("--chunks 1,-1,-1,-1 does not apply; layout kept"), r.out());
        assertEquals(3, r.out().lines().filter(l -> l.startsWith("sha256 ") && l.contains("destination")).count());
    }

    @Test
    void anInterruptedConversionResumesWithoutRewritingFinishedShards() throws Exception {
        Path src = era5("src.zarr");
        Path dst = tmp.resolve("dst.zarr");
        String[] args = {"convert", src.toString(), dst.toString(), "--chunks", "1,-1,-1,-1", "--shard", "2,-1,-1,-1"};

        Result first = run(concat(args, "--max-shards", "7"));

        assertEquals(ConvertCommand.EXIT_INTERRUPTED, first.code(), first.err());
        assertTrue(first.err().contains("stopped after 7 shards (--max-shards 7); 7/15 done; run the same command"
                + " again to resume"), first.err());
        assertTrue(Files.exists(dst.resolve(Converter.JOURNAL_KEY)));
        assertEquals(Converter.INCOMPLETE, metadata(dst, "").attributes().get(Converter.MARKER));
        FileTime old = FileTime.from(Instant.parse("2001-01-01T00:00:00Z"));
        List<Path> finished = new ArrayList<>();
        for (int s = 0; s < 7; s++) {
            Path shard = dst.resolve("c/" + s + "/0/0/0");
            assertTrue(Files.exists(shard), shard.toString());
            Files.setLastModifiedTime(shard, old);
            finished.add(shard);
        }
        assertFalse(Files.exists(dst.resolve("c/7/0/0/0")));

        Result second = run(args);

        assertEquals(0, second.code(), second.err());
        assertTrue(second.out().contains("resuming: 7/15 shards already done"), second.out());
        for (Path shard : finished) {
            assertEquals(old, Files.getLastModifiedTime(shard), shard + " was written again");
        }
        assertNotEquals(old, Files.getLastModifiedTime(dst.resolve("c/14/0/0/0")));
        assertEquals(checksum(src, ""), checksum(dst, ""));
        assertFalse(Files.exists(dst.resolve(Converter.JOURNAL_KEY)));
        assertFalse(metadata(dst, "").attributes().containsKey(Converter.MARKER));
    }

    @Test
    void anUnfinishedConversionWithOtherOptionsIsRefused() {
        Path src = era5("src.zarr");
        Path dst = tmp.resolve("dst.zarr");
        assertEquals(ConvertCommand.EXIT_INTERRUPTED,
                run("convert", src.toString(), dst.toString(), "--chunks", "1,-1,-1,-1", "--max-shards", "3").code());

        Result r = run("convert", src.toString(), dst.toString(), "--chunks", "1,-1,-1,-1", "--codec", "gzip");

        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains("holds an unfinished conversion of another source or with other options"), r.err());
        assertTrue(r.err().contains("add --overwrite to start over"), r.err());
    }

    @Test
    void anExistingDirectoryWithoutJournalIsRefusedAndLeftAlone() throws Exception {
        Path src = era5("src.zarr");
        Path dst = tmp.resolve("notes");
        Files.createDirectories(dst);
        Files.writeString(dst.resolve("notes.txt"), "keep me");

        Result r = run("convert", src.toString(), dst.toString());
        Result forced = run("convert", src.toString(), dst.toString(), "--overwrite");

        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().startsWith("zarr-direct: " + dst + " exists and is not empty (1 entries) and holds no"
                + " unfinished conversion; give a new directory, or --overwrite to replace it"), r.err());
        assertEquals(1, forced.code(), forced.err());
        assertTrue(forced.err().contains("refusing to delete them, even with --overwrite"), forced.err());
        assertEquals("keep me", Files.readString(dst.resolve("notes.txt")));
    }

    @Test
    void anExistingZarrStoreIsReplacedOnlyWithOverwrite() {
        Path src = era5("src.zarr");
        Path dst = era5("old.zarr");

        Result refused = run("convert", src.toString(), dst.toString(), "--chunks", "5,-1,-1,-1");
        Result replaced = run("convert", src.toString(), dst.toString(), "--chunks", "5,-1,-1,-1", "--overwrite");

        assertEquals(1, refused.code(), refused.err());
        assertTrue(refused.err().contains("a Zarr store) and holds no unfinished conversion"), refused.err());
        assertEquals(0, replaced.code(), replaced.err());
        assertArrayEquals(new long[]{5, C, LAT, LON}, metadata(dst, "").chunkShape());
        assertEquals(checksum(src, ""), checksum(dst, ""));
    }

    @Test
    void aZipDestinationPrintsWhereItIsStagedAndPacked() {
        Path src = era5("src.zarr");
        Path zip = tmp.resolve("out.zarr.zip");

        Result r = run("convert", src.toString(), zip.toString(), "--chunks", "3,-1,-1,-1");

        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("destination:  " + zip + " (staged in " + zip + ".partial) (Zarr v3)"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("converted:    10 chunks (")), r.out());
        assertTrue(r.out().contains("packed:       " + zip + " ("), r.out());
        assertTrue(Files.isRegularFile(zip));
    }

    @Test
    void aShardThatIsNotAMultipleOfTheChunksIsABadUsage() {
        Path src = era5("src.zarr");

        Result r = run("convert", src.toString(), tmp.resolve("x.zarr").toString(), "--chunks", "3,-1,-1,-1",
                "--shard", "4,-1,-1,-1");

        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zarr-direct: --shard 4,-1,-1,-1 is not a multiple of --chunks 3,-1,-1,-1 in"
                + " dimension 0 (4 % 3 = 1)\nUsage: zarr-direct convert "), r.err());
        assertTrue(r.err().contains("Run 'zarr-direct convert --help' for more information on usage."), r.err());
        assertFalse(Files.exists(tmp.resolve("x.zarr")));
    }

    @Test
    void aShardThatIsNotAMultipleOfTheKeptChunksIsABadUsage() {
        Path src = era5("src.zarr");

        Result r = run("convert", src.toString(), tmp.resolve("x.zarr").toString(), "--shard", "4,-1,-1,-1");

        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zarr-direct: --shard 4,4,19,36 is not a multiple of the chunk shape 10,4,19,36"
                + " in dimension 0 (4 % 10 = 4)"), r.err());
    }

    @Test
    void anUnknownCodecIsABadUsageThatListsTheCodecsThereAre() {
        Path src = era5("src.zarr");

        Result r = run("convert", src.toString(), tmp.resolve("x.zarr").toString(), "--codec", "lzma:level=9");

        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zarr-direct: unknown codec \"lzma\" in --codec; bytes-to-bytes codecs here: "),
                r.err());
        assertTrue(r.err().contains("gzip") && r.err().contains("zstd") && r.err().contains(", or none"), r.err());
        assertFalse(Files.exists(tmp.resolve("x.zarr")));
    }

    @Test
    void aBadCodecConfigurationIsABadUsage() {
        Path src = era5("src.zarr");

        Result r = run("convert", src.toString(), tmp.resolve("x.zarr").toString(), "--codec", "gzip:level=42");

        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zarr-direct: --codec gzip {\"level\": 42}: "), r.err());
    }

    @Test
    void shardingAZarrV2DestinationIsABadUsage() {
        Path src = era5("src.zarr");

        Result r = run("convert", src.toString(), tmp.resolve("x.zarr").toString(), "--zarr-format", "2",
                "--shard", "10,-1,-1,-1");

        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zarr-direct: --shard needs --zarr-format 3: Zarr v2 has no sharding"), r.err());
    }

    @Test
    void aDestinationInsideTheSourceIsABadUsage() {
        Path src = era5("src.zarr");

        Result r = run("convert", src.toString(), src.resolve("inner").toString());

        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("lies inside SRC"), r.err());
    }

    @Test
    void optionsParseIntoTheirFields() {
        ConvertCommand c = CommandLine.populateCommand(new ConvertCommand(), "a.zarr", "b.zip", "--chunks", "1,16,721,1440",
                "--shard", "4,16,721,1440", "--codec", "zstd:level=3,checksum=false", "--codec", "crc32c",
                "--endian", "big", "--parallel", "3", "--threads", "5", "--max-shards", "9", "--verify");

        assertArrayEquals(new long[]{1, 16, 721, 1440}, c.chunks);
        assertArrayEquals(new long[]{4, 16, 721, 1440}, c.shard);
        assertEquals(List.of("zstd:level=3,checksum=false", "crc32c"), c.codecs);
        assertEquals("big", c.endian);
        assertEquals(3, c.parallel);
        assertEquals(5, c.threads);
        assertEquals(9L, c.maxShards);
        assertEquals(3, c.zarrFormat);
        assertEquals("cpu", c.backend);
        assertTrue(c.verify);
    }

    @Test
    void codecSpecsParseIntoTypedConfigurations() {
        assertEquals(List.of(CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false))),
                ConvertCommand.parseCodec("zstd:level=3,checksum=false"));
        assertEquals(List.of(CodecMetadata.of("blosc", Map.of("cname", "lz4", "clevel", 5L, "shuffle", "shuffle"))),
                ConvertCommand.parseCodec("blosc:cname=lz4,clevel=5,shuffle=shuffle"));
        assertEquals(List.of(), ConvertCommand.parseCodec("none"));
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
