// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.fuzz;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.memory.MemoryStore;
import dev.zarrdirect.core.store.zip.ZipStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fuzz target per parser of untrusted bytes (issue #25): Zarr v3 {@code zarr.json}, Zarr v2
 * {@code .zarray}, {@code .zattrs} and {@code .zmetadata}, the shard index (through whole and
 * partial reads of a damaged shard), zstd, blosc, gzip and zlib frames, and a zip archive's central
 * directory. Each mutates valid seeds for a second and a half under a new seed a run ({@link Fuzz};
 * {@code -Dzd.fuzz.seconds=60} for a longer run, {@code -Dzd.seed=N} to repeat one) and accepts only success or a documented
 * {@link dev.zarrdirect.api.ZarrDirectException}. The core tests run with a capped heap, so a
 * parser that allocates what the input declares fails here.
 */
class ParserFuzzTest {

    private static final long[] SHAPE = {6, 10};
    private static final DataType DT = DataType.INT16;

    static ZarrContext ctx;
    static CodecProvider cpu;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 1);
        cpu = ServiceLoader.load(CodecProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("cpu")).findFirst().orElseThrow();
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    // ------------------------------------------------------------------------------------- metadata

    @Test
    void zarrJsonOnlyEverOpensOrIsRefused() {
        List<byte[]> seeds = new ArrayList<>();
        for (List<CodecMetadata> chain : chains()) {
            Store s = written(chain);
            seeds.add(get(s, "zarr.json"));
        }
        MemoryStore g = new MemoryStore();
        Zarr.createGroup(ctx, g, "", Map.of("title", "era5", "levels", List.of(1000L, 850L)));
        seeds.add(get(g, "zarr.json"));
        check(Fuzz.run("zarr.json", seeds, Mutations::json, in -> {
            MemoryStore s = new MemoryStore();
            s.set("zarr.json", MemorySegment.ofArray(in));
            openAndTouch(s);
        }));
    }

    @Test
    void zarrayOnlyEverOpensOrIsRefused() {
        List<byte[]> seeds = List.of(
                zarray("{\"id\": \"zstd\", \"level\": 3}", "null", "<i2", "C"),
                zarray("{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1, \"blocksize\": 0}",
                        "[{\"id\": \"delta\", \"dtype\": \"<i2\"}]", "<i2", "F"),
                zarray("{\"id\": \"zlib\", \"level\": 1}", "[{\"id\": \"shuffle\", \"elementsize\": 2}]", ">i2", "C"),
                zarray("{\"id\": \"gzip\", \"level\": 5}", "null", "|S3", "C"));
        check(Fuzz.run(".zarray", seeds, Mutations::json, in -> {
            MemoryStore s = new MemoryStore();
            s.set(".zarray", MemorySegment.ofArray(in));
            s.set(".zattrs", text("{\"units\": \"K\"}"));
            openAndTouch(s);
        }));
    }

    @Test
    void zattrsOnlyEverOpenOrAreRefused() {
        List<byte[]> seeds = List.of(text("{\"units\": \"K\", \"_ARRAY_DIMENSIONS\": [\"y\", \"x\"]}").toArray(
                ValueLayout.JAVA_BYTE), text("{\"a\": {\"b\": [1, 2.5, null, \"c\"]}, \"n\": -1e300}").toArray(
                ValueLayout.JAVA_BYTE));
        check(Fuzz.run(".zattrs", seeds, Mutations::json, in -> {
            MemoryStore s = new MemoryStore();
            s.set(".zarray", MemorySegment.ofArray(zarray("null", "null", "<i2", "C")));
            s.set(".zattrs", MemorySegment.ofArray(in));
            openAndTouch(s);
        }));
    }

    @Test
    void zmetadataOnlyEverOpensOrIsRefused() {
        MemoryStore s = new MemoryStore();
        Zarr.createGroupV2(ctx, s, "", Map.of("title", "t"));
        s.set("t2m/.zarray", MemorySegment.ofArray(zarray("{\"id\": \"zstd\", \"level\": 1}", "null", "<i2", "C")));
        s.set("t2m/.zattrs", text("{\"units\": \"K\"}"));
        s.set("sub/.zgroup", text("{\"zarr_format\": 2}"));
        Zarr.consolidate(s);
        check(Fuzz.run(".zmetadata", List.of(get(s, ".zmetadata")), Mutations::json, in -> {
            MemoryStore m = new MemoryStore();
            m.set(".zmetadata", MemorySegment.ofArray(in));
            m.set(".zgroup", text("{\"zarr_format\": 2}"));
            openAndTouch(m);
        }));
    }

    // ------------------------------------------------------------------------------------- shards

    @Test
    void damagedShardsOnlyEverReadOrAreRefused() {
        List<List<CodecMetadata>> chains = List.of(
                List.of(sharding(List.of(bytes()), List.of(bytes(), crc32c()), "end")),
                List.of(sharding(List.of(bytes(), zstd()), List.of(bytes()), "start")),
                List.of(sharding(List.of(bytes()), List.of(bytes()), "end"), zstd()));
        List<byte[]> seeds = new ArrayList<>();
        List<MemoryStore> stores = new ArrayList<>();
        for (List<CodecMetadata> chain : chains) {
            MemoryStore s = written(chain);
            stores.add(s);
            seeds.add(get(s, "c/0/0"));
        }
        // each input carries the index of its chain in its first byte, so that a mutation keeps its chain
        List<byte[]> tagged = new ArrayList<>();
        for (int i = 0; i < seeds.size(); i++) {
            byte[] t = new byte[seeds.get(i).length + 1];
            t[0] = (byte) i;
            System.arraycopy(seeds.get(i), 0, t, 1, seeds.get(i).length);
            tagged.add(t);
        }
        check(Fuzz.run("shard index", tagged, (in, r) -> {
            byte[] m = Mutations.bytes(java.util.Arrays.copyOfRange(in, 1, in.length), r);
            byte[] t = new byte[m.length + 1];
            t[0] = in[0];
            System.arraycopy(m, 0, t, 1, m.length);
            return t;
        }, in -> {
            MemoryStore s = stores.get(Math.floorMod(in[0], stores.size()));
            MemoryStore copy = new MemoryStore();
            copy.set("zarr.json", MemorySegment.ofArray(get(s, "zarr.json")));
            copy.set("c/0/0", MemorySegment.ofArray(java.util.Arrays.copyOfRange(in, 1, in.length)));
            ZarrArray a = Zarr.openArray(ctx, copy, "");
            try (Tensor t = a.read()) {
                // decoded or refused
            }
            try (Tensor t = a.read(new Selection(new long[]{1, 2}, new long[]{2, 3}))) {
                // a partial read goes through the index alone
            }
        }));
    }

    // ------------------------------------------------------------------------------------- frames

    @Test
    void zstdFramesOnlyEverDecodeOrAreRefused() {
        frames("zstd", Map.of("level", 3L, "checksum", false), Map.of("level", 19L, "checksum", true));
    }

    @Test
    void bloscFramesOnlyEverDecodeOrAreRefused() {
        frames("blosc", Map.of("cname", "lz4", "clevel", 5L, "shuffle", "shuffle", "typesize", 2L, "blocksize", 256L),
                Map.of("cname", "zstd", "clevel", 3L, "shuffle", "bitshuffle", "typesize", 2L, "blocksize", 0L),
                Map.of("cname", "blosclz", "clevel", 9L, "shuffle", "noshuffle", "typesize", 1L, "blocksize", 0L),
                Map.of("cname", "zlib", "clevel", 1L, "shuffle", "shuffle", "typesize", 4L, "blocksize", 128L));
    }

    @Test
    void gzipAndZlibStreamsOnlyEverDecodeOrAreRefused() {
        frames("gzip", Map.of("level", 1L), Map.of("level", 9L));
        frames("numcodecs.zlib", Map.of("level", 6L));
    }

    /** Encodes sample data with {@code codec} in each configuration and fuzzes the decoder with the results. */
    @SafeVarargs
    private void frames(String codec, Map<String, Object>... configurations) {
        List<byte[]> seeds = new ArrayList<>();
        List<BytesToBytesCodec> codecs = new ArrayList<>();
        byte[] data = sample(3000);
        for (int i = 0; i < configurations.length; i++) {
            BytesToBytesCodec c = (BytesToBytesCodec) cpu.create(codec, configurations[i], Device.CPU).orElseThrow();
            codecs.add(c);
            byte[] enc = encode(c, data);
            byte[] tagged = new byte[enc.length + 1];
            tagged[0] = (byte) i;
            System.arraycopy(enc, 0, tagged, 1, enc.length);
            seeds.add(tagged);
        }
        check(Fuzz.run(codec + " frames", seeds, (in, r) -> {
            byte[] m = Mutations.bytes(java.util.Arrays.copyOfRange(in, 1, in.length), r);
            byte[] t = new byte[m.length + 1];
            t[0] = in[0];
            System.arraycopy(m, 0, t, 1, m.length);
            return t;
        }, in -> {
            BytesToBytesCodec c = codecs.get(Math.floorMod(in[0], codecs.size()));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment src = arena.allocate(Math.max(1, in.length - 1)).asSlice(0, in.length - 1);
                MemorySegment.copy(in, 1, src, ValueLayout.JAVA_BYTE, 0, in.length - 1);
                MemorySegment dst = arena.allocate(data.length);
                CodecBatch b = CodecBatch.of(HostBuffer.wrap(src), HostBuffer.wrap(dst), "frame");
                c.decode(b);
                b.throwIfFailed();
            }
        }));
    }

    // ------------------------------------------------------------------------------------- zip

    @Test
    void damagedZipArchivesOnlyEverOpenOrAreRefused() throws IOException {
        Path zip = dir.resolve("seed.zip");
        try (ZipStore z = ZipStore.create(zip)) {
            ZarrArray a = Zarr.createArray(ctx, z, "t2m", ArrayMetadata.create(SHAPE, DT, new long[]{3, 5},
                    FillValue.zero(DT), List.of(bytes(), zstd())));
            try (Tensor t = sampleTensor()) {
                a.write(t);
            }
            Zarr.createGroup(ctx, z, "", Map.of());
        }
        byte[] seed = Files.readAllBytes(zip);
        Path file = dir.resolve("fuzzed.zip");
        check(Fuzz.run("zip central directory", List.of(seed), Mutations::tail, in -> {
            Files.write(file, in);
            try (ZipStore z = ZipStore.open(file)) {
                openAndTouch(z);
                for (String key : z.list("")) {
                    try (Arena arena = Arena.ofConfined()) {
                        z.get(key, arena);
                    }
                }
            }
        }));
    }

    // ------------------------------------------------------------------------------------- helpers

    private static void check(int[] result) {
        assertTrue(result[0] > 0, "no inputs ran");
    }

    /** Opens the node at the root; reads one element of an array, opens the members of a group. */
    private static void openAndTouch(Store s) {
        Object node = Zarr.open(ctx, s, "");
        if (node instanceof ZarrArray a) {
            touch(a);
        } else if (node instanceof ZarrGroup g) {
            int n = 0;
            for (String m : g.members()) {
                if (n++ == 8) {
                    break;
                }
                if (g.open(m) instanceof ZarrArray a) {
                    touch(a);
                }
            }
        }
    }

    private static void touch(ZarrArray a) {
        long[] shape = a.shape();
        long[] one = new long[shape.length];
        for (long d : shape) {
            if (d == 0) {
                return;
            }
        }
        java.util.Arrays.fill(one, 1);
        try (Tensor t = a.read(new Selection(new long[shape.length], one))) {
            // read or refused
        }
    }

    private static List<List<CodecMetadata>> chains() {
        return List.of(
                List.of(bytes(), zstd()),
                List.of(CodecMetadata.of("transpose", Map.of("order", List.of(1L, 0L))), bytes(),
                        CodecMetadata.of("gzip", Map.of("level", 1L)), crc32c()),
                List.of(sharding(List.of(bytes(), zstd()), List.of(bytes(), crc32c()), "end")),
                List.of(bytes(), CodecMetadata.of("blosc", Map.of("cname", "lz4", "clevel", 5L, "shuffle", "shuffle",
                        "typesize", 2L, "blocksize", 0L))));
    }

    private static MemoryStore written(List<CodecMetadata> chain) {
        MemoryStore s = new MemoryStore();
        ZarrArray a = Zarr.createArray(ctx, s, "", ArrayMetadata.create(SHAPE, DT, SHAPE, FillValue.zero(DT), chain));
        try (Tensor t = sampleTensor()) {
            a.write(t);
        }
        return s;
    }

    private static Tensor sampleTensor() {
        Tensor t = Tensor.allocateHost(DT, SHAPE);
        for (long i = 0; i < t.elementCount(); i++) {
            t.segment().setAtIndex(ValueLayout.JAVA_SHORT, i, (short) (i * 7 % 50 - 20));
        }
        return t;
    }

    private static byte[] sample(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ((i % 7) * (i / 100) + (i % 13 == 0 ? i : 0));
        }
        return b;
    }

    private static byte[] encode(BytesToBytesCodec c, byte[] data) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(data.length).copyFrom(MemorySegment.ofArray(data));
            MemorySegment dst = arena.allocate(c.maxEncodedSize(data.length));
            CodecBatch b = CodecBatch.of(HostBuffer.wrap(src), HostBuffer.wrap(dst), "seed");
            c.encode(b);
            b.throwIfFailed();
            return dst.asSlice(0, b.written(0)).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static byte[] zarray(String compressor, String filters, String dtype, String order) {
        return ("{\"chunks\": [3, 5], \"compressor\": " + compressor + ", \"dtype\": \"" + dtype
                + "\", \"fill_value\": 0, \"filters\": " + filters + ", \"order\": \"" + order
                + "\", \"shape\": [6, 10], \"zarr_format\": 2}").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] get(Store s, String key) {
        try (Arena arena = Arena.ofConfined()) {
            return s.get(key, arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static MemorySegment text(String s) {
        return MemorySegment.ofArray(s.getBytes(StandardCharsets.UTF_8));
    }

    private static CodecMetadata bytes() {
        return CodecMetadata.of("bytes", Map.of("endian", "little"));
    }

    private static CodecMetadata zstd() {
        return CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false));
    }

    private static CodecMetadata crc32c() {
        return CodecMetadata.of("crc32c", Map.of());
    }

    private static CodecMetadata sharding(List<CodecMetadata> codecs, List<CodecMetadata> index, String location) {
        return CodecMetadata.of("sharding_indexed", Map.of("chunk_shape", List.of(3L, 5L),
                "codecs", codecs.stream().map(CodecMetadata::toJson).toList(),
                "index_codecs", index.stream().map(CodecMetadata::toJson).toList(), "index_location", location));
    }
}
