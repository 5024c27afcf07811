// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.checksum;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/** The checksum is a property of the elements: chunking, codecs and sharding do not change it. */
class ChecksumAcrossCodecChainsTest {

    static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 2);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    static CodecMetadata c(String name, Map<String, Object> cfg) {
        return CodecMetadata.of(name, cfg);
    }

    @Test
    void aCopyWrittenWithAnotherChainHasTheSameChecksum() throws Exception {
        long[] shape = {6, 3, 37, 41};
        DataType dt = DataType.FLOAT32;
        Store store = new MemoryStore();
        ZarrArray src = Zarr.createArray(ctx, store, "src", ArrayMetadata.create(shape, dt, new long[]{1, 3, 37, 41},
                FillValue.parse("NaN", dt, "test"), List.of(c("bytes", Map.of("endian", "little")),
                        c("zstd", Map.of("level", 3L, "checksum", false)))));
        Random rnd = new Random(3);
        java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
        try (Tensor t = Tensor.allocateHost(dt, shape)) {
            for (long i = 0; i < t.elementCount(); i++) {
                t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) (280 + 10 * Math.sin(i * 1e-3) + rnd.nextGaussian()));
            }
            src.write(t);
            md.update(t.segment().asByteBuffer());
        }
        String expected = HexFormat.of().formatHex(md.digest());
        assertEquals(expected, ArrayChecksum.sha256(src), "checksum of the source against the bytes written");

        CodecMetadata shard = c("sharding_indexed", Map.of("chunk_shape", List.of(1L, 1L, 37L, 41L),
                "codecs", List.of(c("bytes", Map.of("endian", "big")).toJson(), c("gzip", Map.of("level", 1L)).toJson()),
                "index_codecs", List.of(c("bytes", Map.of("endian", "little")).toJson(), c("crc32c", Map.of()).toJson()),
                "index_location", "start"));
        List<ArrayMetadata> copies = List.of(
                ArrayMetadata.create(shape, dt, new long[]{4, 2, 10, 20}, FillValue.zero(dt),
                        List.of(c("transpose", Map.of("order", List.of(3L, 2L, 1L, 0L))), c("bytes", Map.of("endian", "big")),
                                c("crc32c", Map.of()))),
                ArrayMetadata.create(shape, dt, new long[]{2, 3, 37, 41}, FillValue.zero(dt), List.of(shard)));
        int k = 0;
        for (ArrayMetadata md2 : copies) {
            ZarrArray dst = Zarr.createArray(ctx, store, "copy" + k++, md2);
            try (Tensor all = src.read()) {
                dst.write(all);
            }
            assertEquals(expected, ArrayChecksum.sha256(Zarr.openArray(ctx, store, dst.path())), md2.codecs().toString());
        }
    }
}
