// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The convert engine through its API: round trips of seeded random arrays through rechunking,
 * sharding, codecs and Zarr formats, compared by {@link ArrayChecksum}; resumption; what it refuses.
 * The seed is in every failure message; rerun one with {@code -Dzd.seed=N}.
 */
class ConverterTest {

    static final long SEED = Long.getLong("zd.seed", System.nanoTime());

    @TempDir
    Path tmp;

    static final long T = 30;
    static final long C = 3;
    static final long LAT = 7;
    static final long LON = 10;

    private static final List<CodecMetadata> ZSTD = List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
            CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false)));

    /** float32 [time 30, channel 3, lat 7, lon 10] of random values, chunked by 10 time steps, zstd. */
    private Path source(String name) {
        Path dir = tmp.resolve(name);
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            writeArray(store, "", new Random(SEED));
        }
        return dir;
    }

    private static void writeArray(Store store, String path, Random rnd) {
        ArrayMetadata md = ArrayMetadata.create(new long[]{T, C, LAT, LON}, DataType.FLOAT32,
                        new long[]{10, C, LAT, LON}, FillValue.parse("NaN", DataType.FLOAT32, "test"), ZSTD)
                .withDimensionNames(List.of("time", "channel", "lat", "lon"))
                .withAttributes(Map.of("units", "K"));
        ZarrArray a = Zarr.createArray(store, path, md);
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, T, C, LAT, LON)) {
            MemorySegment s = t.segment();
            for (long i = 0; i < t.elementCount(); i++) {
                // Rounded, so that compressors find repeats.
                s.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, Math.round(rnd.nextGaussian() * 20) / 4f);
            }
            a.write(t);
        }
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

    private static List<String> codecNames(ArrayMetadata md) {
        return md.codecs().stream().map(CodecMetadata::name).toList();
    }

    private static String seed() {
        return " (seed " + SEED + ")";
    }

    /** Records what a conversion reports. */
    static final class Recorder implements ConvertListener {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong units = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        ConvertSummary summary;

        @Override
        public void planned(ConvertSummary s) {
            summary = s;
            events.add("planned");
        }

        @Override
        public void overwriting(String destination) {
            events.add("overwriting");
        }

        @Override
        public void started(long done, long total) {
            events.add("started " + done + "/" + total);
        }

        @Override
        public void written(String path, long n, long decodedBytes) {
            units.addAndGet(n);
            bytes.addAndGet(decodedBytes);
        }

        @Override
        public void writingEnded() {
            events.add("writingEnded");
        }

        @Override
        public void converted(ConvertResult result) {
            events.add("converted");
        }

        @Override
        public void packed(Path archive, long n) {
            events.add("packed");
        }

        @Override
        public void verified(String path, String sourceSha256, String destinationSha256) {
            events.add("verified /" + path + (sourceSha256.equals(destinationSha256) ? " equal" : " different"));
        }
    }

    @Test
    void aSecondConversionIntoADestinationInUseFailsAndTheFirstCompletesAlone() throws Exception {
        Path src = source("src.zarr");
        Path dst = tmp.resolve("busy.zarr");
        ConvertOptions options = ConvertOptions.builder().chunks(1, -1, -1, -1).build();
        try (DestinationLock held = DestinationLock.acquire(dst)) { // another conversion running
            ConvertException e = assertThrows(ConvertException.class, () -> new Converter(options).convert(src.toString(), dst));
            assertTrue(e.getMessage().contains("another conversion that is still running"), e.getMessage());
        }
        // the lock is gone with its holder, and the finished store holds no trace of it
        assertTrue(new Converter(options).convert(src.toString(), dst).complete());
        assertFalse(Files.exists(dst.resolve(DestinationLock.NAME)));
        Path zip = tmp.resolve("busy.zarr.zip");
        assertTrue(new Converter(options).convert(src.toString(), zip).complete());
        try (var z = dev.zarrdirect.core.store.zip.ZipStore.open(zip)) {
            assertFalse(z.exists(DestinationLock.NAME), "the lock file was packed");
        }
    }

    @Test
    void tenStepChunksBecomeOneStepChunksWithTheSameElements() {
        Path src = source("src.zarr");
        Path dst = tmp.resolve("dst.zarr");
        Recorder events = new Recorder();

        ConvertResult r = new Converter(ConvertOptions.builder().chunks(1, -1, -1, -1).verify(true).build(), events)
                .convert(src.toString(), dst);

        assertTrue(r.complete());
        assertEquals(List.of(""), r.arrays());
        assertEquals("chunks", r.unitName());
        assertEquals(30, r.unitsTotal());
        assertEquals(30, r.unitsWritten());
        assertEquals(T * C * LAT * LON * 4, r.decodedBytes());
        assertEquals(checksum(src, ""), checksum(dst, ""), seed());
        ArrayMetadata md = metadata(dst, "");
        assertArrayEquals(new long[]{1, C, LAT, LON}, md.chunkShape());
        assertEquals(List.of("bytes", "zstd"), codecNames(md));
        assertEquals(List.of("time", "channel", "lat", "lon"), md.dimensionNames());
        assertEquals(Map.of("units", "K"), md.attributes());
        assertFalse(Files.exists(dst.resolve(Converter.JOURNAL_KEY)));
        assertEquals(List.of("planned", "started 0/30", "writingEnded", "converted", "verified / equal"), events.events);
        assertEquals(30, events.units.get());
        assertEquals(r.decodedBytes(), events.bytes.get());
        ConvertSummary.ArrayPlan plan = events.summary.arrays().getFirst();
        assertEquals("chunks [10, 3, 7, 10]; bytes, zstd", plan.source());
        assertTrue(plan.target().startsWith("chunks [1, 3, 7, 10]; bytes {\"endian\": \"little\"}, zstd"), plan.target());
        assertEquals("Zarr v3 array", events.summary.sourceNode());
        assertTrue(events.summary.memoryBoundBytes() > 0);
    }

    @Test
    void theJavadocExampleShardsOneStepChunksFourToAShard() {
        Path source = source("era5.zarr");
        Path destination = tmp.resolve("era5-train.zarr");

        // example-begin: the package-info snippet
        ConvertOptions options = ConvertOptions.builder()
                .chunks(1, -1, -1, -1)                 // one time step per chunk, -1: the whole dimension
                .shard(4, -1, -1, -1)                  // four chunks to a shard
                .codecs(List.of(CodecMetadata.of("zstd", Map.of("level", 5L))))
                .build();
        ConvertResult result = new Converter(options).convert(source.toString(), destination);
        if (!result.complete()) {
            throw new IllegalStateException("stopped early; run it again to resume");
        }
        // example-end

        ArrayMetadata md = metadata(destination, "");
        assertArrayEquals(new long[]{4, C, LAT, LON}, md.chunkShape());
        assertEquals(8, result.unitsTotal());
        assertEquals("shards", result.unitName());
        assertEquals(checksum(source, ""), checksum(destination, ""), seed());
    }

    @Test
    void thePackageSnippetIsTheCodeTheExampleRuns() throws Exception {
        List<String> test = Files.readAllLines(Path.of("src/test/java/dev/zarrdirect/core/convert/ConverterTest.java"));
        List<String> doc = Files.readAllLines(Path.of("src/main/java/dev/zarrdirect/core/convert/package-info.java"));

        List<String> ran = test.subList(test.indexOf("        // example-begin: the package-info snippet") + 1,
                test.indexOf("        // example-end")).stream().map(String::strip).toList();
        int open = doc.indexOf(" * {@snippet :");
        int close = open + 1;
        while (!doc.get(close + 1).startsWith(" * (The code")) {
            close++;
        }
        // The snippet ends with its own " * }" line, just before the sentence that names this test.
        List<String> shown = doc.subList(open + 1, close).stream().map(l -> l.substring(2).strip()).toList();

        assertEquals(ran, shown);
    }

    @Test
    void shardingAndUnshardingAgainKeepTheElements() {
        Path src = source("src.zarr");
        Path sharded = tmp.resolve("sharded.zarr");
        Path back = tmp.resolve("back.zarr");

        ConvertResult r1 = new Converter(ConvertOptions.builder().chunks(1, 1, -1, -1).shard(4, -1, -1, -1).build())
                .convert(src.toString(), sharded);
        ConvertResult r2 = new Converter(ConvertOptions.builder().noShard(true).build())
                .convert(sharded.toString(), back);

        assertEquals(8, r1.unitsWritten());
        assertEquals("chunks", r2.unitName());
        ArrayMetadata s = metadata(sharded, "");
        assertArrayEquals(new long[]{4, C, LAT, LON}, s.chunkShape());
        assertEquals("sharding_indexed", s.codecs().getFirst().name());
        assertEquals(List.of(1L, 1L, LAT, LON), s.codecs().getFirst().configuration().get("chunk_shape"));
        ArrayMetadata b = metadata(back, "");
        assertArrayEquals(new long[]{1, 1, LAT, LON}, b.chunkShape());
        assertEquals(List.of("bytes", "zstd"), codecNames(b));
        String expected = checksum(src, "");
        assertEquals(expected, checksum(sharded, ""), seed());
        assertEquals(expected, checksum(back, ""), seed());
    }

    @ParameterizedTest
    @ValueSource(strings = {"zstd", "gzip", "blosc", "crc32c", "none"})
    void eachCodecWritesTheSameElements(String codec) {
        Path src = source("src.zarr");
        Path dst = tmp.resolve("dst.zarr");
        List<CodecMetadata> codecs = codec.equals("none") ? List.of() : List.of(CodecMetadata.of(codec, Map.of()));

        new Converter(ConvertOptions.builder().chunks(2, -1, -1, -1).codecs(codecs).build()).convert(src.toString(), dst);

        assertEquals(checksum(src, ""), checksum(dst, ""), codec + seed());
        ArrayMetadata md = metadata(dst, "");
        assertEquals(codec.equals("none") ? List.of("bytes") : List.of("bytes", codec), codecNames(md));
        if (codec.equals("zstd")) {
            // Left-out configuration is spelled out for other readers.
            assertEquals(Map.of("level", 3L, "checksum", false), md.codecs().get(1).configuration());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"zstd", "gzip", "blosc", "none"})
    void zarrV2DestinationsHoldTheSameElementsInAZarray(String codec) {
        Path src = source("src.zarr");
        Path dst = tmp.resolve("v2.zarr");
        List<CodecMetadata> codecs = codec.equals("none") ? List.of() : List.of(CodecMetadata.of(codec, Map.of()));

        new Converter(ConvertOptions.builder().zarrFormat(2).chunks(1, -1, -1, -1).codecs(codecs)
                .endian(ByteOrder.BIG_ENDIAN).build()).convert(src.toString(), dst);

        assertTrue(Files.exists(dst.resolve(".zarray")));
        assertFalse(Files.exists(dst.resolve("zarr.json")));
        try (Store s = Stores.open(dst.toString())) {
            ZarrArray a = Zarr.openArray(s, "");
            assertEquals(2, a.zarrFormat());
            assertEquals(">f4", a.v2Metadata().orElseThrow().dtype().typestr());
            assertEquals(List.of("time", "channel", "lat", "lon"), a.attributes().get("_ARRAY_DIMENSIONS"));
        }
        assertEquals(checksum(src, ""), checksum(dst, ""), codec + seed());
    }

    @Test
    void aZarrV2SourceConvertsToShardedV3WithItsDimensionNames() {
        Path src = source("src.zarr");
        Path v2 = tmp.resolve("v2.zarr");
        Path v3 = tmp.resolve("v3.zarr");
        new Converter(ConvertOptions.builder().zarrFormat(2).build()).convert(src.toString(), v2);

        new Converter(ConvertOptions.builder().chunks(1, -1, -1, -1).shard(10, -1, -1, -1).build())
                .convert(v2.toString(), v3);

        ArrayMetadata md = metadata(v3, "");
        assertEquals(List.of("time", "channel", "lat", "lon"), md.dimensionNames());
        assertEquals("sharding_indexed", md.codecs().getFirst().name());
        assertEquals(checksum(src, ""), checksum(v3, ""), seed());
    }

    @Test
    void aGroupIsConvertedArrayByArrayKeepingItsStructureAndAttributes() {
        Path src = tmp.resolve("group.zarr");
        Random rnd = new Random(SEED);
        try (FileSystemStore store = FileSystemStore.create(src)) {
            Zarr.createGroup(store, "", Map.of("title", "random subset"));
            writeArray(store, "t2m", rnd);
            Zarr.createGroup(store, "surface", Map.of("level", "sfc"));
            writeArray(store, "surface/msl", rnd);
            ZarrArray lat = Zarr.createArray(store, "lat", ArrayMetadata.create(new long[]{LAT}, DataType.FLOAT64,
                    new long[]{LAT}, FillValue.zero(DataType.FLOAT64), ZSTD));
            try (Tensor t = Tensor.allocateHost(DataType.FLOAT64, LAT)) {
                for (int i = 0; i < LAT; i++) {
                    t.segment().setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, 90.0 - 10 * i);
                }
                lat.write(t);
            }
        }
        Path dst = tmp.resolve("group-out.zarr");
        Recorder events = new Recorder();

        ConvertResult r = new Converter(ConvertOptions.builder().chunks(1, -1, -1, -1).shard(5, -1, -1, -1)
                .verify(true).build(), events).convert(src.toString(), dst);

        assertEquals(3, r.arrays().size());
        for (String a : List.of("t2m", "surface/msl", "lat")) {
            assertEquals(checksum(src, a), checksum(dst, a), a + seed());
            assertTrue(events.events.contains("verified /" + a + " equal"), events.events.toString());
        }
        try (Store s = Stores.open(dst.toString())) {
            ZarrGroup g = Zarr.openGroup(s, "");
            assertEquals(Map.of("title", "random subset"), g.attributes());
            assertEquals(Map.of("level", "sfc"), Zarr.openGroup(s, "surface").attributes());
            assertArrayEquals(new long[]{5, C, LAT, LON}, Zarr.openArray(s, "surface/msl").chunkShape());
            assertArrayEquals(new long[]{LAT}, Zarr.openArray(s, "lat").chunkShape());
        }
        assertEquals("Zarr v3 group, 3 arrays", events.summary.sourceNode());
        ConvertSummary.ArrayPlan lat = events.summary.arrays().stream().filter(a -> a.path().equals("lat")).findFirst()
                .orElseThrow();
        assertEquals("rank 1: --chunks 1,-1,-1,-1 does not apply; layout kept", lat.note());
    }

    @Test
    void anInterruptedConversionResumesWithoutRewritingFinishedShards() throws Exception {
        Path src = source("src.zarr");
        Path dst = tmp.resolve("dst.zarr");
        ConvertOptions options = ConvertOptions.builder().chunks(1, -1, -1, -1).shard(2, -1, -1, -1).build();

        ConvertResult first = new Converter(options.toBuilder().maxShards(7).build()).convert(src.toString(), dst);

        assertFalse(first.complete());
        assertEquals(7, first.unitsWritten());
        assertEquals(7, first.unitsDone());
        assertEquals(15, first.unitsTotal());
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
        Recorder events = new Recorder();

        ConvertResult second = new Converter(options, events).convert(src.toString(), dst);

        assertTrue(second.complete());
        assertEquals(8, second.unitsWritten());
        assertEquals(15, second.unitsDone());
        assertTrue(events.events.contains("started 7/15"), events.events.toString());
        for (Path shard : finished) {
            assertEquals(old, Files.getLastModifiedTime(shard), shard + " was written again");
        }
        assertNotEquals(old, Files.getLastModifiedTime(dst.resolve("c/14/0/0/0")));
        assertEquals(checksum(src, ""), checksum(dst, ""), seed());
        assertFalse(Files.exists(dst.resolve(Converter.JOURNAL_KEY)));
        assertFalse(metadata(dst, "").attributes().containsKey(Converter.MARKER));
    }

    @Test
    void aResumeAfterTheSourceDataChangedFailsInsteadOfMixingOldAndNewData() throws Exception {
        Path src = source("src.zarr");
        Path dst = tmp.resolve("dst.zarr");
        ConvertOptions options = ConvertOptions.builder().chunks(1, -1, -1, -1).shard(2, -1, -1, -1).build();
        assertFalse(new Converter(options.toBuilder().maxShards(7).build()).convert(src.toString(), dst).complete());
        // the source is rewritten in place: the same metadata (the journal's fingerprint), other values
        try (FileSystemStore store = FileSystemStore.open(src)) {
            writeArray(store, "", new Random(SEED + 1));
        }

        ConvertException e = assertThrows(ConvertException.class, () -> new Converter(options).convert(src.toString(), dst));

        assertTrue(e.getMessage().contains("source changed in between") && e.getMessage().contains("--overwrite"),
                e.getMessage());
        // starting over gives the new source's values
        assertTrue(new Converter(options.toBuilder().overwrite(true).build()).convert(src.toString(), dst).complete());
        assertEquals(checksum(src, ""), checksum(dst, ""), seed());
    }

    @Test
    void theJournalKeepsItsOnDiskFormat() throws Exception {
        Path src = source("src.zarr");
        Path dst = tmp.resolve("dst.zarr");

        new Converter(ConvertOptions.builder().chunks(1, -1, -1, -1).shard(2, -1, -1, -1).maxShards(7).build())
                .convert(src.toString(), dst);

        Map<String, Object> doc = Json.object(Json.parse(Files.readString(dst.resolve(".zarr-direct-convert.json"))), "journal");
        assertEquals(List.of("zarr_direct_convert", "source", "source_metadata_sha256", "target_metadata_sha256",
                "arrays", "updated"), List.copyOf(doc.keySet()));
        assertEquals(1L, doc.get("zarr_direct_convert"));
        assertEquals(src.toAbsolutePath().normalize().toString(), doc.get("source"));
        assertEquals(Map.of("", Map.of("units", 15L, "done", List.of(List.of(0L, 7L)))), doc.get("arrays"));
        assertEquals(64, ((String) doc.get("target_metadata_sha256")).length());
    }

    @Test
    void anUnfinishedConversionWithOtherOptionsIsRefused() {
        Path src = source("src.zarr");
        Path dst = tmp.resolve("dst.zarr");
        ConvertOptions options = ConvertOptions.builder().chunks(1, -1, -1, -1).build();
        assertFalse(new Converter(options.toBuilder().maxShards(3).build()).convert(src.toString(), dst).complete());

        ConvertException e = assertThrows(ConvertException.class, () -> new Converter(options.toBuilder()
                .codecs(List.of(CodecMetadata.of("gzip", Map.of()))).build()).convert(src.toString(), dst));

        assertEquals(dst + " holds an unfinished conversion of another source or with other options (its journal names"
                + " the source " + src + "); run the command that started it to resume, or add --overwrite to start"
                + " over", e.getMessage());
    }

    @Test
    void aStoreDestinationResumesThroughItsJournalToo() {
        Path src = source("src.zarr");
        ConvertOptions options = ConvertOptions.builder().chunks(1, -1, -1, -1).shard(3, -1, -1, -1).build();
        try (Store in = Stores.open(src.toString()); MemoryStore out = new MemoryStore()) {
            ConvertResult first = new Converter(options.toBuilder().maxShards(4).build()).convert(in, "src", out);
            assertFalse(first.complete());
            assertTrue(out.exists(Converter.JOURNAL_KEY));

            ConvertResult second = new Converter(options).convert(in, "src", out);

            assertTrue(second.complete());
            assertEquals(6, second.unitsWritten());
            assertFalse(out.exists(Converter.JOURNAL_KEY));
            assertEquals(ArrayChecksum.sha256(Zarr.openArray(in, "")), ArrayChecksum.sha256(Zarr.openArray(out, "")),
                    seed());
            ConvertException other = assertThrows(ConvertException.class,
                    () -> new Converter(options).convert(in, "src", out));
            assertTrue(other.getMessage().contains("a Zarr store) and holds no unfinished conversion"), other.getMessage());
            assertThrows(ConvertOptionsException.class, () -> new Converter(options).convert(in, "src", in));
        }
    }

    @Test
    void aZipDestinationAppearsWholeAndTheStagingDirectoryGoes() {
        Path src = source("src.zarr");
        Path zip = tmp.resolve("out.zarr.zip");
        Recorder events = new Recorder();

        new Converter(ConvertOptions.builder().chunks(3, -1, -1, -1).verify(true).build(), events)
                .convert(src.toString(), zip);

        assertTrue(Files.isRegularFile(zip));
        assertFalse(Files.exists(tmp.resolve("out.zarr.zip.partial")));
        assertEquals(checksum(src, ""), checksum(zip, ""), seed());
        assertArrayEquals(new long[]{3, C, LAT, LON}, metadata(zip, "").chunkShape());
        assertEquals(List.of("planned", "started 0/10", "writingEnded", "converted", "packed", "verified / equal"),
                events.events);
    }

    @Test
    void anExistingZarrStoreIsReplacedOnlyWithOverwrite() {
        Path src = source("src.zarr");
        Path dst = source("old.zarr");
        ConvertOptions options = ConvertOptions.builder().chunks(5, -1, -1, -1).build();
        Recorder events = new Recorder();

        ConvertException refused = assertThrows(ConvertException.class,
                () -> new Converter(options).convert(src.toString(), dst));
        new Converter(options.toBuilder().overwrite(true).build(), events).convert(src.toString(), dst);

        assertTrue(refused.getMessage().contains("a Zarr store) and holds no unfinished conversion"), refused.getMessage());
        assertEquals("overwriting", events.events.get(1));
        assertArrayEquals(new long[]{5, C, LAT, LON}, metadata(dst, "").chunkShape());
    }

    @Test
    void aDirectoryWithoutAZarrStoreIsNotDeletedEvenWithOverwrite() throws Exception {
        Path src = source("src.zarr");
        Path dst = tmp.resolve("notes");
        Files.createDirectories(dst);
        Files.writeString(dst.resolve("notes.txt"), "keep me");

        ConvertException e = assertThrows(ConvertException.class,
                () -> new Converter(ConvertOptions.builder().overwrite(true).build()).convert(src.toString(), dst));

        assertTrue(e.getMessage().contains("refusing to delete them, even with --overwrite"), e.getMessage());
        assertEquals("keep me", Files.readString(dst.resolve("notes.txt")));
    }

    @Test
    void optionsThatDoNotFitTheSourceAreRefusedBeforeAnythingIsWritten() {
        Path src = source("src.zarr");
        Path dst = tmp.resolve("x.zarr");

        ConvertOptionsException notMultiple = assertThrows(ConvertOptionsException.class, () -> new Converter(
                ConvertOptions.builder().shard(4, -1, -1, -1).build()).convert(src.toString(), dst));
        ConvertOptionsException rank = assertThrows(ConvertOptionsException.class, () -> new Converter(
                ConvertOptions.builder().chunks(1, -1).build()).convert(src.toString(), dst));
        ConvertOptionsException codec = assertThrows(ConvertOptionsException.class, () -> new Converter(
                ConvertOptions.builder().codecs(List.of(CodecMetadata.of("lzma", Map.of()))).build())
                .convert(src.toString(), dst));
        ConvertOptionsException inside = assertThrows(ConvertOptionsException.class, () -> new Converter(
                ConvertOptions.defaults()).convert(src.toString(), src.resolve("inner")));

        assertEquals("--shard 4,3,7,10 is not a multiple of the chunk shape 10,3,7,10 in dimension 0 (4 % 10 = 4)",
                notMultiple.getMessage());
        assertEquals("--chunks 1,-1 has 2 extents, but array \"/\" of shape [30, 3, 7, 10] has rank 4", rank.getMessage());
        assertTrue(codec.getMessage().startsWith("unknown codec \"lzma\" in --codec; bytes-to-bytes codecs here: "),
                codec.getMessage());
        assertTrue(inside.getMessage().contains("lies inside SRC"), inside.getMessage());
        assertFalse(Files.exists(dst));
    }

    @Test
    void aMissingSourceIsAConvertException() {
        Path missing = tmp.resolve("missing.zarr");

        ConvertException e = assertThrows(ConvertException.class,
                () -> new Converter(ConvertOptions.defaults()).convert(missing.toString(), tmp.resolve("out.zarr")));

        assertEquals("SRC " + missing + " does not exist", e.getMessage());
    }

    @Test
    void theBuilderRefusesOptionsThatDoNotFitTogether() {
        assertEquals("--shard and --no-shard exclude each other", assertThrows(ConvertOptionsException.class,
                () -> ConvertOptions.builder().shard(4).noShard(true).build()).getMessage());
        assertEquals("--zarr-format must be 2 or 3, got 4", assertThrows(ConvertOptionsException.class,
                () -> ConvertOptions.builder().zarrFormat(4).build()).getMessage());
        assertEquals("--shard needs --zarr-format 3: Zarr v2 has no sharding", assertThrows(ConvertOptionsException.class,
                () -> ConvertOptions.builder().shard(4).zarrFormat(2).build()).getMessage());
        assertEquals("--parallel, --threads and --memory must be at least 1", assertThrows(
                ConvertOptionsException.class, () -> ConvertOptions.builder().threads(0).build()).getMessage());
        assertEquals("--max-shards must be 0 or more", assertThrows(ConvertOptionsException.class,
                () -> ConvertOptions.builder().maxShards(-1).build()).getMessage());
        assertEquals("--shard 4,-1 is not a multiple of --chunks 3,-1 in dimension 0 (4 % 3 = 1)", assertThrows(
                ConvertOptionsException.class, () -> ConvertOptions.builder().chunks(3, -1).shard(4, -1).build())
                .getMessage());
    }

    @Test
    void optionsAreImmutableAndKeepTheirDefaults() {
        long[] chunks = {1, 2};
        ConvertOptions o = ConvertOptions.builder().chunks(chunks).build();
        chunks[0] = 99;
        o.chunks().orElseThrow()[1] = 99;

        assertArrayEquals(new long[]{1, 2}, o.chunks().orElseThrow());
        ConvertOptions d = ConvertOptions.defaults();
        assertEquals(3, d.zarrFormat());
        assertEquals(2, d.parallel());
        assertEquals(2048L << 20, d.memoryBytes());
        assertEquals("cpu", d.backend());
        assertTrue(d.threads().isEmpty() && d.maxShards().isEmpty() && d.codecs().isEmpty() && d.shard().isEmpty());
        assertNull(d.endian().orElse(null));
    }

    @Test
    void blocksCoverWholeSourceChunksWhileTheyFitTheMemory() {
        Path src = source("src.zarr");
        ConvertPlan.Target t;
        try (Store s = Stores.open(src.toString())) {
            ZarrArray a = Zarr.openArray(s, "");
            t = ConvertPlan.target("", a, ConvertOptions.builder().chunks(1, -1, -1, -1).build(), true);
        }
        Converter.Streaming roomy = Converter.Streaming.of(t, 2, 4, 1L << 30);
        Converter.Streaming tight = Converter.Streaming.of(t, 2, 4, 2 * 5 * C * LAT * LON * 4);

        assertArrayEquals(new long[]{10, 1, 1, 1}, roomy.k());
        assertArrayEquals(new long[]{3, 1, 1, 1}, roomy.blockGrid());
        assertArrayEquals(new long[]{5, 1, 1, 1}, tight.k());
    }
}
