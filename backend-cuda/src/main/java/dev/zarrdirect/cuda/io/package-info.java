// SPDX-License-Identifier: Apache-2.0
/**
 * Direct readers from local files into device memory.
 *
 * <h2>Readers</h2>
 * {@link dev.zarrdirect.cuda.io.CuFileReader} (GPUDirect Storage through {@code libcufile.so.0}, with
 * aligned bounce reads for unaligned ranges, {@link dev.zarrdirect.cuda.io.AlignedReads}) and
 * {@link dev.zarrdirect.cuda.io.ThreadedReader} (positional reads into pinned buffers, then asynchronous
 * copies); {@link dev.zarrdirect.cuda.io.DirectReaders} chooses between them. The cuFile reader hands
 * files that cuFile cannot register (tmpfs, overlayfs …) to a threaded reader of its own unless
 * strict.
 *
 * <h2>Diagnostics</h2>
 * {@link dev.zarrdirect.cuda.io.CuFileErrors} names every {@code CUfileOpError};
 * {@link dev.zarrdirect.cuda.io.Mounts} names the file system of a file;
 * {@link dev.zarrdirect.cuda.io.CuFileProbe} (a main) tries cuFile on a file in each of a few
 * directories and prints where registration and reads work, and how fast.
 */
package dev.zarrdirect.cuda.io;
