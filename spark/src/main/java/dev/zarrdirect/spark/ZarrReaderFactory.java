// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import java.io.Serial;

/** Sent to the executors: makes a {@link ZarrBatchReader} per partition. Reads are columnar only. */
final class ZarrReaderFactory implements PartitionReaderFactory {

    @Serial
    private static final long serialVersionUID = 1L;

    private final ZarrLayout layout;
    private final StructType schema;
    private final ScanOptions options;

    ZarrReaderFactory(ZarrLayout layout, StructType schema, ScanOptions options) {
        this.layout = layout;
        this.schema = schema;
        this.options = options;
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return true;
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        return new ZarrBatchReader(layout, schema, options, (ZarrInputPartition) partition);
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        throw new UnsupportedOperationException("the zarr source reads columnar batches only (Spark asks for them"
                + " when supportColumnarReads is true); " + partition + " was asked for rows");
    }
}
