// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.util.Map;

/**
 * The {@code zarr} data source: {@code spark.read.format("zarr").option("variables", "t2m,u").load(path)}.
 * The path is any location {@code Stores.open} takes (a directory, a zip, an http(s) URL). The schema
 * comes from the store's metadata; a schema given by the caller is not supported.
 *
 * <p>Writing: {@code df.write.format("zarr").mode("append").option("dimensions", "time,lat,lon")
 * .option("shape", ...).option("chunks", ...).save(dir)} creates a new group at a directory (Spark's
 * default mode, error-if-exists, is for catalog tables; {@code append} to a location that does not
 * exist yet is how a path-based V2 source is written). See {@code dev.zarrdirect.spark.write}.
 *
 * <p>Options: {@code variables} (comma-separated array paths in the group; default every array that is
 * not a coordinate), {@code group} (a group below the root), {@code partitionBytes} and
 * {@code batchRows} (see {@link ScanOptions}). Found by Spark through {@code META-INF/services}.
 */
public final class ZarrDataSource implements TableProvider, DataSourceRegister {

    /** The name of the format: {@code format("zarr")}. */
    public static final String NAME = "zarr";

    /** Made by Spark, by reflection. */
    public ZarrDataSource() {
    }

    @Override
    public String shortName() {
        return NAME;
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return ZarrLayout.resolve(path(options), options).schema();
    }

    /** A write passes the rows' schema (there is no store yet); a read passes the one {@link #inferSchema} gave. */
    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        CaseInsensitiveStringMap options = new CaseInsensitiveStringMap(properties);
        return new ZarrTable(path(options), options, schema);
    }

    private static String path(CaseInsensitiveStringMap options) {
        String path = options.get("path");
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException("the zarr source needs the store's location: load(\"/data/era5.zarr\")"
                    + " or option(\"path\", ...)");
        }
        return path;
    }
}
