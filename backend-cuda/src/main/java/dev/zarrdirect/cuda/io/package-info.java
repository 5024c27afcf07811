/**
 * Direct readers from local files into device memory.
 *
 * <h2>Readers</h2>
 * {@link dev.zarrdirect.cuda.io.CuFileReader} (GPUDirect Storage through {@code libcufile.so.0}, with
 * aligned bounce reads for unaligned ranges, {@link dev.zarrdirect.cuda.io.AlignedReads}) and
 * {@link dev.zarrdirect.cuda.io.ThreadedReader} (positional reads into pinned buffers, then asynchronous
 * copies); {@link dev.zarrdirect.cuda.io.DirectReaders} chooses between them.
 */
package dev.zarrdirect.cuda.io;
