// SPDX-License-Identifier: Apache-2.0
/**
 * The host side of the kernels module's CUDA code: the fatbin, status words, and the scatter tables.
 *
 * <h2>Contract</h2>
 * Kernel names and argument orders follow {@code kernels/src/main/c/cuda/zd_zstd.cu} and {@code zd_bytes.cu}.
 */
package dev.zarrdirect.cuda.kernels;
