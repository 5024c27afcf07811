// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.lang.foreign.ValueLayout;
import java.util.Locale;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.sum;

/**
 * Measures the {@code zarr} source's scan: the rows per second of {@code sum(VARIABLE)} over the first
 * STEPS time steps of a group in local mode, against summing the same box read by core in one JVM
 * thread. Not a test: {@code java -cp ... dev.zarrdirect.spark.ScanRate GROUP VARIABLE STEPS [CORES]}
 * (see docs/spark.md for the class path).
 */
public final class ScanRate {

    private ScanRate() {
    }

    public static void main(String[] args) {
        String group = args[0];
        String variable = args[1];
        long steps = Long.parseLong(args[2]);
        String cores = args.length > 3 ? args[3] : "1";
        double coreSeconds = Double.MAX_VALUE;
        double expected = 0;
        long rows = 0;
        for (int pass = 0; pass < 3; pass++) {
            long t0 = System.nanoTime();
            try (ZarrArray a = Zarr.openArray(group, variable)) {
                long[] stop = a.shape();
                stop[0] = steps;
                try (Tensor t = a.read(new Selection(new long[stop.length], stop))) {
                    double s = 0;
                    long n = t.elementCount();
                    for (long i = 0; i < n; i++) {
                        s += t.segment().getAtIndex(ValueLayout.JAVA_FLOAT, i);
                    }
                    expected = s;
                    rows = n;
                }
            }
            coreSeconds = Math.min(coreSeconds, (System.nanoTime() - t0) / 1e9);
        }
        SparkSession spark = SparkSession.builder().master("local[" + cores + "]").appName("zarr scan rate")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate();
        try {
            String time = ZarrLayout.resolve(group, java.util.Map.of("variables", variable)).dims().getFirst();
            double sparkSeconds = Double.MAX_VALUE;
            Row r = null;
            for (int pass = 0; pass < 3; pass++) {
                long t0 = System.nanoTime();
                r = spark.read().format("zarr").option("variables", variable).load(group)
                        .where(col(time).lt(steps)).agg(sum(variable), count(variable)).first();
                sparkSeconds = Math.min(sparkSeconds, (System.nanoTime() - t0) / 1e9);
            }
            System.out.printf(Locale.ROOT, "rows %d (spark counted %d), sum core %.6e spark %.6e%n", rows, r.getLong(1),
                    expected, r.getDouble(0));
            System.out.printf(Locale.ROOT, "core read + sum, 1 thread: %.2f s, %.1f M rows/s%n", coreSeconds,
                    rows / coreSeconds / 1e6);
            System.out.printf(Locale.ROOT, "spark local[%s] scan + sum: %.2f s, %.1f M rows/s%n", cores, sparkSeconds,
                    rows / sparkSeconds / 1e6);
        } finally {
            spark.stop();
        }
    }
}
