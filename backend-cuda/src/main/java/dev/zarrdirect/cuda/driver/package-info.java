// SPDX-License-Identifier: Apache-2.0
/**
 * The CUDA driver API as the backend uses it.
 *
 * <h2>Contents</h2>
 * {@link dev.zarrdirect.cuda.driver.CudaDriver} binds {@code libcuda.so.1} with {@code java.lang.foreign};
 * {@link dev.zarrdirect.cuda.driver.CudaDevice} holds a device's primary context, kernels module and
 * streams; {@link dev.zarrdirect.cuda.driver.KernelArgs} packs launch arguments.
 */
package dev.zarrdirect.cuda.driver;
