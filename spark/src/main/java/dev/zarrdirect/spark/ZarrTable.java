// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import dev.zarrdirect.spark.write.ZarrWrite;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The variables of a Zarr group as one table (see {@link ZarrLayout}) to read, or a new group to
 * write (see {@link ZarrWrite}). Its schema is the one Spark resolved: the store's for a read, the
 * rows' for a write.
 */
final class ZarrTable implements SupportsRead, SupportsWrite {

    private final String location;
    private final Map<String, String> options;
    private final StructType schema;

    ZarrTable(String location, Map<String, String> options, StructType schema) {
        this.location = location;
        this.options = options;
        this.schema = schema;
    }

    @Override
    public String name() {
        return "zarr:" + location;
    }

    @Override
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap scanOptions) {
        ZarrLayout layout = ZarrLayout.resolve(location, scanOptions);
        if (!Arrays.equals(layout.schema().fieldNames(), schema.fieldNames())) {
            throw new IllegalArgumentException("the zarr source takes its schema from the store: " + location
                    + " has columns " + Arrays.toString(layout.schema().fieldNames()) + ", not the "
                    + Arrays.toString(schema.fieldNames()) + " given; leave out .schema(...)");
        }
        return new ZarrScanBuilder(layout, scanOptions);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return ZarrWrite.builder(location, info.queryId(), info.schema(), info.options());
    }
}
