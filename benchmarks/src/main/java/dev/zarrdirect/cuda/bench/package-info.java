// SPDX-License-Identifier: Apache-2.0
/**
 * Bench mains for the GPU machine ({@code bash .device/run main CLASS args}).
 *
 * <h2>Mains</h2>
 * {@link dev.zarrdirect.cuda.bench.ZstdKernelBench} times the zstd decode kernel alone;
 * {@link dev.zarrdirect.cuda.bench.ReaderBench} compares the cuFile and threaded readers and the raw
 * pinned host-to-device copy rate.
 *
 * <h2>Where they live</h2>
 * In the benchmarks module, not in backend-cuda's jar, under the package name they always had, so
 * that {@code tools/gpu/*.sh} name them as before; the device packer puts every module's classes on
 * the class path.
 */
package dev.zarrdirect.cuda.bench;
