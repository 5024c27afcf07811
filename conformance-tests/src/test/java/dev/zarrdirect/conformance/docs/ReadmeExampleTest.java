// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.docs;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.dlpack.DLPack;
import dev.zarrdirect.core.ArraySlice;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.Codecs;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** The README's Java example, on a smaller array, so the documented code keeps compiling and working. */
class ReadmeExampleTest {

    @Test
    void theReadmeExampleWritesReadsAndExportsATensor(@TempDir Path dir) throws Throwable {
        MemorySegment dl;
        // example-begin (README.md "Java"; shapes reduced from [8760, 721, 1440])
        try (ZarrContext ctx = ZarrContext.open("auto");
             FileSystemStore store = FileSystemStore.create(dir.resolve("era5.zarr"))) {
            ZarrArray t2m = Zarr.createArray(ctx, store, "t2m",
                    ArrayMetadata.builder(new long[]{48, 7, 14}, DataType.FLOAT32)
                            .chunks(1, 7, 14).compressors(Codecs.zstd(3)).fillValue(Float.NaN)
                            .dimensionNames("time", "latitude", "longitude").build());
            try (Tensor day = Tensor.allocateHost(DataType.FLOAT32, 24, 7, 14)) {
                for (long i = 0; i < day.elementCount(); i++) {
                    day.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, 273.15f + i);
                }
                t2m.write(new long[]{0, 0, 0}, day);
            }
            Tensor batch = t2m.read(Selection.parse("0:4", t2m.shape()));
            dl = DLPack.exportOwned(batch);
            try (Tensor noon = t2m.read(ArraySlice.parse("12, ::2, -1", t2m.shape()))) {
                float first = noon.getFloat(0);
                // example-end
                assertArrayEquals(new long[]{4}, noon.shape());
                assertEquals(273.15f + (12 * 98 + 13), first);
                assertEquals(273.15f + (12 * 98 + 2 * 14 + 13), noon.getFloat(1));
            }
            assertEquals(1, DLPack.liveExports());
            try (Tensor late = t2m.read(Selection.parse("30:31", t2m.shape()))) {
                assertTrue(Float.isNaN(late.segment().getAtIndex(ValueLayout.JAVA_FLOAT, 0)),
                        "time step 30 was never written: NaN fill");
            }
        }
        // Act as the native consumer: read the data pointer's first element, then call the deleter.
        MemorySegment m = dl.reinterpret(80);
        MemorySegment data = m.get(ValueLayout.ADDRESS, 32).reinterpret(4);
        assertEquals(273.15f, data.get(ValueLayout.JAVA_FLOAT, 0));
        MemorySegment deleter = m.get(ValueLayout.ADDRESS, 16);
        Linker.nativeLinker().downcallHandle(deleter, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS)).invokeExact(dl);
        assertEquals(0, DLPack.liveExports());
    }
}
