// SPDX-License-Identifier: Apache-2.0
/**
 * Benchmarks of the OpenCL kernels, run as programs (never as timed assertions in tests).
 *
 * <h2>ZstdKernelBench</h2>
 * {@link dev.zarrdirect.opencl.bench.ZstdKernelBench}: decoded GB/s of the zstd decode kernel on
 * uploaded frames, from the wall clock of a whole batch call.
 */
package dev.zarrdirect.opencl.bench;
