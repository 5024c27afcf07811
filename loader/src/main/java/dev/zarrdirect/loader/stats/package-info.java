// SPDX-License-Identifier: Apache-2.0
/**
 * Per-channel statistics for normalization: computed streaming over a dataset's time range, and
 * the JSON file that {@code zarr-direct stats} writes and the loader reads.
 *
 * <h2>Computing</h2>
 * {@link dev.zarrdirect.loader.stats.ChannelStatistics} reads a few time steps at a time (a byte
 * budget bounds the memory) on the host and folds each plane into per-channel moments in double:
 * two passes per block, then Chan et al.'s pairwise merge, which stays accurate for data far from
 * zero (temperatures in kelvin, pressures in pascal). NaNs are skipped and counted. The standard
 * deviation is the population one (ddof = 0), as numpy's {@code std} defaults to.
 *
 * <h2>The file</h2>
 * {@link dev.zarrdirect.loader.stats.StatsFile} writes and reads the
 * {@code zarr-direct-stats} version 1 document and picks a variable's selected channels out of it
 * as a {@link dev.zarrdirect.loader.LoaderSpec.Normalization}, refusing channels it lacks or whose
 * standard deviation is 0.
 *
 * <h2>Progress</h2>
 * A {@link dev.zarrdirect.loader.stats.StatsListener} hears steps done out of the total after each read.
 */
package dev.zarrdirect.loader.stats;
