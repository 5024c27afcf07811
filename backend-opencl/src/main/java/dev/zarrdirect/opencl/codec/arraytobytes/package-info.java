// SPDX-License-Identifier: Apache-2.0
/**
 * Array-to-bytes codecs on OpenCL devices: {@code bytes} ({@link dev.zarrdirect.opencl.codec.arraytobytes.OpenClBytesCodec}).
 *
 * <h2>Kernels</h2>
 * {@code zd_byteswap} for big-endian stored bytes, {@code zd_copy_regions} otherwise.
 */
package dev.zarrdirect.opencl.codec.arraytobytes;
