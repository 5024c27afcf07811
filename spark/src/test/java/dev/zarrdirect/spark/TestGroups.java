// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.Codecs;
import dev.zarrdirect.core.store.fs.FileSystemStore;

import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Map;

/**
 * A small ERA5-like group: {@code t2m} and {@code u}, float32 {@code [time 12, latitude 4, longitude 5]}
 * in chunks of 3 steps (4 chunks along time), with the coordinates {@code time} (int64 hours),
 * {@code latitude} (float64, descending) and {@code longitude} (float32).
 */
public final class TestGroups {

    static final long T = 12;
    static final long H = 4;
    static final long W = 5;
    static final long TIME_CHUNK = 3;

    private TestGroups() {
    }

    /** The value of {@code variable} (0 for t2m, 1 for u) at [t, y, x]: distinct for every element. */
    static float value(int variable, long t, long y, long x) {
        return variable * 1000 + t * 50 + y * 7 + x + 0.25f;
    }

    static long hours(long t) {
        return 1_000_000 + 6 * t;
    }

    static double latitude(long y) {
        return 90 - 30 * y;
    }

    static float longitude(long x) {
        return 10 * x;
    }

    /** Writes the group at {@code dir}, its time coordinate plain numbers. */
    public static Path era5(Path dir) {
        return era5(dir, Map.of());
    }

    /** Writes the group at {@code dir}, with {@code timeAttributes} on the time coordinate (CF units). */
    static Path era5(Path dir, Map<String, Object> timeAttributes) {
        try (Store store = FileSystemStore.create(dir); ZarrGroup g = Zarr.createGroup(store, "", Map.of())) {
            for (int v = 0; v < 2; v++) {
                ArrayMetadata md = ArrayMetadata.builder(new long[]{T, H, W}, DataType.FLOAT32)
                        .chunks(TIME_CHUNK, H, W).compressors(Codecs.zstd(1))
                        .dimensionNames("time", "latitude", "longitude").build();
                int variable = v;
                try (ZarrArray a = g.createArray(v == 0 ? "t2m" : "u", md);
                     Tensor data = Tensor.allocateHost(DataType.FLOAT32, T, H, W)) {
                    for (long t = 0; t < T; t++) {
                        for (long y = 0; y < H; y++) {
                            for (long x = 0; x < W; x++) {
                                data.segment().setAtIndex(ValueLayout.JAVA_FLOAT, (t * H + y) * W + x,
                                        value(variable, t, y, x));
                            }
                        }
                    }
                    a.write(data);
                }
            }
            coordinate(g, "time", DataType.INT64, T, i -> hours(i), timeAttributes);
            coordinate(g, "latitude", DataType.FLOAT64, H, TestGroups::latitude, Map.of());
            coordinate(g, "longitude", DataType.FLOAT32, W, TestGroups::longitude, Map.of());
        }
        return dir;
    }

    private static void coordinate(ZarrGroup g, String name, DataType type, long n,
                                   java.util.function.LongFunction<Number> value, Map<String, Object> attributes) {
        ArrayMetadata md = ArrayMetadata.builder(new long[]{n}, type).chunks(n).dimensionNames(name).build()
                .withAttributes(attributes);
        try (ZarrArray a = g.createArray(name, md); Tensor data = Tensor.allocateHost(type, n)) {
            for (long i = 0; i < n; i++) {
                Number v = value.apply(i);
                if (type.equals(DataType.INT64)) {
                    data.segment().setAtIndex(ValueLayout.JAVA_LONG, i, v.longValue());
                } else if (type.equals(DataType.FLOAT64)) {
                    data.segment().setAtIndex(ValueLayout.JAVA_DOUBLE, i, v.doubleValue());
                } else {
                    data.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, v.floatValue());
                }
            }
            a.write(data);
        }
    }
}
