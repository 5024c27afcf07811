// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.v2;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.metadata.v2.V2ArrayMetadata;
import dev.zarrdirect.core.metadata.v2.V2Codecs;
import dev.zarrdirect.core.metadata.v2.V2DataType;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static dev.zarrdirect.core.v2.V2Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Arrays written with the v2 writer and read back: every type, both orders, both byte orders. */
class V2RoundTripTest {

    static final long SEED = Long.getLong("zd.seed", System.nanoTime());
    static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 3);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    /** Name, compressor, filters, the codec names the chain needs, whether float types are included. */
    static Stream<Arguments> codecs() {
        return Stream.of(
                Arguments.of("no compressor", null, List.of(), List.of(), true),
                Arguments.of("gzip", Map.of("id", "gzip", "level", 1), List.of(), List.of("gzip"), true),
                Arguments.of("zstd", Map.of("id", "zstd", "level", 3), List.of(), List.of("zstd"), true),
                Arguments.of("zstd with checksum", Map.of("id", "zstd", "level", 1, "checksum", true), List.of(),
                        List.of("zstd"), true),
                Arguments.of("zlib", Map.of("id", "zlib", "level", 5), List.of(), List.of(V2Codecs.NUMCODECS_ZLIB), true),
                Arguments.of("blosc lz4 shuffle", Map.of("id", "blosc", "cname", "lz4", "clevel", 5, "shuffle", 1,
                        "blocksize", 0), List.of(), List.of(V2Codecs.BLOSC), true),
                Arguments.of("blosc zstd bitshuffle", Map.of("id", "blosc", "cname", "zstd", "clevel", 3, "shuffle", 2,
                        "blocksize", 0), List.of(), List.of(V2Codecs.BLOSC), true),
                Arguments.of("shuffle + zlib", Map.of("id", "zlib", "level", 1),
                        List.of(Map.of("id", "shuffle", "elementsize", 4)),
                        List.of(V2Codecs.NUMCODECS_SHUFFLE, V2Codecs.NUMCODECS_ZLIB), true),
                // Delta of floats is lossy in numcodecs too (differences are rounded); integers only.
                Arguments.of("delta + zstd", Map.of("id", "zstd", "level", 1), List.of(Map.of("id", "delta")),
                        List.of(V2Codecs.NUMCODECS_DELTA, "zstd"), false));
    }

    @ParameterizedTest(name = "{0}: every data type round-trips in C and F order, little and big endian")
    @MethodSource("codecs")
    void everyDataTypeRoundTripsInBothOrdersAndByteOrders(String name, Map<String, Object> compressor,
                                                          List<Map<String, Object>> filters, List<String> needs,
                                                          boolean floats) {
        for (String codec : needs) {
            assumeTrue(ctx.codecs().knows(codec), "codec \"" + codec + "\" has no implementation yet (" + name + ")");
        }
        Random rnd = new Random(SEED);
        long[] shape = {5, 7, 6};
        long[] chunks = {2, 3, 4};
        for (DataType dt : allTypes()) {
            boolean delta = !filters.isEmpty() && "delta".equals(filters.getFirst().get("id"));
            if (delta && (dt.kind() != DataType.Kind.INT && dt.kind() != DataType.Kind.UINT)) {
                continue;
            }
            for (char order : new char[]{'C', 'F'}) {
                for (V2DataType type : List.of(V2DataType.little(dt), V2DataType.big(dt))) {
                    List<Map<String, Object>> f = delta ? List.of(Map.of("id", "delta", "dtype", type.typestr()))
                            : filters;
                    String what = name + " " + type + " order " + order + " (seed " + SEED + ")";
                    Store store = new MemoryStore();
                    V2ArrayMetadata md = V2ArrayMetadata.builder(shape, chunks, type).order(order)
                            .compressor(compressor).filters(f).dimensionSeparator(order == 'F' ? '/' : '.').build();
                    ZarrArray a = Zarr.createArrayV2(ctx, store, "g/a", md);
                    try (Tensor data = random(dt, shape, rnd)) {
                        a.write(data);
                        ZarrArray back = Zarr.openArray(ctx, store, "g/a");
                        assertEquals(2, back.zarrFormat(), what);
                        assertEquals(md, back.v2Metadata().orElseThrow(), what);
                        try (Tensor all = back.read()) {
                            assertSameBytes(data, all, what + " whole read");
                        }
                        Selection sel = Selection.at(new long[]{1, 2, 3}, new long[]{3, 4, 2});
                        try (Tensor part = back.read(sel)) {
                            long es = dt.byteSize();
                            for (long i = 0; i < 3; i++) {
                                for (long j = 0; j < 4; j++) {
                                    for (long k = 0; k < 2; k++) {
                                        long src = (((1 + i) * 7 + (2 + j)) * 6 + (3 + k)) * es;
                                        long dst = ((i * 4 + j) * 2 + k) * es;
                                        assertEquals(-1, data.segment().asSlice(src, es).mismatch(part.segment()
                                                .asSlice(dst, es)), what + " element " + i + "," + j + "," + k);
                                    }
                                }
                            }
                        }
                    }
                    String sep = order == 'F' ? "/" : ".";
                    assertEquals("g/a/2" + sep + "2" + sep + "1", a.chunkKey(new long[]{2, 2, 1}), what);
                    List<String> chunkKeys = store.list("g/a/").stream().filter(k -> !k.endsWith(".zarray")).toList();
                    assertFalse(chunkKeys.isEmpty(), what + ": no chunk was stored");
                    String pattern = "g/a/\\d+" + ("/".equals(sep) ? "/" : "\\.") + "\\d+"
                            + ("/".equals(sep) ? "/" : "\\.") + "\\d+";
                    assertTrue(chunkKeys.stream().allMatch(k -> k.matches(pattern)), what + ": chunk keys " + chunkKeys);
                }
            }
        }
    }

    @Test
    void aFortranOrderArrayWritesItsChunksInFortranOrder() {
        Store store = new MemoryStore();
        V2ArrayMetadata md = V2ArrayMetadata.builder(new long[]{2, 3}, new long[]{2, 3}, V2DataType.big(DataType.INT16))
                .order('F').build();
        ZarrArray a = Zarr.createArrayV2(ctx, store, "", md);
        try (Tensor t = Tensor.allocateHost(DataType.INT16, 2, 3)) {
            for (int i = 0; i < 6; i++) {
                t.segment().setAtIndex(ValueLayout.JAVA_SHORT, i, (short) (i + 1)); // [[1,2,3],[4,5,6]]
            }
            a.write(t);
        }
        byte[] chunk = store.get("0.0", java.lang.foreign.Arena.global()).orElseThrow().toArray(ValueLayout.JAVA_BYTE);
        // Column-major, big-endian: 1, 4, 2, 5, 3, 6.
        assertArrayEquals(new byte[]{0, 1, 0, 4, 0, 2, 0, 5, 0, 3, 0, 6}, chunk);
    }

    @Test
    void attributesAreWrittenToZattrsOnlyWhenThereAreAny() {
        Store store = new MemoryStore();
        V2ArrayMetadata md = V2ArrayMetadata.builder(new long[]{4}, new long[]{2}, V2DataType.little(DataType.FLOAT32))
                .fillValue(FillValue.parse("NaN", DataType.FLOAT32, "t")).build();
        Zarr.createArrayV2(ctx, store, "x", md);
        assertTrue(store.exists("x/.zarray"));
        assertFalse(store.exists("x/.zattrs"));
        Zarr.createArrayV2(ctx, store, "x", md.withAttributes(Map.of("units", "K")));
        assertEquals(Map.of("units", "K"), Zarr.openArray(ctx, store, "x").attributes());
        assertTrue(text(store, "x/.zattrs").contains("\"units\": \"K\""));
        try (Tensor t = Zarr.openArray(ctx, store, "x").read()) {
            assertTrue(Float.isNaN(t.segment().getAtIndex(ValueLayout.JAVA_FLOAT, 3)), "a missing chunk reads as NaN");
        }
    }
}
