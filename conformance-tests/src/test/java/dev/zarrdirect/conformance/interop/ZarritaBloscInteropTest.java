// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.interop;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The Zarr v3 {@code blosc} codec against zarrita.js 0.7.5, which encodes and decodes it with
 * numcodecs.js 0.3.2 (c-blosc 1.x compiled to WebAssembly), compared by the element-wise SHA-256.
 *
 * <p>zarrita hands the v3 configuration to numcodecs.js as it is, and numcodecs.js wants the
 * shuffle as 0/1/2: given the word ({@code "shuffle"}) it silently writes unshuffled blocks, and
 * it always writes typesize 4. interop/zarrita-write.mjs translates the word; the typesize stays 4,
 * so the arrays read here include shuffled blocks whose typesize differs from the element size.
 *
 * <p>Needs Node and the packages of interop/; {@link ZarritaNode#start()} says when the test is
 * skipped and when it fails instead.
 */
class ZarritaBloscInteropTest {

    static final long SEED = Long.getLong("zd.seed", 20261121L);
    static ZarritaNode node;
    static ZarrContext ctx;

    @BeforeAll
    static void setUp() {
        node = ZarritaNode.start();
        ctx = ZarrContext.open("cpu", 2);
    }

    @AfterAll
    static void tearDown() {
        if (ctx != null) {
            ctx.close();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void bloscArraysWrittenByZarritaReadIdentically(@TempDir Path dir) throws IOException {
        Path fixtures = dir.resolve("zarrita-blosc");
        node.write("zarrita-write.mjs", fixtures.toString(), "blosc");
        String what = fixtures + "/zarr.json";
        Map<String, Object> root = Json.object(Json.parse(Files.readString(fixtures.resolve("zarr.json")), what), what);
        Map<String, String> expected = new TreeMap<>();
        ((Map<String, Object>) ((Map<String, Object>) root.get("attributes")).get("fixtures")).forEach((name, fx) ->
                expected.put(name, (String) ((Map<String, Object>) fx).get("expected_sha256")));
        assertTrue(expected.size() >= 7, "zarrita wrote only " + expected.keySet());
        assertEquals(expected, node.checksums(fixtures), "zarrita's checksums against the script's formulas");

        Map<String, String> ours = new TreeMap<>();
        try (FileSystemStore store = FileSystemStore.open(fixtures)) {
            ZarrGroup group = Zarr.openGroup(ctx, store, "");
            for (String name : group.members()) {
                ZarrArray a = group.openArray(name);
                assertTrue(a.metadata().codecs().stream().anyMatch(c -> c.name().equals("blosc")), name + " uses blosc");
                ours.put(name, ArrayChecksum.sha256(a));
            }
        }
        assertEquals(expected, ours);
    }

    static CodecMetadata blosc(String cname, String shuffle, long typesize, long clevel) {
        return CodecMetadata.of("blosc", Map.of("cname", cname, "clevel", clevel, "shuffle", shuffle,
                "typesize", typesize, "blocksize", 0L));
    }

    static CodecMetadata bytes(String endian) {
        return CodecMetadata.of("bytes", Map.of("endian", endian));
    }

    @Test
    void bloscArraysWrittenHereReadIdenticallyInZarritaForEveryCompressorAndShuffle(@TempDir Path dir) {
        Path out = dir.resolve("ours");
        List<DataType> types = List.of(DataType.FLOAT32, DataType.INT16, DataType.FLOAT64, DataType.UINT8,
                DataType.INT64, DataType.UINT32, DataType.BOOL, DataType.INT32);
        record Spec(String name, DataType dt, long[] shape, long[] chunks, FillValue fill, List<CodecMetadata> codecs,
                    boolean sparse) {
        }
        List<Spec> specs = new ArrayList<>();
        int k = 0;
        for (String cname : List.of("lz4", "lz4hc", "blosclz", "zlib", "zstd")) {
            for (String shuffle : List.of("noshuffle", "shuffle", "bitshuffle")) {
                DataType dt = types.get(k++ % types.size());
                specs.add(new Spec(cname + "_" + shuffle + "_" + dt.name(), dt, new long[]{37, 41}, new long[]{16, 16},
                        FillValue.zero(dt), List.of(bytes(k % 2 == 0 ? "big" : "little"),
                        blosc(cname, shuffle, dt.byteSize(), 1 + k % 9)), false));
            }
        }
        // A typesize other than the element size, a large block, a transpose, a shard, missing chunks.
        specs.add(new Spec("typesize_mismatch_float64", DataType.FLOAT64, new long[]{50, 20}, new long[]{25, 20},
                FillValue.zero(DataType.FLOAT64), List.of(bytes("little"), blosc("lz4", "shuffle", 4, 5)), false));
        specs.add(new Spec("blocksize_4096_float32", DataType.FLOAT32, new long[]{64, 64}, new long[]{64, 64},
                FillValue.zero(DataType.FLOAT32), List.of(bytes("little"), CodecMetadata.of("blosc", Map.of("cname",
                "zstd", "clevel", 5L, "shuffle", "shuffle", "typesize", 4L, "blocksize", 4096L))), false));
        specs.add(new Spec("transpose_big_uint16", DataType.UINT16, new long[]{6, 9, 4}, new long[]{4, 4, 3},
                FillValue.zero(DataType.UINT16), List.of(CodecMetadata.of("transpose", Map.of("order", List.of(2L, 0L, 1L))),
                bytes("big"), blosc("lz4", "bitshuffle", 2, 5)), false));
        specs.add(new Spec("sharded_float32", DataType.FLOAT32, new long[]{16, 20}, new long[]{8, 8},
                FillValue.zero(DataType.FLOAT32), List.of(CodecMetadata.of("sharding_indexed", Map.of(
                "chunk_shape", List.of(4L, 4L),
                "codecs", List.of(bytes("little").toJson(), blosc("zstd", "shuffle", 4, 3).toJson()),
                "index_codecs", List.of(bytes("little").toJson(), CodecMetadata.of("crc32c", Map.of()).toJson()),
                "index_location", "end"))), false));
        specs.add(new Spec("missing_int8", DataType.INT8, new long[]{8, 8}, new long[]{4, 4},
                FillValue.parse(7L, DataType.INT8, "test"), List.of(bytes("little"), blosc("blosclz", "shuffle", 1, 5)),
                true));

        Map<String, String> ours = new TreeMap<>();
        Random rnd = new Random(SEED);
        try (FileSystemStore store = FileSystemStore.create(out)) {
            ZarrGroup root = Zarr.createGroup(ctx, store, "", Map.of("written_by", "zarr-direct"));
            for (Spec s : specs) {
                ZarrArray a = root.createArray(s.name, ArrayMetadata.create(s.shape, s.dt, s.chunks, s.fill, s.codecs));
                try (Tensor t = InteropData.random(s.dt, s.sparse ? s.chunks : s.shape, rnd)) {
                    a.write(new long[s.shape.length], t);
                    ours.put(s.name, s.sparse ? ArrayChecksum.sha256(a) : ArrayChecksum.sha256(t));
                }
            }
        }
        assertEquals(ours, node.checksums(out), "zarrita's checksums of the blosc arrays written here (seed " + SEED + ")");
    }
}
