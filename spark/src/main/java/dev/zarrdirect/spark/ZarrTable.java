// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.util.EnumSet;
import java.util.Set;

/** The variables of a Zarr group as one table (see {@link ZarrLayout}). */
final class ZarrTable implements SupportsRead {

    private final ZarrLayout layout;

    ZarrTable(ZarrLayout layout) {
        this.layout = layout;
    }

    @Override
    public String name() {
        return "zarr:" + layout.location() + (layout.group().isEmpty() ? "" : "/" + layout.group()) + " "
                + layout.variables();
    }

    @Override
    public StructType schema() {
        return layout.schema();
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        return new ZarrScanBuilder(layout, options);
    }
}
