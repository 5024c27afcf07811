// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.convert.Converter;
import dev.zarrdirect.spark.LocalSpark;
import dev.zarrdirect.spark.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SparkConvertTest {

    @TempDir
    Path dir;

    private static int run(StringWriter out, StringWriter err, String... args) {
        return ZarrDirectSpark.run(LocalSpark.session(), new PrintWriter(out), new PrintWriter(err), args);
    }

    /** Every array of {@code source} has the same elements in {@code converted}, which is finished. */
    static void assertSameArrays(Path source, Path converted, List<String> arrays) throws Exception {
        for (String name : arrays) {
            try (ZarrArray a = Zarr.openArray(source.toString(), name); Tensor x = a.read();
                 ZarrArray b = Zarr.openArray(converted.toString(), name); Tensor y = b.read()) {
                assertArrayEquals(a.shape(), b.shape(), name);
                assertEquals(-1, x.segment().mismatch(y.segment()), name + " has the same bytes");
                assertFalse(b.attributes().containsKey(Converter.MARKER), name + " is marked finished");
            }
        }
        assertFalse(Files.exists(converted.resolve(Converter.JOURNAL_KEY)));
        assertFalse(Files.exists(converted.resolve(ConvertTask.DONE_DIR)));
    }

    @Test
    void aGroupIsReshardedAndRecompressedByManyTasks() throws Exception {
        Path src = TestGroups.era5(dir.resolve("src.zarr"));
        Path dst = dir.resolve("dst.zarr");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = run(out, err, "convert", src.toString(), dst.toString(), "--chunks", "1,2,5", "--shard", "2,4,5",
                "--codec", "gzip:level=1", "--task-bytes", "160");
        assertEquals(0, code, err.toString());
        try (ZarrArray t2m = Zarr.openArray(dst.toString(), "t2m")) {
            assertArrayEquals(new long[]{2, 4, 5}, t2m.chunkShape(), "sharded as asked");
        }
        assertSameArrays(src, dst, List.of("t2m", "u", "time", "latitude", "longitude"));
        assertTrue(out.toString().contains("0 done by an earlier run"), out.toString());
    }

    @Test
    void aFailedRunIsResumedWithoutRedoingItsFinishedTasks() throws Exception {
        Path src = TestGroups.era5(dir.resolve("src.zarr"));
        Path dst = dir.resolve("dst.zarr");
        // a chunk of u that does not decode fails the tasks that read it, and so the first run
        Path chunk = src.resolve("u/c/3/0/0");
        byte[] good = Files.readAllBytes(chunk);
        Files.write(chunk, new byte[]{1, 2, 3});
        StringWriter err = new StringWriter();
        int failed = run(new StringWriter(), err, "convert", src.toString(), dst.toString(), "--chunks", "3,4,5",
                "--task-bytes", "240");
        assertNotEquals(0, failed);
        try (ZarrArray t2m = Zarr.openArray(dst.toString(), "t2m")) {
            assertEquals(Converter.INCOMPLETE, t2m.attributes().get(Converter.MARKER), "unfinished until every task is done");
        }
        Files.write(chunk, good);
        StringWriter out = new StringWriter();
        err = new StringWriter();
        int code = run(out, err, "convert", src.toString(), dst.toString(), "--chunks", "3,4,5", "--task-bytes", "240");
        assertEquals(0, code, err.toString());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) task\\(s\\), (\\d+) done by an earlier run")
                .matcher(out.toString());
        assertTrue(m.find(), out.toString());
        int done = Integer.parseInt(m.group(2));
        assertTrue(done > 0 && done < Integer.parseInt(m.group(1)), out.toString());
        assertSameArrays(src, dst, List.of("t2m", "u", "time", "latitude", "longitude"));
    }
}
