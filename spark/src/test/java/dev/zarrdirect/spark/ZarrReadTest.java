// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.convert.ConvertOptions;
import dev.zarrdirect.core.convert.Converter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZarrReadTest {

    @TempDir
    static Path dir;
    static Path store;
    static SparkSession spark;

    @BeforeAll
    static void setUp() {
        store = TestGroups.era5(dir.resolve("era5.zarr"));
        spark = LocalSpark.session();
    }

    private Dataset<Row> read(String location, String variables) {
        return spark.read().format("zarr").option("variables", variables).load(location);
    }

    @Test
    void schemaHasCoordinateColumnsThenVariables() {
        StructType schema = read(store.toString(), "t2m,u").schema();
        assertArrayEquals(new String[]{"time", "latitude", "longitude", "t2m", "u"}, schema.fieldNames());
        assertEquals(DataTypes.LongType, schema.apply("time").dataType());
        assertEquals(DataTypes.DoubleType, schema.apply("latitude").dataType());
        assertEquals(DataTypes.DoubleType, schema.apply("longitude").dataType());
        assertEquals(DataTypes.FloatType, schema.apply("t2m").dataType());
    }

    @Test
    void everyRowHoldsTheValuesCoreReads() {
        float[] t2m;
        try (ZarrArray a = Zarr.openArray(store.toString(), "t2m"); Tensor all = a.read()) {
            t2m = all.toFloatArray();
        }
        List<Row> rows = read(store.toString(), "t2m,u").collectAsList();
        assertEquals(TestGroups.T * TestGroups.H * TestGroups.W, rows.size());
        boolean[] seen = new boolean[t2m.length];
        for (Row r : rows) {
            long t = (r.getLong(0) - TestGroups.hours(0)) / 6;
            long y = Math.round((90 - r.getDouble(1)) / 30);
            long x = Math.round(r.getDouble(2) / 10);
            int flat = (int) ((t * TestGroups.H + y) * TestGroups.W + x);
            assertEquals(t2m[flat], r.getFloat(3), "t2m at " + r);
            assertEquals(TestGroups.value(1, t, y, x), r.getFloat(4), "u at " + r);
            seen[flat] = true;
        }
        for (boolean s : seen) {
            assertTrue(s);
        }
    }

    @Test
    void aTimeRangeReadsOnlyItsChunks() {
        Dataset<Row> all = read(store.toString(), "t2m,u").select("time", "t2m");
        assertEquals(TestGroups.T * TestGroups.H * TestGroups.W, all.count());
        // steps 4..6 lie in the time chunks [3, 6) and [6, 9): two reads of t2m, none of u
        Dataset<Row> range = read(store.toString(), "t2m,u").select("time", "t2m")
                .where(col("time").geq(TestGroups.hours(4)).and(col("time").leq(TestGroups.hours(6))));
        List<Row> rows = range.collectAsList();
        assertEquals(3 * TestGroups.H * TestGroups.W, rows.size());
        assertEquals(2, storeReads(range), range.queryExecution().executedPlan().toString());
        Dataset<Row> whole = read(store.toString(), "t2m,u").select("time", "t2m");
        whole.collectAsList();
        assertEquals(TestGroups.T / TestGroups.TIME_CHUNK, storeReads(whole), "one read per chunk of t2m, none of u");
    }

    @Test
    void aFilterOnIndicesAndCoordinatesTogetherNarrowsBoth() {
        Dataset<Row> box = read(store.toString(), "u").where(col("latitude").lt(40).and(col("time").equalTo(
                TestGroups.hours(11))));
        List<Row> rows = box.collectAsList();
        assertEquals(2 * TestGroups.W, rows.size());
        for (Row r : rows) {
            assertTrue(r.getDouble(1) < 40);
        }
        assertEquals(1, storeReads(box));
    }

    @Test
    void readsAZipStoreAndAnHttpStoreAlike() throws Exception {
        Path zip = dir.resolve("era5.zip");
        new Converter(ConvertOptions.defaults()).convert(store.toString(), zip);
        double zipSum = read(zip.toString(), "t2m").agg(org.apache.spark.sql.functions.sum("t2m")).first().getDouble(0);
        double dirSum = read(store.toString(), "t2m").agg(org.apache.spark.sql.functions.sum("t2m")).first().getDouble(0);
        assertEquals(dirSum, zipSum);
        try (StaticHttpServer http = new StaticHttpServer(store)) {
            Dataset<Row> remote = read(http.url(), "t2m,u").where(col("time").lt(TestGroups.hours(3)));
            assertEquals(3 * TestGroups.H * TestGroups.W, remote.count());
            double httpSum = read(http.url(), "t2m").agg(org.apache.spark.sql.functions.sum("t2m")).first().getDouble(0);
            assertEquals(dirSum, httpSum);
        }
    }

    @Test
    void aZarrV2StoreTakesItsDimensionsFromArrayDimensions() {
        Path v2 = dir.resolve("era5-v2.zarr");
        new Converter(ConvertOptions.builder().zarrFormat(2).build()).convert(store.toString(), v2);
        Dataset<Row> df = read(v2.toString(), "t2m");
        assertArrayEquals(new String[]{"time", "latitude", "longitude", "t2m"}, df.schema().fieldNames());
        Dataset<Row> one = df.where(col("time").equalTo(TestGroups.hours(5)).and(col("longitude").equalTo(20.0)));
        List<Row> rows = one.collectAsList();
        assertEquals(TestGroups.H, rows.size());
        for (Row r : rows) {
            long y = Math.round((90 - r.getDouble(1)) / 30);
            assertEquals(TestGroups.value(0, 5, y, 2), r.getFloat(3));
        }
        assertEquals(1, storeReads(one));
    }

    @Test
    void aShardedStoreIsPlannedByShardsAndReadsTheSameValues() {
        Path sharded = dir.resolve("era5-sharded.zarr");
        new Converter(ConvertOptions.builder().chunks(1, 4, 5).shard(6, 4, 5).build()).convert(store.toString(), sharded);
        ZarrLayout layout = ZarrLayout.resolve(sharded.toString(), java.util.Map.of("variables", "t2m,u"));
        assertArrayEquals(new long[]{6, 4, 5}, layout.unit(), "a partition unit is a shard");
        List<Row> expected = read(store.toString(), "t2m,u").orderBy("time", "latitude", "longitude").collectAsList();
        List<Row> actual = read(sharded.toString(), "t2m,u").orderBy("time", "latitude", "longitude").collectAsList();
        assertEquals(expected, actual);
    }

    @Test
    void aCfTimeCoordinateIsATimestampColumnAndTimestampFiltersNarrowTheRead() {
        Path cf = TestGroups.era5(dir.resolve("era5-cf.zarr"),
                java.util.Map.of("units", "hours since 1900-01-01 00:00:00", "calendar", "gregorian"));
        Dataset<Row> df = read(cf.toString(), "t2m");
        assertEquals(DataTypes.TimestampType, df.schema().apply("time").dataType());
        java.time.Instant first = java.time.LocalDateTime.of(1900, 1, 1, 0, 0).toInstant(java.time.ZoneOffset.UTC)
                .plus(java.time.Duration.ofHours(TestGroups.hours(0)));
        // steps 9.. lie in the last time chunk [9, 12)
        java.time.Instant from = first.plus(java.time.Duration.ofHours(6 * 9));
        Dataset<Row> late = df.where(col("time").geq(org.apache.spark.sql.functions.lit(java.sql.Timestamp.from(from))));
        List<Row> rows = late.collectAsList();
        assertEquals(3 * TestGroups.H * TestGroups.W, rows.size());
        for (Row r : rows) {
            assertTrue(!r.getTimestamp(0).toInstant().isBefore(from), r.toString());
        }
        assertEquals(1, storeReads(late));
        String text = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
                .format(from.atOffset(java.time.ZoneOffset.UTC));
        Dataset<Row> byText = df.where(col("time").geq(text));
        assertEquals(rows.size(), byText.count(), "a string compared with the column is a timestamp in UTC");
        assertEquals(first, df.agg(org.apache.spark.sql.functions.min("time")).first().getTimestamp(0).toInstant());
    }

    @Test
    void anUnknownVariableNamesTheStoreAndWhatItHas() {
        Exception e = assertThrows(Exception.class, () -> read(store.toString(), "t2m,nope").schema());
        Throwable root = e;
        while (root.getCause() != null && !(root instanceof IllegalArgumentException)) {
            root = root.getCause();
        }
        assertTrue(root.getMessage().contains("no array \"nope\""), root.getMessage());
        assertTrue(root.getMessage().contains("t2m"), root.getMessage());
    }

    /** The scan's count of store reads of chunk data, after the query ran. */
    static long storeReads(Dataset<Row> ran) {
        SparkPlan scan = ran.queryExecution().executedPlan().collectLeaves().head();
        return scan.metrics().apply(ScanMetrics.STORE_READS).value();
    }

    @Test
    void partitionsArePlannedFromTheChunkGridWithoutListing() {
        ZarrLayout layout = ZarrLayout.resolve(store.toString(), java.util.Map.of("variables", "t2m"));
        ZarrScan scan = new ZarrScan(layout, layout.schema(), new long[]{4, 0, 0}, new long[]{7, 4, 5},
                new ScanOptions(1, 16), new org.apache.spark.sql.sources.Filter[0]);
        var parts = scan.planInputPartitions();
        assertEquals(2, parts.length);
        ZarrInputPartition first = (ZarrInputPartition) parts[0];
        assertEquals(new Selection(new long[]{4, 0, 0}, new long[]{6, 4, 5}),
                new Selection(first.starts()[0], first.stops()[0]));
    }
}
