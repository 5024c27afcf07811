// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The scan's metrics, summed over tasks and shown on the scan node in the Spark UI: what the store
 * was asked for, so that the saving of a pushed-down filter can be seen (and tested).
 */
final class ScanMetrics {

    /** Reads of chunk data (and shard indexes): every store read but metadata documents. */
    static final String STORE_READS = "zarrStoreReads";
    /** Bytes those reads returned. */
    static final String STORE_BYTES = "zarrStoreBytes";

    private ScanMetrics() {
    }

    static CustomMetric[] supported() {
        return new CustomMetric[]{new StoreReads(), new StoreBytes()};
    }

    static CustomTaskMetric[] values(long reads, long bytes) {
        return new CustomTaskMetric[]{task(STORE_READS, reads), task(STORE_BYTES, bytes)};
    }

    private static CustomTaskMetric task(String name, long value) {
        return new CustomTaskMetric() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public long value() {
                return value;
            }
        };
    }

    /** Instantiated by Spark by its class name: public, with a public constructor. */
    public static final class StoreReads extends CustomSumMetric {
        @Override
        public String name() {
            return STORE_READS;
        }

        @Override
        public String description() {
            return "zarr store reads";
        }
    }

    /** Instantiated by Spark by its class name: public, with a public constructor. */
    public static final class StoreBytes extends CustomSumMetric {
        @Override
        public String name() {
            return STORE_BYTES;
        }

        @Override
        public String description() {
            return "zarr store bytes read";
        }
    }
}
