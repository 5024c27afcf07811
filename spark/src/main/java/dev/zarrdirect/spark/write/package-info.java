// SPDX-License-Identifier: Apache-2.0
/**
 * {@code df.write.format("zarr")}: rows written as a new group of arrays, each task encoding whole
 * chunks into a staging directory, the job's commit publishing them and the metadata last
 * ({@link dev.zarrdirect.spark.write.ZarrWrite}).
 */
package dev.zarrdirect.spark.write;
