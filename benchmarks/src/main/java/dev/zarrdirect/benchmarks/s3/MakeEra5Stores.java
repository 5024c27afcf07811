// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.benchmarks.s3;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.testkit.SyntheticEra5;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The two layouts of {@code benchmarks/python/make_era5_stores.py} written with zarr-direct, for
 * machines without TensorStore: {@code DIR/era5-zstd.zarr} (zarr v3, zstd 3, chunks
 * {@code [1, C, LAT, LON]}) and {@code DIR/era5-sharded.zarr} (one shard per time step, inner chunks
 * {@code [1, 1, LAT, LON]}, zstd 3 inside), each a group with the float32 array {@code x}
 * {@code [STEPS, C, LAT, LON]} of {@link SyntheticEra5} fields. An existing store is kept.
 *
 * <p>Usage: {@code MakeEra5Stores DIR [STEPS=16] [CHANNELS=16] [LAT=361] [LON=720]}.
 */
public final class MakeEra5Stores {

    private MakeEra5Stores() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: MakeEra5Stores DIR [STEPS] [CHANNELS] [LAT] [LON]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        long steps = args.length > 1 ? Long.parseLong(args[1]) : 16;
        long channels = args.length > 2 ? Long.parseLong(args[2]) : 16;
        long lat = args.length > 3 ? Long.parseLong(args[3]) : 361;
        long lon = args.length > 4 ? Long.parseLong(args[4]) : 720;
        long[] shape = {steps, channels, lat, lon};
        Files.createDirectories(dir);
        try (ZarrContext ctx = ZarrContext.open("cpu")) {
            for (String layout : List.of("zstd", "sharded")) {
                Path at = dir.resolve("era5-" + layout + ".zarr");
                if (Files.exists(at)) {
                    System.out.println("kept " + at);
                    continue;
                }
                try (Store store = FileSystemStore.create(at)) {
                    Zarr.createGroup(ctx, store, "", Map.of());
                    ZarrArray x = Zarr.createArray(ctx, store, "x", metadata(layout, shape));
                    new SyntheticEra5((int) lat, (int) lon).writeAll(x, step -> { });
                }
                System.out.println("wrote " + at);
            }
        }
    }

    private static ArrayMetadata metadata(String layout, long[] shape) {
        CodecMetadata bytes = CodecMetadata.of("bytes", Map.of("endian", "little"));
        CodecMetadata zstd = CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false));
        long[] step = {1, shape[1], shape[2], shape[3]};
        List<CodecMetadata> codecs = layout.equals("zstd") ? List.of(bytes, zstd)
                : List.of(CodecMetadata.of("sharding_indexed", Map.of(
                        "chunk_shape", List.of(1L, 1L, shape[2], shape[3]),
                        "codecs", List.of(bytes.toJson(), zstd.toJson()),
                        "index_codecs", List.of(bytes.toJson(), CodecMetadata.of("crc32c", Map.of()).toJson()),
                        "index_location", "end")));
        return ArrayMetadata.create(shape, DataType.FLOAT32, step, FillValue.zero(DataType.FLOAT32), codecs);
    }
}
