// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.v2.V2ArrayMetadata;
import dev.zarrdirect.core.pipeline.CodecChain;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shapes and chunk shapes whose sizes overflow, or whose chunks are too large to stage, fail with an
 * exception that names the field and the document (or the chunk), never with an overflow, a wrapped
 * size or an out-of-memory error (issue #25, item 3).
 */
class HugeDeclaredSizesTest {

    private static String v3(String shape, String chunks, String dtype) {
        return "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": " + shape + ", \"data_type\": \"" + dtype
                + "\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": " + chunks
                + "}}, \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
                + " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}";
    }

    private static String v2(String shape, String chunks) {
        return "{\"zarr_format\": 2, \"shape\": " + shape + ", \"chunks\": " + chunks + ", \"dtype\": \"<f8\","
                + " \"fill_value\": 0, \"order\": \"C\", \"compressor\": null, \"filters\": null}";
    }

    @Test
    void v3ShapeWhoseElementCountOverflowsIsInvalidMetadataNamingShapeAndKey() {
        var e = assertThrows(InvalidMetadataException.class,
                () -> ArrayMetadata.parse(v3("[4611686018427387904, 4611686018427387904]", "[1, 1]", "int8"), "big/zarr.json"));
        assertEquals("\"shape\" in \"big/zarr.json\" is [4611686018427387904, 4611686018427387904]: "
                + "21267647932558653966460912964485513216 elements in the array, more than 9223372036854775807"
                + " (the most a long holds)", e.getMessage());
    }

    @Test
    void v3ShapeWhoseByteSizeOverflowsIsInvalidMetadata() {
        var e = assertThrows(InvalidMetadataException.class,
                () -> ArrayMetadata.parse(v3("[4611686018427387904, 4]", "[1, 1]", "float32"), "f/zarr.json"));
        assertTrue(e.getMessage().startsWith("\"shape\" in \"f/zarr.json\" is [4611686018427387904, 4]: "
                + "18446744073709551616 elements in the array"), e.getMessage());
        var bytes = assertThrows(InvalidMetadataException.class,
                () -> ArrayMetadata.parse(v3("[4611686018427387904]", "[1]", "float32"), "f/zarr.json"));
        assertTrue(bytes.getMessage().contains("elements of float32 make 18446744073709551616 bytes in the array"),
                bytes.getMessage());
    }

    @Test
    void v3ChunkShapeWhoseSizeOverflowsIsInvalidMetadataNamingTheChunkShape() {
        var e = assertThrows(InvalidMetadataException.class,
                () -> ArrayMetadata.parse(v3("[2, 2]", "[4611686018427387904, 4611686018427387904]", "uint8"), "c/zarr.json"));
        assertTrue(e.getMessage().startsWith("\"chunk_grid.configuration.chunk_shape\" in \"c/zarr.json\" is [4611686018427387904, 4611686018427387904]"),
                e.getMessage());
        assertTrue(e.getMessage().contains("elements in a chunk"), e.getMessage());
    }

    @Test
    void anExtentOfZeroMakesAnEmptyArrayWhateverTheOthers() {
        ArrayMetadata md = ArrayMetadata.parse(v3("[4611686018427387904, 4611686018427387904, 0]", "[1, 1, 1]", "int8"),
                "e/zarr.json");
        assertEquals(0, dev.zarrdirect.core.grid.Shapes.product(md.shape()));
    }

    @Test
    void v2ShapeOrChunksWhoseSizeOverflowsIsInvalidMetadataNamingTheField() {
        var shape = assertThrows(InvalidMetadataException.class,
                () -> V2ArrayMetadata.parse(v2("[1152921504606846976, 1152921504606846976]", "[1, 1]"), "a/.zarray", Map.of()));
        assertTrue(shape.getMessage().startsWith("\"shape\" in \"a/.zarray\""), shape.getMessage());
        var chunks = assertThrows(InvalidMetadataException.class,
                () -> V2ArrayMetadata.parse(v2("[10]", "[1152921504606846976]"), "a/.zarray", Map.of()));
        assertTrue(chunks.getMessage().startsWith("\"chunks\" in \"a/.zarray\" is [1152921504606846976]"),
                chunks.getMessage());
        assertTrue(chunks.getMessage().contains("elements of float64 make 9223372036854775808 bytes in a chunk"),
                chunks.getMessage());
    }

    @Test
    void programmaticMetadataWithAnOverflowingShapeIsAnIllegalArgument() {
        var e = assertThrows(IllegalArgumentException.class, () -> ArrayMetadata.builder(
                new long[]{1L << 62, 1L << 62}, DataType.INT8).chunks(1, 1).build());
        assertTrue(e.getMessage().contains("more than 9223372036854775807"), e.getMessage());
    }

    @Test
    void aChunkTooLargeToStageIsRefusedClearlyAndAMissingOneReadsAsFill() {
        MemoryStore store = new MemoryStore();
        String md = v3("[1048576, 1048576]", "[1048576, 1048576]", "float32"); // one 4 TiB chunk
        store.set("zarr.json", Arena.ofAuto().allocateFrom(md).asSlice(0, md.getBytes(StandardCharsets.UTF_8).length));
        ZarrArray a = Zarr.openArray(store, "");
        Selection corner = new Selection(new long[]{0, 0}, new long[]{2, 2});
        try (Tensor t = a.read(corner)) {
            assertEquals(0f, t.segment().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 3));
        }
        store.set("c/0/0", Arena.ofAuto().allocate(16));
        var e = assertThrows(CodecException.class, () -> a.read(corner).close());
        assertTrue(e.getMessage().contains("decodes to 4398046511104 bytes (chunk shape [1048576, 1048576] of float32),"
                + " more than the " + CodecChain.MAX_STAGED_CHUNK_BYTES + " bytes one staging buffer holds"), e.getMessage());
        assertTrue(e.getMessage().contains("c/0/0"), e.getMessage());
    }
}
