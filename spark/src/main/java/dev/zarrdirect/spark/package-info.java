// SPDX-License-Identifier: Apache-2.0
/**
 * Apache Spark 4 on Zarr: the {@code zarr} DataSource V2 and the distributed jobs.
 *
 * <h2>Reading</h2>
 * {@link dev.zarrdirect.spark.ZarrDataSource} follows Spark's own file sources: a table of the
 * variables of a group, a scan builder that takes the columns asked for and filters on dimension
 * columns, a scan that plans partitions from metadata (runs of chunks or shards, never a listing)
 * and small serializable partitions (boxes of indices) that executors read as columnar batches
 * over off-heap vectors. Executors open the store themselves: nothing native, no metadata object
 * and no buffer crosses a serialization boundary.
 *
 */
package dev.zarrdirect.spark;
