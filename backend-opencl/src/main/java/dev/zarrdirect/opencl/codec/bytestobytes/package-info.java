// SPDX-License-Identifier: Apache-2.0
/**
 * Bytes-to-bytes codecs on OpenCL devices: {@code crc32c}
 * ({@link dev.zarrdirect.opencl.codec.bytestobytes.OpenClCrc32cCodec}) and {@code zstd} decoding
 * ({@link dev.zarrdirect.opencl.codec.bytestobytes.OpenClZstdCodec}).
 *
 * <h2>Status words</h2>
 * Each launch writes one result per chunk into a small device buffer that is read back once per
 * batch and turned into per-chunk exceptions.
 */
package dev.zarrdirect.opencl.codec.bytestobytes;
