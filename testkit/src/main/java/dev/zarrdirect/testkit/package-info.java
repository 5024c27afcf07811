// SPDX-License-Identifier: Apache-2.0
/**
 * Test fixtures shared by the CLI, the benchmarks and the tests; nothing in the read path depends on
 * this package.
 *
 * <h2>ERA5-like data</h2>
 * {@link dev.zarrdirect.testkit.SyntheticEra5} generates float32 {@code [time, channel, lat, lon]}
 * fields that compress like ERA5 reanalysis (smooth large-scale patterns plus seeded noise, rounded
 * as 16-bit GRIB packing leaves them), deterministically from a seed. It is the only such generator
 * in the project, so that the figures of {@code zarr-direct demo}, {@code zarr-direct bench
 * --generate} and the benchmarks stay comparable over time: a test pins the SHA-256 of its output.
 *
 * <h2>Layouts</h2>
 * {@link dev.zarrdirect.testkit.Era5Layout} names the two store layouts the benchmarks measure (one
 * time step per chunk, or one shard per time step with one inner chunk per channel) and builds their
 * metadata; {@link dev.zarrdirect.testkit.SyntheticEra5#writeAll} fills an array of either.
 */
package dev.zarrdirect.testkit;
