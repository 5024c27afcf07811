// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.write;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.spark.LocalSpark;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZarrWriteTest {

    private static final long T = 12;
    private static final long H = 4;
    private static final long W = 5;

    @TempDir
    Path dir;

    /** Rows of [12, 4, 5] in shuffled order: t2m = 0.5 * flat index, n = flat index, skipping those where {@code skip} holds. */
    private static Dataset<Row> rows(String skip) {
        SparkSession spark = LocalSpark.session();
        return spark.range(T * H * W).where("NOT (" + skip + ")")
                .selectExpr("id DIV 20 AS time", "CAST((id DIV 5) % 4 AS INT) AS latitude", "id % 5 AS longitude",
                        "CAST(id * 0.5 AS FLOAT) AS t2m", "CAST(id AS INT) AS n")
                .repartition(3);
    }

    private static void write(Dataset<Row> rows, Path to, String chunks) {
        write(rows, to, chunks, "zstd:level=3");
    }

    private static void write(Dataset<Row> rows, Path to, String chunks, String codec) {
        rows.write().format("zarr").mode("append").option("dimensions", "time,latitude,longitude")
                .option("shape", T + "," + H + "," + W).option("chunks", chunks).option("codec", codec)
                .save(to.toString());
    }

    @Test
    void rowsInAnyOrderBecomeArraysThatCoreReadsBack() {
        Path out = dir.resolve("out.zarr");
        // chunks of 5 steps: the last is cut at the edge, and tasks' runs of rows split chunks between them
        write(rows("false"), out, "5,3,5", "gzip:level=1;crc32c");
        try (ZarrArray t2m = Zarr.openArray(out.toString(), "t2m"); Tensor all = t2m.read();
             ZarrArray n = Zarr.openArray(out.toString(), "n"); Tensor ints = n.read()) {
            assertArrayEquals(new long[]{T, H, W}, t2m.shape());
            assertArrayEquals(new long[]{5, 3, 5}, t2m.chunkShape());
            assertEquals(List.of("bytes", "gzip", "crc32c"),
                    t2m.metadata().codecs().stream().map(c -> c.name()).toList(), "the codecs asked for");
            float[] values = all.toFloatArray();
            long[] indices = ints.toLongArray();
            for (int i = 0; i < values.length; i++) {
                assertEquals(i * 0.5f, values[i], "t2m at " + i);
                assertEquals(i, indices[i], "n at " + i);
            }
        }
        assertFalse(Files.exists(out.resolve(WriteSpec.STAGING)), "the staging directory is gone");
    }

    @Test
    void elementsWithoutARowHoldTheFillValue() {
        Path out = dir.resolve("sparse.zarr");
        write(rows("id % 7 = 0"), out, "3,4,5");
        try (ZarrArray t2m = Zarr.openArray(out.toString(), "t2m"); Tensor all = t2m.read()) {
            float[] values = all.toFloatArray();
            for (int i = 0; i < values.length; i++) {
                if (i % 7 == 0) {
                    assertTrue(Float.isNaN(values[i]), "no row for " + i);
                } else {
                    assertEquals(i * 0.5f, values[i]);
                }
            }
        }
    }

    @Test
    void aFailedTaskLeavesNothingAtTheLocation() throws Exception {
        Path out = dir.resolve("failed.zarr");
        // the last row's time index is outside the shape: the task that gets it has written whole chunks
        // of the rows before it into its staging directory when it fails
        Dataset<Row> bad = rows("false").selectExpr("IF(time = 11 AND latitude = 3 AND longitude = 4, 12, time) AS time",
                "latitude", "longitude", "t2m", "n");
        Exception e = assertThrows(Exception.class, () -> write(bad, out, "1,4,5"));
        assertTrue(String.valueOf(rootCause(e).getMessage()).contains("index 12 in dimension column \"time\""),
                rootCause(e).toString());
        assertFalse(Files.exists(out.resolve("zarr.json")));
        try (Stream<Path> left = Files.exists(out) ? Files.walk(out).filter(Files::isRegularFile) : Stream.empty()) {
            assertEquals(0, left.count(), "no file is left at " + out);
        }
    }

    @Test
    void aLocationThatHoldsSomethingIsRefused() throws Exception {
        Path out = dir.resolve("taken.zarr");
        Files.createDirectories(out);
        Files.writeString(out.resolve("notes.txt"), "mine");
        Exception e = assertThrows(Exception.class, () -> write(rows("false"), out, "3,4,5"));
        assertTrue(rootCause(e).getMessage().contains("creates a new group"), rootCause(e).getMessage());
        assertEquals("mine", Files.readString(out.resolve("notes.txt")));
    }

    @Test
    void anUnknownCodecFailsBeforeAnyTaskRuns() {
        Path out = dir.resolve("codec.zarr");
        Exception e = assertThrows(Exception.class, () -> write(rows("false"), out, "3,4,5", "brotli:level=3"));
        assertTrue(String.valueOf(rootCause(e).getMessage()).contains("brotli"), rootCause(e).toString());
        assertFalse(Files.exists(out.resolve("zarr.json")));
    }

    private static Throwable rootCause(Throwable e) {
        while (e.getCause() != null && e.getCause() != e) {
            e = e.getCause();
        }
        return e;
    }
}
