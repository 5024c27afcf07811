// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.metadata.v2.V2ArrayMetadata;
import dev.zarrdirect.core.metadata.v2.V2DataType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;

/** Small groups of ERA5-like variables for the loader's tests, every element given by a function of its index. */
public final class TestGroups {

    /** The value of the element at {@code index} (C order) of an array being written. */
    @FunctionalInterface
    public interface Values {
        double at(long[] index);
    }

    public static final List<CodecMetadata> ZSTD = List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
            CodecMetadata.of("zstd", Map.of("level", 1L, "checksum", false)));

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private TestGroups() {
    }

    /**
     * A Zarr v3 array at {@code path} of {@code store} with dimension names {@code dims} (null for
     * none), fill value NaN for floats, every element written from {@code values}.
     */
    public static ZarrArray v3(Store store, String path, DataType type, long[] shape, long[] chunks, List<String> dims,
                               Values values) {
        FillValue fill = type.kind() == DataType.Kind.FLOAT ? FillValue.parse("NaN", type, "test") : FillValue.zero(type);
        ArrayMetadata md = ArrayMetadata.create(shape, type, chunks, fill, ZSTD).withDimensionNames(dims);
        ZarrArray a = Zarr.createArray(store, path, md);
        write(a, values);
        return a;
    }

    /** A Zarr v3 array whose chunks were never written: every element is the fill value NaN. */
    public static ZarrArray v3Unwritten(Store store, String path, DataType type, long[] shape, long[] chunks,
                                        List<String> dims) {
        ArrayMetadata md = ArrayMetadata.create(shape, type, chunks, FillValue.parse("NaN", type, "test"), ZSTD)
                .withDimensionNames(dims);
        return Zarr.createArray(store, path, md);
    }

    /** A Zarr v2 array (no compressor) whose {@code .zattrs} hold {@code _ARRAY_DIMENSIONS = dims}. */
    public static ZarrArray v2(Store store, String path, DataType type, long[] shape, long[] chunks, List<String> dims,
                               Values values) {
        V2ArrayMetadata md = V2ArrayMetadata.builder(shape, chunks, V2DataType.little(type))
                .attributes(Map.of("_ARRAY_DIMENSIONS", dims)).build();
        ZarrArray a = Zarr.createArrayV2(store, path, md);
        write(a, values);
        return a;
    }

    /** Writes every element of {@code a} from {@code values}. */
    public static void write(ZarrArray a, Values values) {
        long[] shape = a.shape();
        try (Tensor t = Tensor.allocateHost(a.dataType(), shape)) {
            MemorySegment seg = t.segment();
            long[] index = new long[shape.length];
            long n = Tensor.elementCount(shape);
            for (long i = 0; i < n; i++) {
                double v = values.at(index);
                if (a.dataType().equals(DataType.FLOAT32)) {
                    seg.setAtIndex(F32, i, (float) v);
                } else if (a.dataType().equals(DataType.FLOAT64)) {
                    seg.setAtIndex(F64, i, v);
                } else if (a.dataType().equals(DataType.INT16)) {
                    seg.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), i, (short) v);
                } else {
                    throw new IllegalArgumentException("TestGroups writes float32, float64 and int16, not " + a.dataType());
                }
                for (int d = shape.length - 1; d >= 0; d--) {
                    if (++index[d] < shape[d]) {
                        break;
                    }
                    index[d] = 0;
                }
            }
            a.write(t);
        }
    }
}
