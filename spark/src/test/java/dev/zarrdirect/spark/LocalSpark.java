// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import org.apache.spark.sql.SparkSession;

/**
 * The one local-mode session the tests of this module share (starting Spark costs seconds): two
 * task threads, no UI, two shuffle partitions, no adaptive execution (so that the scan node and
 * its metrics sit where the tests look), timestamps in UTC, everything on 127.0.0.1.
 */
public final class LocalSpark {

    private static SparkSession session;

    private LocalSpark() {
    }

    public static synchronized SparkSession session() {
        if (session == null || session.sparkContext().isStopped()) {
            session = SparkSession.builder().master("local[2]").appName("zarr-direct-spark-tests")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.shuffle.partitions", "2")
                    .config("spark.sql.adaptive.enabled", "false")
                    .config("spark.sql.session.timeZone", "UTC")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.sql.warehouse.dir", System.getProperty("java.io.tmpdir") + "/zarr-direct-spark-warehouse")
                    .getOrCreate();
        }
        return session;
    }

    /** Stops the session, so that another (such as one on a cluster) can start in this JVM: Spark allows one. */
    static synchronized void stop() {
        if (session != null) {
            session.stop();
            session = null;
        }
        SparkSession.clearActiveSession();
        SparkSession.clearDefaultSession();
    }
}
