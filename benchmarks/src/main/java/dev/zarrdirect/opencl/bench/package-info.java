// SPDX-License-Identifier: Apache-2.0
/**
 * Benchmarks of the OpenCL kernels, run as programs (never as timed assertions in tests).
 *
 * <h2>ZstdKernelBench</h2>
 * {@link dev.zarrdirect.opencl.bench.ZstdKernelBench}: decoded GB/s of the zstd decode kernel on
 * uploaded frames, from the wall clock of a whole batch call.
 *
 * <h2>BloscKernelBench</h2>
 * {@link dev.zarrdirect.opencl.bench.BloscKernelBench}: decoded GB/s of the blosc decode kernels on
 * uploaded lz4 + shuffle chunks, in variants (kernel, group size, group count, build options), with
 * each program's barrier and fence count where the driver gives PTX.
 *
 * <h2>OpenClReadCost</h2>
 * {@link dev.zarrdirect.opencl.bench.OpenClReadCost}: a whole-array read of a store into OpenCL
 * memory, with what it asked of the driver per call and per chunk (buffers created, launches, waits,
 * blocking transfers, pinned maps: {@link dev.zarrdirect.opencl.ClCounters}).
 */
package dev.zarrdirect.opencl.bench;
