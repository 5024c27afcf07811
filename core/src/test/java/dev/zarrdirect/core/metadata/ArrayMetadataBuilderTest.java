// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArrayMetadataBuilderTest {

    @Test
    void aShardedBuildWrapsTheChainAndRoundTripsThroughADirectoryCreatedByLocation(@TempDir Path dir) {
        ArrayMetadata md = ArrayMetadata.builder(new long[]{6, 3, 10, 12}, DataType.FLOAT32)
                .chunks(1, 3, 5, 12).shards(3, 3, 10, 12)
                .compressors(Codecs.blosc("lz4", 5, Codecs.BloscShuffle.SHUFFLE, 4, 0))
                .fillValue(Double.NaN).dimensionNames("time", "channel", "latitude", "longitude")
                .attribute("units", "K").build();
        assertArrayEquals(new long[]{3, 3, 10, 12}, md.chunkShape());
        assertEquals(List.of("sharding_indexed"), md.codecs().stream().map(CodecMetadata::name).toList());
        Path where = dir.resolve("new/parents/t.zarr");
        float[] values = new float[6 * 3 * 10 * 12];
        SplittableRandom r = new SplittableRandom(3);
        try (ZarrArray a = Zarr.createArray(where.toString(), md); Tensor t = Tensor.allocateHost(DataType.FLOAT32, md.shape())) {
            for (int i = 0; i < values.length; i++) {
                values[i] = (float) r.nextGaussian();
                t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, values[i]);
            }
            a.write(t);
        }
        assertTrue(Files.isRegularFile(where.resolve("zarr.json")));
        try (ZarrArray a = Zarr.openArray(where.toUri().toString()); Tensor t = a.read()) {
            assertArrayEquals(values, t.toFloatArray());
            assertEquals(Map.of("units", "K"), a.attributes());
            assertEquals(List.of("time", "channel", "latitude", "longitude"), a.metadata().dimensionNames());
            assertEquals("NaN", a.metadata().fillValue().toJson());
        }
    }

    @Test
    void anUnwrittenChunkReadsAsTheFillValue(@TempDir Path dir) {
        ArrayMetadata md = ArrayMetadata.builder(new long[]{4, 4}, DataType.INT16).chunks(2, 2).fillValue(-7)
                .filters(Codecs.transpose(1, 0)).compressors(Codecs.gzip(1), Codecs.crc32c()).chunkKeySeparator('.')
                .build();
        try (ZarrArray a = Zarr.createArray(dir.resolve("i.zarr").toString(), md);
             Tensor t = a.read(Selection.parse("1:3,1:3", a.shape()))) {
            assertArrayEquals(new long[]{-7, -7, -7, -7}, t.toLongArray());
            assertEquals("c.0.1", a.chunkKey(new long[]{0, 1}));
        }
    }

    @Test
    void mistakesAreRefusedBeforeAnythingIsWritten(@TempDir Path dir) {
        long[] shape = {10, 10};
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> ArrayMetadata.builder(shape, DataType.FLOAT32).build()).getMessage().contains("chunks("));
        assertThrows(IllegalArgumentException.class, () -> ArrayMetadata.builder(shape, DataType.FLOAT32).chunks(5).build());
        assertThrows(IllegalArgumentException.class, () -> ArrayMetadata.builder(shape, DataType.FLOAT32).chunks(5, 0).build());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ArrayMetadata.builder(shape, DataType.FLOAT32)
                .chunks(4, 5).shards(10, 10).build()).getMessage().contains("not a multiple"));
        assertThrows(IllegalArgumentException.class, () -> ArrayMetadata.builder(shape, DataType.UINT8).chunks(5, 5)
                .fillValue(300).build());
        assertEquals("1.5", String.valueOf(ArrayMetadata.builder(shape, DataType.FLOAT32).chunks(5, 5).fillValue(1.5f)
                .build().fillValue().toJson()));
        assertEquals("-3", String.valueOf(ArrayMetadata.builder(shape, DataType.INT8).chunks(5, 5).fillValue((short) -3)
                .build().fillValue().toJson()));
        assertEquals("7", String.valueOf(ArrayMetadata.builder(shape, DataType.INT32).chunks(5, 5).fillValue(7.0)
                .build().fillValue().toJson()));
        assertThrows(IllegalArgumentException.class, () -> Codecs.zstd(23));
        assertThrows(IllegalArgumentException.class, () -> Codecs.blosc("snappy", 5, Codecs.BloscShuffle.SHUFFLE, 4, 0));
        assertThrows(IllegalArgumentException.class, () -> Codecs.transpose(0, 0));
        assertThrows(dev.zarrdirect.api.StoreException.class, () -> Zarr.createArray("https://example.org/a.zarr",
                ArrayMetadata.builder(shape, DataType.FLOAT32).chunks(5, 5).build()));
        ArrayMetadata unknownCodec = ArrayMetadata.builder(shape, DataType.FLOAT32).chunks(5, 5)
                .compressors(CodecMetadata.of("no-such-codec", Map.of())).build();
        Path p = dir.resolve("u.zarr");
        assertThrows(RuntimeException.class, () -> Zarr.createArray(p.toString(), unknownCodec));
        assertTrue(!Files.exists(p.resolve("zarr.json")), "nothing written for an unknown codec");
    }
}
