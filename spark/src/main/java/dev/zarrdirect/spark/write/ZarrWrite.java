// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.write;

import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;

/**
 * A write of rows as a new group. Spark is asked to range-partition and sort the rows by their
 * indices (C order), so each task gets a run of whole chunks, but for the chunks at the edges of its
 * run, which the job's commit merges ({@link ZarrBatchWrite}).
 */
public final class ZarrWrite implements Write, RequiresDistributionAndOrdering {

    private final WriteSpec spec;

    ZarrWrite(WriteSpec spec) {
        this.spec = spec;
    }

    /**
     * The builder Spark's {@code SupportsWrite} returns.
     *
     * @param location the group's directory
     * @param jobId    names the job's staging directory (Spark's query id)
     * @param schema   the rows' schema
     * @param options  the write's options (see {@link WriteSpec})
     * @return a builder of this write
     */
    public static WriteBuilder builder(String location, String jobId, org.apache.spark.sql.types.StructType schema,
                                       java.util.Map<String, String> options) {
        WriteSpec spec = WriteSpec.of(location, jobId, schema, options);
        return new WriteBuilder() {
            @Override
            public Write build() {
                return new ZarrWrite(spec);
            }
        };
    }

    @Override
    public Distribution requiredDistribution() {
        return Distributions.ordered(ordering());
    }

    @Override
    public SortOrder[] requiredOrdering() {
        return ordering();
    }

    private SortOrder[] ordering() {
        SortOrder[] out = new SortOrder[spec.dims().size()];
        for (int d = 0; d < out.length; d++) {
            out[d] = Expressions.sort(Expressions.column(spec.dims().get(d)), SortDirection.ASCENDING);
        }
        return out;
    }

    @Override
    public String description() {
        return "zarr write " + spec;
    }

    @Override
    public BatchWrite toBatch() {
        return new ZarrBatchWrite(spec);
    }
}
