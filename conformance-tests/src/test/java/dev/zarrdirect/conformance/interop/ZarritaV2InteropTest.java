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
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.metadata.v2.V2ArrayMetadata;
import dev.zarrdirect.core.metadata.v2.V2DataType;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Zarr v2 interoperability with zarrita.js 0.7.5 and numcodecs.js 0.3.2, compared by the
 * element-wise SHA-256 both sides compute.
 *
 * <p>zarrita reads v2 but has no v2 writer ({@code zarr.create} writes v3 metadata only). So the
 * arrays read here come from interop/v2-write.mjs, which lays out {@code .zarray}, chunk order,
 * byte order and the shuffle and delta filters itself and compresses with numcodecs.js (zlib, gzip,
 * zstd, blosc), plus three arrays whose chunks zarrita encodes through {@code zarr.open.v2} and
 * {@code zarr.set}; the expected checksums come from the script's formulas. The other way, zarrita
 * reads v2 arrays written here in C and F order, both byte orders, every compressor and filter.
 *
 * <p>Needs Node and the packages of interop/; {@link ZarritaNode#start()} says when the test is
 * skipped and when it fails instead.
 */
class ZarritaV2InteropTest {

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

    /** fixture path -> expected SHA-256, from the root .zattrs the script writes. */
    @SuppressWarnings("unchecked")
    static Map<String, String> expected(Path dir) throws IOException {
        String what = "root .zattrs of " + dir;
        Map<String, Object> attrs = Json.object(Json.parse(Files.readString(dir.resolve(".zattrs")), what), what);
        Map<String, String> out = new TreeMap<>();
        ((Map<String, Object>) attrs.get("fixtures")).forEach((name, fx) ->
                out.put(name, (String) ((Map<String, Object>) fx).get("expected_sha256")));
        return out;
    }

    static Map<String, String> ourChecksums(Path dir, Iterable<String> names) {
        Map<String, String> ours = new TreeMap<>();
        try (FileSystemStore store = FileSystemStore.open(dir)) {
            for (String name : names) {
                ZarrArray a = Zarr.openArray(ctx, store, name);
                assertEquals(2, a.zarrFormat(), name + " should open as Zarr v2");
                ours.put(name, ArrayChecksum.sha256(a));
            }
        }
        return ours;
    }

    @Test
    void v2ArraysWrittenByNumcodecsJsAndZarritaReadIdenticallyWithAndWithoutConsolidatedMetadata(
            @TempDir Path dir) throws IOException {
        Path fixtures = dir.resolve("v2");
        node.write("v2-write.mjs", fixtures.toString());
        Map<String, String> expected = expected(fixtures);
        assertTrue(expected.size() >= 20, "the script wrote only " + expected.keySet());
        assertEquals(expected, node.checksums(fixtures), "zarrita's checksums against the script's formulas");

        assertEquals(expected, ourChecksums(fixtures, expected.keySet()), "read through the root .zmetadata");
        try (FileSystemStore store = FileSystemStore.open(fixtures)) {
            ZarrGroup root = Zarr.openGroup(ctx, store, "");
            assertTrue(root.members().containsAll(List.of("sub", "int32_c_zlib", "zarrita_float32_f_big_blosc")),
                    "members " + root.members());
            assertEquals(List.of("lat", "lon"), Zarr.openArray(ctx, store, "float64_null_fill_dims").attributes()
                    .get("_ARRAY_DIMENSIONS"));
        }
        Files.delete(fixtures.resolve(".zmetadata"));
        assertEquals(expected, ourChecksums(fixtures, expected.keySet()), "read from each .zarray");
    }

    static Map<String, Object> blosc(String cname, int shuffle, int clevel) {
        return Map.of("id", "blosc", "cname", cname, "clevel", clevel, "shuffle", shuffle, "blocksize", 0);
    }

    /** What one array written here is: its path, metadata and whether only its first chunk is written. */
    record Spec(String path, V2ArrayMetadata md, boolean sparse) {
    }

    static List<Spec> specs() {
        List<DataType> types = List.of(DataType.INT8, DataType.UINT8, DataType.INT16, DataType.UINT16, DataType.INT32,
                DataType.UINT32, DataType.INT64, DataType.UINT64, DataType.FLOAT32, DataType.FLOAT64, DataType.BOOL);
        Map<String, Map<String, Object>> compressors = new LinkedHashMap<>();
        compressors.put("raw", null);
        compressors.put("zlib", Map.of("id", "zlib", "level", 5));
        compressors.put("gzip", Map.of("id", "gzip", "level", 5));
        compressors.put("zstd", Map.of("id", "zstd", "level", 3));
        compressors.put("blosc_lz4_shuffle", blosc("lz4", 1, 5));
        compressors.put("blosc_zstd_bitshuffle", blosc("zstd", 2, 3));
        compressors.put("blosc_blosclz_noshuffle", blosc("blosclz", 0, 9));
        compressors.put("blosc_zlib_shuffle", blosc("zlib", 1, 5));
        compressors.put("blosc_lz4hc_autoshuffle", blosc("lz4hc", -1, 9));
        List<Spec> specs = new ArrayList<>();
        int k = 0;
        long[] shape = {7, 9, 5};
        long[] chunks = {3, 4, 5};
        // Every compressor in C and F order, little and big endian, cycling through the types.
        for (var c : compressors.entrySet()) {
            for (char order : new char[]{'C', 'F'}) {
                for (boolean big : new boolean[]{false, true}) {
                    DataType dt = types.get(k++ % types.size());
                    V2DataType type = big ? V2DataType.big(dt) : V2DataType.little(dt);
                    String name = c.getKey() + "_" + order + "_" + (big ? "big" : "little") + "_" + dt.name();
                    specs.add(new Spec(name, V2ArrayMetadata.builder(shape, chunks, type).order(order)
                            .compressor(c.getValue()).dimensionSeparator(k % 2 == 0 ? '/' : '.').build(), false));
                }
            }
        }
        // Filters: zarrita's shuffle uses the element size (numcodecs' elementsize must match it).
        V2DataType i32be = V2DataType.big(DataType.INT32);
        specs.add(new Spec("shuffle_zlib_F_big_int32", V2ArrayMetadata.builder(shape, chunks, i32be).order('F')
                .filters(List.of(Map.of("id", "shuffle", "elementsize", 4))).compressor(Map.of("id", "zlib", "level", 1))
                .build(), false));
        V2DataType i16 = V2DataType.little(DataType.INT16);
        specs.add(new Spec("delta_zstd_C_little_int16", V2ArrayMetadata.builder(shape, chunks, i16)
                .filters(List.of(Map.of("id", "delta", "dtype", i16.typestr()))).compressor(Map.of("id", "zstd", "level", 1))
                .build(), false));
        V2DataType u64be = V2DataType.big(DataType.UINT64);
        specs.add(new Spec("delta_shuffle_blosc_F_big_uint64", V2ArrayMetadata.builder(shape, chunks, u64be).order('F')
                .filters(List.of(Map.of("id", "delta", "dtype", u64be.typestr()), Map.of("id", "shuffle", "elementsize", 8)))
                .compressor(blosc("lz4", 0, 5)).build(), false));
        // Fill values, missing chunks, no fill value, a 0-d array, a nested group, dimension names.
        specs.add(new Spec("missing_int8", V2ArrayMetadata.builder(new long[]{8, 8}, new long[]{4, 4},
                V2DataType.little(DataType.INT8)).fillValue(FillValue.parse(7L, DataType.INT8, "test"))
                .compressor(Map.of("id", "zlib", "level", 5)).build(), true));
        specs.add(new Spec("nan_fill_F_float32", V2ArrayMetadata.builder(new long[]{5, 7}, new long[]{2, 3},
                V2DataType.little(DataType.FLOAT32)).order('F').fillValue(FillValue.parse("NaN", DataType.FLOAT32, "test"))
                .compressor(blosc("lz4", 1, 5)).build(), true));
        specs.add(new Spec("no_fill_value_float64", V2ArrayMetadata.builder(new long[]{6, 4}, new long[]{4, 4},
                V2DataType.little(DataType.FLOAT64)).noFillValue().compressor(Map.of("id", "gzip", "level", 1))
                .attributes(Map.of("_ARRAY_DIMENSIONS", List.of("lat", "lon"))).build(), false));
        specs.add(new Spec("scalar_float64", V2ArrayMetadata.builder(new long[0], new long[0],
                V2DataType.big(DataType.FLOAT64)).compressor(Map.of("id", "zstd", "level", 3)).build(), false));
        specs.add(new Spec("sub/nested_uint32", V2ArrayMetadata.builder(new long[]{33}, new long[]{10},
                V2DataType.little(DataType.UINT32)).compressor(blosc("zstd", 1, 5)).build(), false));
        return specs;
    }

    @Test
    void v2ArraysWrittenHereReadIdenticallyInZarritaInBothOrdersByteOrdersAndEveryCompressor(@TempDir Path dir) {
        Path out = dir.resolve("ours");
        Map<String, String> ours = new TreeMap<>();
        Random rnd = new Random(SEED);
        try (FileSystemStore store = FileSystemStore.create(out)) {
            Zarr.createGroupV2(ctx, store, "", Map.of("written_by", "zarr-direct"));
            Zarr.createGroupV2(ctx, store, "sub", Map.of());
            for (Spec s : specs()) {
                ZarrArray a = Zarr.createArrayV2(ctx, store, s.path, s.md);
                DataType dt = s.md.dtype().dataType();
                try (Tensor t = InteropData.random(dt, s.sparse ? s.md.chunks() : s.md.shape(), rnd)) {
                    a.write(new long[s.md.shape().length], t);
                    // A whole write's expected checksum is the source's; a sparse one's includes the fill.
                    ours.put(s.path, s.sparse ? ArrayChecksum.sha256(a) : ArrayChecksum.sha256(t));
                }
                if (!s.sparse) {
                    assertEquals(ours.get(s.path), ArrayChecksum.sha256(a), s.path + " read back here");
                }
            }
            Zarr.consolidate(store);
        }
        assertEquals(ours, node.checksums(out), "zarrita's checksums of the v2 arrays written here (seed " + SEED + ")");
    }
}
