// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testkit;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The store layouts of a {@link SyntheticEra5} array that {@code zarr-direct bench --generate} and
 * the GPU scripts measure, by the names they give on the command line.
 */
public enum Era5Layout {

    /** {@code era5}: one time step per chunk, {@code [1, channels, lat, lon]}. */
    PLAIN("era5"),

    /**
     * {@code era5-sharded}: one {@code [1, channels, lat, lon]} shard per time step holding one
     * {@code [1, 1, lat, lon]} inner chunk per channel, index {@code bytes + crc32c} at the end.
     */
    SHARDED("era5-sharded");

    private final String cliName;

    Era5Layout(String cliName) {
        this.cliName = cliName;
    }

    /** The name on the command line: {@code era5} or {@code era5-sharded}. */
    public String cliName() {
        return cliName;
    }

    /**
     * The layout of a command-line name.
     *
     * @throws IllegalArgumentException naming the names there are, if {@code name} is none of them
     */
    public static Era5Layout ofCliName(String name) {
        for (Era5Layout l : values()) {
            if (l.cliName.equals(name)) {
                return l;
            }
        }
        throw new IllegalArgumentException("no ERA5 layout \"" + name + "\"; expected one of "
                + Arrays.stream(values()).map(Era5Layout::cliName).toList());
    }

    /**
     * The metadata of a float32 {@code [time, channel, lat, lon]} array of {@code shape} in this
     * layout, fill value NaN, with {@code leafCodecs} (array-to-bytes first, e.g. {@code bytes} then
     * {@code zstd}) as the chunk's codecs, or the inner chunks' codecs when sharded.
     *
     * @throws IllegalArgumentException if {@code shape} does not have four extents
     */
    public ArrayMetadata metadata(long[] shape, List<CodecMetadata> leafCodecs) {
        if (shape.length != 4) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + ": expected 4 extents [time, channel, lat, lon]");
        }
        long c = shape[1];
        long y = shape[2];
        long x = shape[3];
        List<CodecMetadata> codecs = switch (this) {
            case PLAIN -> List.copyOf(leafCodecs);
            case SHARDED -> {
                CodecMetadata bytes = CodecMetadata.of("bytes", Map.of("endian", "little"));
                yield List.of(CodecMetadata.of("sharding_indexed", Map.of("chunk_shape", List.of(1L, 1L, y, x),
                        "codecs", leafCodecs.stream().map(CodecMetadata::toJson).toList(),
                        "index_codecs", List.of(bytes.toJson(), CodecMetadata.of("crc32c", Map.of()).toJson()),
                        "index_location", "end")));
            }
        };
        return ArrayMetadata.create(shape, DataType.FLOAT32, new long[]{1, c, y, x},
                        FillValue.parse("NaN", DataType.FLOAT32, "fill value of the " + cliName + " layout"), codecs)
                .withDimensionNames(List.of("time", "channel", "lat", "lon"));
    }
}
