// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Takes the columns a query needs (a variable not asked for is never read) and its filters on
 * dimension columns (which narrow the boxes read, see {@link DimensionRanges}).
 */
final class ZarrScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownFilters {

    private final ZarrLayout layout;
    private final ScanOptions options;
    private final DimensionRanges ranges;
    private StructType required;

    ZarrScanBuilder(ZarrLayout layout, CaseInsensitiveStringMap options) {
        this.layout = layout;
        this.options = ScanOptions.of(options);
        this.ranges = new DimensionRanges(layout);
        this.required = layout.schema();
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        this.required = requiredSchema;
    }

    /** Every filter goes back to Spark to be evaluated on the rows read: ranges are at least what passes. */
    @Override
    public Filter[] pushFilters(Filter[] filters) {
        for (Filter f : filters) {
            ranges.push(f);
        }
        return filters;
    }

    @Override
    public Filter[] pushedFilters() {
        return ranges.pushed();
    }

    @Override
    public Scan build() {
        return new ZarrScan(layout, required, ranges.lo(), ranges.hi(), options, ranges.pushed());
    }
}
