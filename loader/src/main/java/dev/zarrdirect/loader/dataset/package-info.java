// SPDX-License-Identifier: Apache-2.0
/**
 * What a loader's samples are, before anything is read: the variables of a group, their time and
 * channel axes, the selected channels stacked into output channels, and the time windows.
 *
 * <h2>Datasets</h2>
 * {@link dev.zarrdirect.loader.dataset.WindowDataset} opens the group a
 * {@link dev.zarrdirect.loader.LoaderSpec} names and checks that its variables line up (same time
 * length, same latitude × longitude plane, float32 or float64, rank 3 or 4); each error names the
 * variables, arrays and shapes involved. {@link dev.zarrdirect.loader.dataset.Variable} records
 * where one variable's channels come from and go to.
 *
 * <h2>Axes</h2>
 * The last two axes are latitude and longitude. Time is the dimension named by the spec's
 * {@code time_dim} (v3 {@code dimension_names}, or the v2 {@code _ARRAY_DIMENSIONS} attribute that
 * xarray writes), the axis it gives as a number, or by default the dimension named {@code time},
 * else axis 0. The remaining axis of a 4-dimensional array holds channels or levels.
 *
 * <h2>Samples</h2>
 * Sample {@code i} starts at time index {@code timeStart + i}; its input and target steps follow at
 * {@code stride} apart, and every sample lies wholly inside the time range.
 */
package dev.zarrdirect.loader.dataset;
