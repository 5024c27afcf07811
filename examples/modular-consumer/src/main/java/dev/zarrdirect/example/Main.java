// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.example;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.ArraySlice;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.Codecs;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a small sharded, compressed array with the public API, reads part of it back with a NumPy
 * slice and checks the values; prints one line and exits 0 when everything matched.
 */
public final class Main {
    private Main() {
    }

    /**
     * Runs the check.
     *
     * @param args optional: the directory to write into (a new temporary one otherwise)
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("zd-modular");
        ArrayMetadata md = ArrayMetadata.builder(new long[] {4, 2, 6, 8}, DataType.FLOAT32)
                .chunks(1, 2, 3, 8).shards(2, 2, 6, 8).compressors(Codecs.zstd(3))
                .dimensionNames("time", "channel", "latitude", "longitude").build();
        String location = dir.resolve("t.zarr").toString();
        try (ZarrArray a = Zarr.createArray(location, md); Tensor t = Tensor.allocateHost(DataType.FLOAT32, md.shape())) {
            for (int i = 0; i < 4 * 2 * 6 * 8; i++) {
                t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
            }
            a.write(t);
        }
        try (ZarrArray a = Zarr.openArray(location); Tensor t = a.read(ArraySlice.parse("1:4:2, 1, ..., -1", a.shape()))) {
            float[] got = t.toFloatArray();
            // time 1 and 3, channel 1, every latitude, the last longitude: 96*time + 48 + 8*lat + 7
            for (int k = 0; k < got.length; k++) {
                int time = 1 + 2 * (k / 6);
                int lat = k % 6;
                float expect = 96 * time + 48 + 8 * lat + 7;
                if (got[k] != expect) {
                    throw new AssertionError("element " + k + ": " + got[k] + " != " + expect);
                }
            }
            System.out.println("modular consumer: read " + got.length + " values of " + a.describe()
                    + " through module " + Main.class.getModule().getName());
        }
    }
}
