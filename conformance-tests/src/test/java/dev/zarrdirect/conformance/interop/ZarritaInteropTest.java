// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.interop;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Interoperability with zarrita.js, an independent Zarr v3 implementation (pinned in
 * interop/package-lock.json): arrays it writes read identically here, and arrays written here read
 * identically there, compared by the element-wise SHA-256 both sides compute.
 *
 * <p>Needs Node and the packages of interop/; {@link ZarritaNode#start()} says when the test is
 * skipped and when it fails instead.
 */
class ZarritaInteropTest {

    static ZarritaNode node;
    static ZarrContext ctx;

    @BeforeAll
    static void setUp() {
        node = ZarritaNode.start();
        ctx = ZarrContext.open("cpu", 2);
    }

    @AfterAll
    static void tearDown() {
        if (ctx != null) {
            ctx.close();
        }
    }

    @Test
    void arraysWrittenByZarritaReadIdentically(@TempDir Path dir) {
        Path fixtures = dir.resolve("zarrita");
        node.write("zarrita-write.mjs", fixtures.toString());
        Map<String, String> theirs = node.checksums(fixtures);
        try (FileSystemStore store = FileSystemStore.open(fixtures)) {
            ZarrGroup root = Zarr.openGroup(ctx, store, "");
            List<String> members = root.members();
            assertTrue(members.size() >= 10, "zarrita wrote only " + members);
            List<String> mismatches = new ArrayList<>();
            for (String name : members) {
                ZarrArray a = root.openArray(name);
                String ours = ArrayChecksum.sha256(a);
                if (!ours.equals(theirs.get(name))) {
                    mismatches.add(name + ": ours " + ours + ", zarrita " + theirs.get(name));
                }
            }
            assertEquals(List.of(), mismatches);
        }
    }

    static CodecMetadata bytes(String e) {
        return CodecMetadata.of("bytes", Map.of("endian", e));
    }

    @Test
    void arraysWrittenHereReadIdenticallyInZarrita(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("ours");
        Map<String, String> ours = new TreeMap<>();
        Random rnd = new Random(7);
        try (FileSystemStore store = FileSystemStore.create(out)) {
            ZarrGroup root = Zarr.createGroup(ctx, store, "", Map.of("written_by", "zarr-direct"));
            CodecMetadata zstd = CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false));
            CodecMetadata gzip = CodecMetadata.of("gzip", Map.of("level", 5L));
            CodecMetadata crc = CodecMetadata.of("crc32c", Map.of());
            CodecMetadata shard = CodecMetadata.of("sharding_indexed", Map.of(
                    "chunk_shape", List.of(4L, 4L),
                    "codecs", List.of(bytes("little").toJson(), zstd.toJson()),
                    "index_codecs", List.of(bytes("little").toJson(), crc.toJson()),
                    "index_location", "end"));
            record Spec(String name, DataType dt, long[] shape, long[] chunks, FillValue fill, List<CodecMetadata> codecs,
                        boolean sparse) {
            }
            List<Spec> specs = List.of(
                    new Spec("plain_int32", DataType.INT32, new long[]{7, 5}, new long[]{3, 2}, FillValue.zero(DataType.INT32),
                            List.of(bytes("little")), false),
                    new Spec("zstd_float32", DataType.FLOAT32, new long[]{10, 20, 30}, new long[]{4, 8, 16},
                            FillValue.zero(DataType.FLOAT32), List.of(bytes("little"), zstd), false),
                    new Spec("gzip_float64_big", DataType.FLOAT64, new long[]{13, 17}, new long[]{5, 5},
                            FillValue.zero(DataType.FLOAT64), List.of(bytes("big"), gzip), false),
                    new Spec("transpose_uint16", DataType.UINT16, new long[]{6, 9, 4}, new long[]{4, 4, 3},
                            FillValue.zero(DataType.UINT16), List.of(CodecMetadata.of("transpose",
                            Map.of("order", List.of(2L, 0L, 1L))), bytes("big"), crc), false),
                    new Spec("sharded_float32", DataType.FLOAT32, new long[]{16, 20}, new long[]{8, 8},
                            FillValue.zero(DataType.FLOAT32), List.of(shard), false),
                    new Spec("missing_int8", DataType.INT8, new long[]{8, 8}, new long[]{4, 4},
                            FillValue.parse(7L, DataType.INT8, "test"), List.of(bytes("little")), true),
                    new Spec("nan_fill_float64", DataType.FLOAT64, new long[]{5, 5}, new long[]{2, 2},
                            FillValue.parse("NaN", DataType.FLOAT64, "test"), List.of(bytes("little"), zstd), true),
                    new Spec("bool_gzip", DataType.BOOL, new long[]{9, 7}, new long[]{4, 4}, FillValue.parse(false, DataType.BOOL,
                            "test"), List.of(bytes("little"), gzip), false),
                    new Spec("uint64_zstd", DataType.UINT64, new long[]{33}, new long[]{10}, FillValue.zero(DataType.UINT64),
                            List.of(bytes("little"), zstd), false));
            for (Spec s : specs) {
                ZarrArray a = root.createArray(s.name, ArrayMetadata.create(s.shape, s.dt, s.chunks, s.fill, s.codecs));
                try (Tensor t = Tensor.allocateHost(s.dt, s.sparse ? s.chunks : s.shape)) {
                    for (long i = 0; i < t.elementCount(); i++) {
                        long off = i * s.dt.byteSize();
                        switch (s.dt.kind()) {
                            case BOOL -> t.segment().set(ValueLayout.JAVA_BYTE, off, (byte) (rnd.nextInt(2)));
                            case FLOAT -> {
                                if (s.dt.byteSize() == 4) {
                                    t.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, off, (float) (Math.sin(i * 0.01) + rnd.nextGaussian() * 0.1));
                                } else {
                                    t.segment().set(ValueLayout.JAVA_DOUBLE_UNALIGNED, off, Math.cos(i * 0.3) * 1e3 + rnd.nextGaussian());
                                }
                            }
                            default -> {
                                for (int b = 0; b < s.dt.byteSize(); b++) {
                                    t.segment().set(ValueLayout.JAVA_BYTE, off + b, (byte) rnd.nextInt(256));
                                }
                            }
                        }
                    }
                    // Sparse arrays get one chunk written, so the rest must read as the fill value.
                    a.write(s.sparse ? new long[s.shape.length] : new long[s.shape.length], t);
                }
                ours.put(s.name, ArrayChecksum.sha256(a));
            }
        }
        Map<String, String> theirs = node.checksums(out);
        assertEquals(ours, theirs, "zarrita's checksums of the arrays written here");
        assertTrue(Files.readString(out.resolve("zarr.json"), StandardCharsets.UTF_8).contains("zarr-direct"));
    }
}
