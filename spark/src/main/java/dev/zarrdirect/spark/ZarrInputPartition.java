// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import org.apache.spark.sql.connector.read.InputPartition;

import java.io.Serial;
import java.util.Arrays;

/**
 * A run of partition units (chunks, or shards when sharded) of the variables, each trimmed to the
 * pushed-down ranges: boxes {@code [start, stop)} in array indices, read in order. Nothing but
 * numbers: the executor opens the store itself.
 *
 * @param index  the partition's position in the scan
 * @param starts the first index of each box, per dimension
 * @param stops  the index past the last of each box, per dimension
 */
record ZarrInputPartition(int index, long[][] starts, long[][] stops) implements InputPartition {

    @Serial
    private static final long serialVersionUID = 1L;

    /** The rows of box {@code b}. */
    long rows(int b) {
        long n = 1;
        for (int d = 0; d < starts[b].length; d++) {
            n *= stops[b][d] - starts[b][d];
        }
        return n;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ZarrInputPartition p && p.index == index && Arrays.deepEquals(p.starts, starts)
                && Arrays.deepEquals(p.stops, stops);
    }

    @Override
    public int hashCode() {
        return index;
    }

    @Override
    public String toString() {
        return "ZarrInputPartition[" + index + ": " + starts.length + " box(es) from " + Arrays.toString(starts[0])
                + "]";
    }
}
