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
import dev.zarrdirect.spark.jobs.ZarrDirectSpark;
import dev.zarrdirect.loader.stats.StatsFile;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data source and the jobs on a real standalone cluster (a master and two workers, separate
 * JVMs on 127.0.0.1; see {@link SparkCluster}), so that what crosses a process boundary is
 * serialized and what executors load comes from the shipped jars. Results are compared with what
 * core reads in this JVM.
 */
class StandaloneClusterTest {

    @TempDir
    static Path dir;
    static SparkCluster cluster;
    static SparkSession spark;
    static Path era5;
    static Path series;

    @BeforeAll
    static void start() throws Exception {
        era5 = TestGroups.era5(dir.resolve("era5.zarr"));
        series = series(dir.resolve("series.zarr"));
        LocalSpark.stop();
        cluster = new SparkCluster(dir.resolve("cluster"));
        try {
            spark = SparkSession.builder().master(cluster.masterUrl()).appName("zarr-direct-cluster-test")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.shuffle.partitions", "2")
                    .config("spark.sql.adaptive.enabled", "false")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.executor.memory", "512m")
                    .config("spark.executor.cores", "1")
                    .config("spark.cores.max", "2")
                    .config("spark.jars", cluster.appJars())
                    .config("spark.executor.extraJavaOptions",
                            "--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:+UseSerialGC"
                                    + " -XX:TieredStopAtLevel=1")
                    .config("spark.sql.warehouse.dir", dir.resolve("warehouse").toString())
                    .getOrCreate();
            awaitExecutors(2);
        } catch (RuntimeException | Error e) {
            stop();
            throw e;
        }
    }

    @AfterAll
    static void stop() {
        try {
            if (spark != null) {
                spark.stop();
            }
        } finally {
            SparkSession.clearActiveSession();
            SparkSession.clearDefaultSession();
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    private static void awaitExecutors(int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SparkCluster.START_SECONDS);
        while (spark.sparkContext().getExecutorMemoryStatus().size() < n + 1) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(n + " executors did not register within " + SparkCluster.START_SECONDS
                        + " s; " + spark.sparkContext().getExecutorMemoryStatus().size() + " block managers"
                        + cluster.logTails());
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** {@code v} float32 [240, 16, 16] in chunks of one step: enough tasks for an executor to die among them. */
    private static Path series(Path at) {
        try (Store s = FileSystemStore.create(at); ZarrGroup g = Zarr.createGroup(s, "", Map.of())) {
            ArrayMetadata md = ArrayMetadata.builder(new long[]{240, 16, 16}, DataType.FLOAT32).chunks(1, 16, 16)
                    .compressors(Codecs.zstd(1)).dimensionNames("time", "y", "x").build();
            try (ZarrArray a = g.createArray("v", md); Tensor t = Tensor.allocateHost(DataType.FLOAT32, 240, 16, 16)) {
                for (long i = 0; i < t.elementCount(); i++) {
                    t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) Math.sin(i * 0.001));
                }
                a.write(t);
            }
        }
        return at;
    }

    @Test
    void executorsReadTheStoreAsCoreDoes() {
        double expected = 0;
        try (ZarrArray a = Zarr.openArray(era5.toString(), "u"); Tensor all = a.read()) {
            for (float v : all.toFloatArray()) {
                expected += v;
            }
        }
        Row r = spark.read().format("zarr").option("variables", "t2m,u").load(era5.toString())
                .agg(sum("u"), org.apache.spark.sql.functions.count("t2m")).first();
        assertEquals(expected, r.getDouble(0), 1e-6 * Math.abs(expected));
        assertEquals(TestGroups.T * TestGroups.H * TestGroups.W, r.getLong(1));
        long early = spark.read().format("zarr").load(era5.toString()).where(col("time").lt(TestGroups.hours(3))).count();
        assertEquals(3 * TestGroups.H * TestGroups.W, early);
    }

    @Test
    void statsOnTheClusterEqualStatsInOneJvm() {
        Path out = dir.resolve("stats.json");
        StringWriter err = new StringWriter();
        int code = ZarrDirectSpark.run(spark, new PrintWriter(new StringWriter()), new PrintWriter(err), "stats",
                series.toString(), "--variables", "v", "-o", out.toString(), "--task-bytes", "20000");
        assertEquals(0, code, err + cluster.logTails());
        StatsFile stats = StatsFile.read(out);
        double mean = 0;
        double m2 = 0;
        long n = 0;
        try (ZarrArray a = Zarr.openArray(series.toString(), "v"); Tensor all = a.read()) {
            for (float v : all.toFloatArray()) {
                n++;
                double d = v - mean;
                mean += d / n;
                m2 += d * (v - mean);
            }
        }
        assertEquals(n, stats.variables().get("v").count()[0]);
        assertEquals(mean, stats.variables().get("v").mean()[0], 1e-9);
        assertEquals(Math.sqrt(m2 / n), stats.variables().get("v").std()[0], 1e-9);
    }

    @Test
    void aConversionLosesNothingWhenAnExecutorIsKilled() throws Exception {
        Path dst = dir.resolve("converted.zarr");
        StringWriter err = new StringWriter();
        CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> ZarrDirectSpark.run(spark,
                new PrintWriter(new StringWriter()), new PrintWriter(err), "convert", series.toString(), dst.toString(),
                "--codec", "gzip:level=9", "--task-bytes", "1024"));
        Path done = dst.resolve(".zarr-direct-spark-convert");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.isDirectory(done) && countFiles(done) > 2) && !run.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(run.isDone(), "the conversion ended before an executor could be killed: " + err);
        List<ProcessHandle> executors = cluster.executors();
        assertFalse(executors.isEmpty(), "no executor process found" + cluster.logTails());
        executors.getFirst().destroyForcibly();
        assertEquals(0, run.get(120, TimeUnit.SECONDS), err + cluster.logTails());
        try (ZarrArray a = Zarr.openArray(series.toString(), "v"); Tensor x = a.read();
             ZarrArray b = Zarr.openArray(dst.toString(), "v"); Tensor y = b.read()) {
            assertEquals(-1, x.segment().mismatch(y.segment()), "every element arrived");
            assertFalse(b.attributes().containsKey("zarr_direct_convert"));
        }
        assertTrue(Files.notExists(done));
    }

    private static long countFiles(Path d) {
        try (var s = Files.list(d)) {
            return s.count();
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }
}
