// SPDX-License-Identifier: Apache-2.0
/**
 * Array-to-array codecs on OpenCL devices: {@code transpose} ({@link dev.zarrdirect.opencl.codec.arraytoarray.OpenClTransposeCodec}).
 *
 * <h2>Kernels</h2>
 * {@code zd_copy_regions}: one descriptor row per chunk, permuted input strides.
 */
package dev.zarrdirect.opencl.codec.arraytoarray;
