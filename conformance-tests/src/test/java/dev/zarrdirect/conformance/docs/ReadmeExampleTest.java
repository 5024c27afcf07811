// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.docs;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.dlpack.DLPack;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The README's Java example, on a smaller array, so the documented code keeps compiling and working. */
class ReadmeExampleTest {

    @Test
    void theReadmeExampleWritesReadsAndExportsATensor(@TempDir Path dir) throws Throwable {
        MemorySegment dl;
        // example-begin (README.md "Java"; shapes reduced from [8760, 721, 1440])
        try (ZarrContext ctx = ZarrContext.open("auto");
             FileSystemStore store = FileSystemStore.create(dir.resolve("era5.zarr"))) {
            ZarrArray t2m = Zarr.createArray(ctx, store, "t2m", ArrayMetadata.create(
                    new long[]{48, 7, 14}, DataType.FLOAT32, new long[]{1, 7, 14},
                    FillValue.parse("NaN", DataType.FLOAT32, "t2m"),
                    List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
                            CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false)))));
            try (Tensor day = Tensor.allocateHost(DataType.FLOAT32, 24, 7, 14)) {
                for (long i = 0; i < day.elementCount(); i++) {
                    day.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, 273.15f + i);
                }
                t2m.write(new long[]{0, 0, 0}, day);
            }
            Tensor batch = t2m.read(Selection.parse("0:4", t2m.shape()));
            dl = DLPack.exportOwned(batch);
            // example-end
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
