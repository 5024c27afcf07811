// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.store.Stores;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one partition as columnar batches over off-heap vectors. Each box is read once per variable
 * ({@link ZarrArray#read(Selection)}, which decodes the chunks it touches in parallel); the box's
 * rows are C order, so any run of rows is a run of bytes, copied as it is into the variable's vector.
 * Dimension columns are filled in runs of equal values, from the coordinate array's values for the
 * box or from the indices. No object per element.
 *
 * <p>Not thread-safe (Spark calls a reader from one task thread).
 */
final class ZarrBatchReader implements PartitionReader<ColumnarBatch> {

    private final ZarrLayout layout;
    private final ScanOptions options;
    private final ZarrInputPartition partition;
    private final CountingStore store;
    private final List<AutoCloseable> opened = new ArrayList<>();
    /** Per column: the dimension it shows, or -1 for a variable. */
    private final int[] dimOf;
    /** Per column: the variable's array, or null for a dimension. */
    private final ZarrArray[] arrays;
    /** Per dimension: its coordinate array, or null for indices. */
    private final ZarrArray[] coordinates;
    private final OffHeapColumnVector[] vectors;
    private final ColumnarBatch batch;

    private int box = -1;
    private long boxRows;
    private long row;
    private Tensor[] tensors;
    private Object[] coordinateValues;

    ZarrBatchReader(ZarrLayout layout, StructType schema, ScanOptions options, ZarrInputPartition partition) {
        this.layout = layout;
        this.options = options;
        this.partition = partition;
        StructField[] fields = schema.fields();
        this.dimOf = new int[fields.length];
        this.arrays = new ZarrArray[fields.length];
        this.coordinates = new ZarrArray[layout.dims().size()];
        this.vectors = new OffHeapColumnVector[fields.length];
        boolean done = false;
        this.store = new CountingStore(Stores.open(layout.location()));
        try {
            for (int c = 0; c < fields.length; c++) {
                String name = fields[c].name();
                int d = layout.dims().indexOf(name);
                dimOf[c] = d;
                if (d >= 0) {
                    String coordinate = layout.coordinates().get(d);
                    if (coordinate != null && coordinates[d] == null) {
                        coordinates[d] = open(store.inner(), coordinate);
                    }
                } else {
                    arrays[c] = open(store, name);
                }
                vectors[c] = new OffHeapColumnVector(options.batchRows(), fields[c].dataType());
            }
            this.batch = new ColumnarBatch(vectors);
            done = true;
        } finally {
            if (!done) {
                close();
            }
        }
    }

    private ZarrArray open(dev.zarrdirect.api.store.Store from, String name) {
        ZarrArray a = Zarr.openArray(from, layout.path(name));
        opened.add(a);
        return a;
    }

    @Override
    public boolean next() {
        while (box < 0 || row >= boxRows) {
            releaseBox();
            if (++box >= partition.starts().length) {
                return false;
            }
            loadBox();
        }
        int n = (int) Math.min(options.batchRows(), boxRows - row);
        for (int c = 0; c < vectors.length; c++) {
            vectors[c].reset();
            if (dimOf[c] >= 0) {
                fillDimension(vectors[c], dimOf[c], n);
            } else {
                copyValues(vectors[c], tensors[c], n);
            }
        }
        batch.setNumRows(n);
        row += n;
        return true;
    }

    private void loadBox() {
        long[] start = partition.starts()[box];
        long[] stop = partition.stops()[box];
        Selection selection = new Selection(start, stop);
        boxRows = partition.rows(box);
        row = 0;
        tensors = new Tensor[vectors.length];
        coordinateValues = new Object[coordinates.length];
        for (int c = 0; c < vectors.length; c++) {
            if (arrays[c] != null) {
                tensors[c] = arrays[c].read(selection);
                if (!tensors[c].isContiguous()) {
                    throw new IllegalStateException("a read of " + selection + " from " + arrays[c].describe()
                            + " is not packed in C order; the zarr source copies rows as bytes");
                }
            }
        }
        for (int d = 0; d < coordinates.length; d++) {
            if (coordinates[d] != null) {
                try (Tensor t = coordinates[d].read(new Selection(new long[]{start[d]}, new long[]{stop[d]}))) {
                    CfTime time = layout.times().get(d);
                    if (time != null) {
                        double[] v = DimensionRanges.asDoubles(t);
                        long[] micros = new long[v.length];
                        for (int i = 0; i < v.length; i++) {
                            micros[i] = time.micros(v[i]);
                        }
                        coordinateValues[d] = micros;
                    } else {
                        coordinateValues[d] = layout.dimensionType(d) == DataTypes.DoubleType
                                ? DimensionRanges.asDoubles(t) : t.toLongArray();
                    }
                }
            }
        }
    }

    private void releaseBox() {
        if (tensors != null) {
            for (Tensor t : tensors) {
                if (t != null) {
                    t.close();
                }
            }
            tensors = null;
        }
    }

    /** Rows [row, row + n) of the box's C-order bytes, copied straight into the vector's memory. */
    private void copyValues(OffHeapColumnVector v, Tensor t, int n) {
        long width = t.dataType().byteSize();
        MemorySegment target = MemorySegment.ofAddress(v.valuesNativeAddress()).reinterpret((long) n * width);
        MemorySegment.copy(t.segment(), row * width, target, 0, (long) n * width);
    }

    /** The values of dimension {@code d} for rows [row, row + n): runs of {@code inner} equal values. */
    private void fillDimension(OffHeapColumnVector v, int d, int n) {
        long[] start = partition.starts()[box];
        long[] stop = partition.stops()[box];
        long inner = 1;
        for (int k = d + 1; k < start.length; k++) {
            inner *= stop[k] - start[k];
        }
        long extent = stop[d] - start[d];
        Object values = coordinateValues[d];
        for (int i = 0; i < n; ) {
            long r = row + i;
            int index = (int) ((r / inner) % extent);
            int run = (int) Math.min(n - i, inner - r % inner);
            switch (values) {
                case double[] dv -> v.putDoubles(i, run, dv[index]);
                case long[] lv -> v.putLongs(i, run, lv[index]);
                case null -> v.putLongs(i, run, start[d] + index);
                default -> throw new IllegalStateException("coordinate values of " + values.getClass());
            }
            i += run;
        }
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return ScanMetrics.values(store.reads(), store.bytes());
    }

    @Override
    public void close() {
        releaseBox();
        for (OffHeapColumnVector v : vectors) {
            if (v != null) {
                v.close();
            }
        }
        for (AutoCloseable a : opened) {
            try {
                a.close();
            } catch (Exception e) {
                // closing a node that owns nothing cannot fail; the store is closed next
            }
        }
        store.close();
    }
}
