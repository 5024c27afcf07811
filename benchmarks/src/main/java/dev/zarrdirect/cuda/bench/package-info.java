/**
 * Bench mains for the GPU machine ({@code bash .device/run main CLASS args}).
 *
 * <h2>Mains</h2>
 * {@link dev.zarrdirect.cuda.bench.ZstdKernelBench} times the zstd decode kernel alone;
 * {@link dev.zarrdirect.cuda.bench.ReaderBench} compares the cuFile and threaded readers and the raw
 * pinned host-to-device copy rate.
 */
package dev.zarrdirect.cuda.bench;
