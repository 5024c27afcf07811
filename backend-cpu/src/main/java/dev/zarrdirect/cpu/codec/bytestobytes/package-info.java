// SPDX-License-Identifier: Apache-2.0
/**
 * Bytes-to-bytes codecs on the CPU: {@code crc32c}, {@code gzip} (JDK zlib over native memory),
 * {@code zstd} (zstd-jni on raw addresses and direct buffers), {@code blosc} (the Blosc1 container,
 * its parts in the {@code blosc} subpackage) and numcodecs' {@code numcodecs.zlib} and
 * {@code numcodecs.shuffle}.
 *
 * <h2>Corrupt input</h2>
 * Every decoder checks sizes, checksums and trailers and fails the item with a
 * {@link dev.zarrdirect.api.CorruptChunkException} naming the chunk's label and the values seen.
 */
package dev.zarrdirect.cpu.codec.bytestobytes;
