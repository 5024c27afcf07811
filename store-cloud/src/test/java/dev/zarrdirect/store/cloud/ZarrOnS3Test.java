// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.convert.ConvertOptions;
import dev.zarrdirect.core.convert.ConvertResult;
import dev.zarrdirect.core.convert.Converter;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whole arrays through S3: written with {@code Zarr} into a bucket and read back, and converted from
 * a directory into a bucket (sharded) and back out of it, compared by {@link ArrayChecksum}.
 */
class ZarrOnS3Test {

    private static final long SEED = Long.getLong("zd.seed", System.nanoTime());
    private static S3Server server;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() throws Exception {
        server = S3Server.anonymous();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static final List<CodecMetadata> ZSTD = List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
            CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false)));

    /** float32 [time 24, channel 3, lat 17, lon 20], chunks of 4 time steps, zstd, seeded values. */
    private static ZarrArray writeEra5(Store store) {
        ArrayMetadata md = ArrayMetadata.create(new long[]{24, 3, 17, 20}, DataType.FLOAT32, new long[]{4, 3, 17, 20},
                FillValue.parse("NaN", DataType.FLOAT32, "test"), ZSTD).withDimensionNames(List.of("time", "channel",
                "lat", "lon"));
        ZarrArray a = Zarr.createArray(store, "", md);
        Random rnd = new Random(SEED);
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, 24, 3, 17, 20)) {
            MemorySegment s = t.segment();
            for (long i = 0; i < t.elementCount(); i++) {
                s.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, Math.round(rnd.nextGaussian() * 20) / 4f);
            }
            a.write(t);
        }
        return a;
    }

    @Test
    void anArrayWrittenIntoABucketReadsBackTheSame() {
        String bucket = server.newBucket();
        String written;
        try (Store store = Stores.open("s3://" + bucket + "/era5.zarr", server.options())) {
            written = ArrayChecksum.sha256(writeEra5(store));
            assertEquals(7, store.list("").size(), "zarr.json and six chunks: " + store.list(""));
        }
        try (Store store = Stores.open("s3://" + bucket + "/era5.zarr", server.options())) {
            assertEquals(written, ArrayChecksum.sha256(Zarr.openArray(store, "")), "seed " + SEED);
        }
    }

    @Test
    void convertWritesIntoABucketAndReadsOutOfOne() {
        Path src = tmp.resolve("src.zarr");
        String expected;
        try (FileSystemStore fs = FileSystemStore.create(src)) {
            expected = ArrayChecksum.sha256(writeEra5(fs));
        }
        String bucket = server.newBucket();
        ConvertOptions sharded = ConvertOptions.builder().chunks(1, -1, -1, -1).shard(8, -1, -1, -1).verify(true)
                .storeOptions(server.options()).build();
        try (Store source = Stores.open(src.toString()); Store dst = Stores.open("s3://" + bucket + "/sharded.zarr",
                server.options())) {
            ConvertResult r = new Converter(sharded).convert(source, src.toString(), dst);
            assertTrue(r.complete());
            assertEquals(List.of("c/", "zarr.json"), dst.listDir(""), "no journal left: " + dst.list(""));
        }
        Path back = tmp.resolve("back.zarr");
        ConvertOptions unsharded = ConvertOptions.builder().noShard(true).storeOptions(server.options()).build();
        ConvertResult r = new Converter(unsharded).convert("s3://" + bucket + "/sharded.zarr", back);
        assertTrue(r.complete());
        try (Store store = Stores.open(back.toString())) {
            ZarrArray a = Zarr.openArray(store, "");
            assertEquals(List.of(1L, 3L, 17L, 20L), java.util.Arrays.stream(a.metadata().chunkShape()).boxed().toList());
            assertEquals(expected, ArrayChecksum.sha256(a), "seed " + SEED);
        }
    }
}
