// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Plans the partitions of a read from metadata alone: the grid of partition units (the first
 * variable's chunks or shards) inside the pushed-down ranges, visited in C order and cut into runs
 * of about {@link ScanOptions#partitionBytes()} of decoded variables. Nothing is listed.
 */
final class ZarrScan implements Scan, Batch {

    private final ZarrLayout layout;
    private final StructType readSchema;
    private final long[] lo;
    private final long[] hi;
    private final ScanOptions options;
    private final Filter[] pushed;

    ZarrScan(ZarrLayout layout, StructType readSchema, long[] lo, long[] hi, ScanOptions options, Filter[] pushed) {
        this.layout = layout;
        this.readSchema = readSchema;
        this.lo = lo;
        this.hi = hi;
        this.options = options;
        this.pushed = pushed;
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    @Override
    public String description() {
        return "zarr " + layout.location() + " " + Arrays.toString(readSchema.fieldNames()) + " ranges "
                + ranges() + (pushed.length == 0 ? "" : " pushed " + Arrays.toString(pushed));
    }

    private String ranges() {
        StringBuilder b = new StringBuilder("[");
        for (int d = 0; d < lo.length; d++) {
            b.append(d == 0 ? "" : ", ").append(layout.dims().get(d)).append(' ').append(lo[d]).append(':').append(hi[d]);
        }
        return b.append(']').toString();
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return ScanMetrics.supported();
    }

    @Override
    public InputPartition[] planInputPartitions() {
        int rank = lo.length;
        long[] unit = layout.unit();
        long[] first = new long[rank];
        long[] last = new long[rank];
        for (int d = 0; d < rank; d++) {
            if (hi[d] <= lo[d]) {
                return new InputPartition[0];
            }
            first[d] = lo[d] / unit[d];
            last[d] = (hi[d] - 1) / unit[d];
        }
        long unitBytes = Math.max(1, rowBytes() * product(unit));
        long perPartition = Math.max(1, options.partitionBytes() / unitBytes);
        List<InputPartition> out = new ArrayList<>();
        List<long[]> starts = new ArrayList<>();
        List<long[]> stops = new ArrayList<>();
        long[] cell = first.clone();
        while (true) {
            long[] start = new long[rank];
            long[] stop = new long[rank];
            for (int d = 0; d < rank; d++) {
                start[d] = Math.max(lo[d], cell[d] * unit[d]);
                stop[d] = Math.min(hi[d], (cell[d] + 1) * unit[d]);
            }
            starts.add(start);
            stops.add(stop);
            if (starts.size() == perPartition) {
                out.add(new ZarrInputPartition(out.size(), starts.toArray(new long[0][]), stops.toArray(new long[0][])));
                starts.clear();
                stops.clear();
            }
            int d = rank - 1;
            while (d >= 0 && cell[d] == last[d]) {
                cell[d] = first[d];
                d--;
            }
            if (d < 0) {
                break;
            }
            cell[d]++;
        }
        if (!starts.isEmpty()) {
            out.add(new ZarrInputPartition(out.size(), starts.toArray(new long[0][]), stops.toArray(new long[0][])));
        }
        return out.toArray(new InputPartition[0]);
    }

    /** Decoded bytes of the variables read, per row (at least one, so that a dimension-only scan still batches). */
    private long rowBytes() {
        long n = 0;
        for (int i = 0; i < layout.variables().size(); i++) {
            if (Arrays.asList(readSchema.fieldNames()).contains(layout.variables().get(i))) {
                n += layout.variableType(i).byteSize();
            }
        }
        return Math.max(1, n);
    }

    private static long product(long[] a) {
        long n = 1;
        for (long x : a) {
            n = Math.multiplyExact(n, x);
        }
        return n;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new ZarrReaderFactory(layout, readSchema, options);
    }
}
