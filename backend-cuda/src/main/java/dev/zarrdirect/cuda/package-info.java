// SPDX-License-Identifier: Apache-2.0
/**
 * The {@code cuda} backend: CUDA devices through the driver API, called with {@code java.lang.foreign}.
 *
 * <h2>Pieces</h2>
 * {@link dev.zarrdirect.cuda.CudaBackendProvider} probes (never throwing) and opens
 * {@link dev.zarrdirect.cuda.CudaBackend}, which owns device memory ({@link dev.zarrdirect.cuda.CudaBuffer}),
 * pinned host memory, copies, batched region copies and fills (one scatter launch), the codecs of
 * {@link dev.zarrdirect.cuda.CudaCodecProvider} and a direct file reader.
 *
 * <h2>Kernels</h2>
 * Device code comes from the kernels module's fatbin ({@code dev/zarrdirect/kernels/zd_kernels.fatbin}),
 * built ahead of time with nvcc and loaded with {@code cuModuleLoadData}; no NVRTC at run time.
 * For kernel work, {@code -Dzarrdirect.cuda.kernelImage=FILE} loads another fatbin instead (a variant
 * built with {@code nvcc -fatbin -D...}; {@code tools/gpu/kernel-variants.sh} times several in one call).
 *
 * <h2>Settings</h2>
 * {@link dev.zarrdirect.cuda.CudaSettings}, parsed once when the backend starts (explicit values of
 * {@code BackendProvider.open(SettingValues)}, else system properties, else {@code ZARRDIRECT_CUDA_*}
 * environment variables, else the defaults measured on the H200): pools, batches, readers,
 * {@code zarrdirect.cuda.schedule}, {@code zarrdirect.cuda.kernelImage}, {@code zarrdirect.trackBuffers}.
 * The zstd kernel knobs ({@code zarrdirect.cuda.zstd*}) make one
 * {@link dev.zarrdirect.cuda.codec.ZstdKernelPolicy} per device, chosen from its properties when the
 * backend starts and handed to the codec. {@code docs/settings.md} lists every setting with its range
 * and default.
 */
package dev.zarrdirect.cuda;
