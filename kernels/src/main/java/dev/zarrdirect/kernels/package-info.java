// SPDX-License-Identifier: Apache-2.0
/**
 * The Java side of the device kernels: the status codes they write ({@code zd_status.h}), mirrored,
 * and the flags and table of the plane gather ({@link dev.zarrdirect.kernels.GatherTable},
 * {@code gather/zd_gather.h}) that the CUDA and OpenCL backends launch; and the free lists of both
 * backends' memory pools ({@link dev.zarrdirect.kernels.FreeBlocks}).
 *
 * <h2>Sources</h2>
 * The kernels themselves are portable C under {@code src/main/c}, shipped as resources under
 * {@code dev/zarrdirect/kernels/} with the CUDA fatbin built by nvcc.
 */
package dev.zarrdirect.kernels;
