// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.corrupt;

import dev.zarrdirect.api.ChecksumMismatchException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Damaged data gives an exception that names the key (and the codec), never a hang, a crash or
 * silently wrong numbers.
 */
@Timeout(60)
class CorruptInputTest {

    static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 2);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    static ZarrArray array(Store store, List<CodecMetadata> codecs) {
        long[] shape = {4, 64};
        ZarrArray a = Zarr.createArray(ctx, store, "t2m", ArrayMetadata.create(shape, DataType.FLOAT32,
                new long[]{2, 64}, FillValue.zero(DataType.FLOAT32), codecs));
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, shape)) {
            Random r = new Random(42);
            for (long i = 0; i < t.elementCount(); i++) {
                t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) Math.sin(i / 10.0) + r.nextFloat() * 0.01f);
            }
            a.write(t);
        }
        return a;
    }

    static byte[] get(Store s, String key) {
        try (Arena arena = Arena.ofConfined()) {
            return s.get(key, arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE);
        }
    }

    static void put(Store s, String key, byte[] b) {
        s.set(key, MemorySegment.ofArray(b));
    }

    static final List<CodecMetadata> ZSTD = List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
            CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false)));
    static final List<CodecMetadata> ZSTD_CRC = List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
            CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false)), CodecMetadata.of("crc32c", Map.of()));

    @Test
    void aTruncatedZstdChunkNamesItsKey() {
        Store store = new MemoryStore();
        ZarrArray a = array(store, ZSTD);
        byte[] c = get(store, "t2m/c/1/0");
        put(store, "t2m/c/1/0", java.util.Arrays.copyOf(c, c.length / 2));
        CorruptChunkException e = assertThrows(CorruptChunkException.class, a::read);
        assertTrue(e.getMessage().contains("t2m/c/1/0"), e.getMessage());
        assertTrue(e.getMessage().contains("zstd"), e.getMessage());
    }

    @Test
    void aWrongCrc32cGivesBothValuesAndTheKey() {
        Store store = new MemoryStore();
        ZarrArray a = array(store, ZSTD_CRC);
        byte[] c = get(store, "t2m/c/0/0");
        c[c.length - 1] ^= 0x5A;
        put(store, "t2m/c/0/0", c);
        ChecksumMismatchException e = assertThrows(ChecksumMismatchException.class, a::read);
        assertTrue(e.getMessage().contains("t2m/c/0/0"), e.getMessage());
        assertNotEquals(e.stored(), e.computed());
    }

    @Test
    void everySingleBitFlipOfAZstdFrameIsCaughtOrDecodesToTheRightSize() {
        Store store = new MemoryStore();
        ZarrArray a = array(store, ZSTD);
        byte[] original = get(store, "t2m/c/0/0");
        for (int bit = 0; bit < original.length * 8; bit += 7) {
            byte[] c = original.clone();
            c[bit / 8] ^= (byte) (1 << (bit % 8));
            put(store, "t2m/c/0/0", c);
            try (Tensor t = a.read()) {
                // Some flips land in literals and still give a valid frame: that is zstd without a checksum.
                assertEquals(4 * 64, t.elementCount());
            } catch (ZarrDirectException e) {
                assertTrue(e.getMessage().contains("t2m/c/0/0"), "bit " + bit + ": " + e.getMessage());
            }
        }
    }

    @Test
    void aDamagedChunkDoesNotStopTheOtherChunksOfAnotherRead() {
        Store store = new MemoryStore();
        ZarrArray a = array(store, ZSTD);
        put(store, "t2m/c/1/0", new byte[]{1, 2, 3});
        assertThrows(CorruptChunkException.class, a::read);
        try (Tensor first = a.read(dev.zarrdirect.core.Selection.parse("0:2", a.shape()))) {
            assertEquals((float) Math.sin(1 / 10.0), first.segment().getAtIndex(ValueLayout.JAVA_FLOAT, 1), 0.02f);
        }
    }

    @Test
    void anUncompressedChunkOfTheWrongSizeIsReportedWithBothSizes() {
        Store store = new MemoryStore();
        ZarrArray a = array(store, List.of(CodecMetadata.of("bytes", Map.of("endian", "little"))));
        put(store, "t2m/c/0/0", new byte[100]);
        CorruptChunkException e = assertThrows(CorruptChunkException.class, a::read);
        assertTrue(e.getMessage().contains("100") && e.getMessage().contains(String.valueOf(2 * 64 * 4)), e.getMessage());
        assertTrue(e.getMessage().contains("t2m/c/0/0"), e.getMessage());
    }

    @Test
    void aShardWithAnIndexPointingOutsideItIsCorruptNotACrash() {
        Store store = new MemoryStore();
        CodecMetadata shard = CodecMetadata.of("sharding_indexed", Map.of("chunk_shape", List.of(1L, 64L),
                "codecs", List.of(Map.of("name", "bytes", "configuration", Map.of("endian", "little"))),
                "index_codecs", List.of(Map.of("name", "bytes", "configuration", Map.of("endian", "little"))),
                "index_location", "end"));
        ZarrArray a = array(store, List.of(shard));
        byte[] c = get(store, "t2m/c/0/0");
        // First index entry's offset: make it point far past the end.
        int idx = c.length - 2 * 16;
        c[idx + 6] = 0x7F;
        put(store, "t2m/c/0/0", c);
        CorruptChunkException e = assertThrows(CorruptChunkException.class, a::read);
        assertTrue(e.getMessage().contains("t2m/c/0/0"), e.getMessage());
        put(store, "t2m/c/0/0", new byte[]{1, 2});
        e = assertThrows(CorruptChunkException.class, a::read);
        assertTrue(e.getMessage().contains("shorter") || e.getMessage().contains("fewer"), e.getMessage());
    }

    @Test
    void malformedZarrJsonNamesTheKey() {
        Store store = new MemoryStore();
        for (String bad : List.of("{", "[]", "{\"zarr_format\": 3, \"node_type\": \"array\"}",
                "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], \"data_type\": \"float32\","
                        + " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [-1]}},"
                        + " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\"}]}")) {
            put(store, "t2m/zarr.json", bad.getBytes(StandardCharsets.UTF_8));
            InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> Zarr.open(ctx, store, "t2m"),
                    bad);
            assertTrue(e.getMessage().contains("t2m/zarr.json"), bad + " -> " + e.getMessage());
        }
    }
}
