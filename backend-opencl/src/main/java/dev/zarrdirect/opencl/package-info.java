// SPDX-License-Identifier: Apache-2.0
/**
 * The OpenCL backend: device memory, copies, batched region copies and fills, and batched device
 * codecs on any OpenCL 1.2+ device, through LWJGL and the system's ICD loader ({@code libOpenCL.so.1}).
 *
 * <h2>Entry points</h2>
 * {@link dev.zarrdirect.opencl.OpenClBackendProvider} (ServiceLoader name {@code opencl}; priority 20
 * on a GPU, -10 on a CPU-type device such as PoCL) opens an {@link dev.zarrdirect.opencl.OpenClBackend}
 * on one device, chosen with {@code -Dzarrdirect.opencl.device=<index or name>} or
 * {@code ZARRDIRECT_OPENCL_DEVICE} (or {@code --set opencl.device=...}), else the first GPU, else the
 * first device. Its settings ({@link dev.zarrdirect.opencl.OpenClSettings}: device, the zstd kernel's
 * local size and build options, the kernels directory, buffer tracking) are parsed once when it starts.
 * {@link dev.zarrdirect.opencl.OpenClCodecProvider} offers {@code bytes}, {@code transpose},
 * {@code crc32c} and (decode only) {@code zstd} for {@code opencl:N}.
 *
 * <h2>Parts of a backend</h2>
 * {@link dev.zarrdirect.opencl.OpenClBackend} holds the context, the command queues (each thread
 * keeps to one of them, {@code zarrdirect.opencl.queues}), the programs and the
 * {@code Backend} methods; it hands memory to its {@link dev.zarrdirect.opencl.ClMemory}
 * ({@code cl_mem}s, sub-buffers, reads, writes and copies, pinned memory, tracking of open buffers)
 * and region work to its {@link dev.zarrdirect.opencl.ClRegions} (fills, batched region copies and
 * fills through the kernels, the plane gather). Codecs reach both through
 * {@code backend.memory()} and {@code backend.regions()}.
 *
 * <h2>Memory</h2>
 * {@link dev.zarrdirect.opencl.OpenClBuffer}s are {@code cl_mem} + offset (no address); pinned host
 * memory is a mapped {@code CL_MEM_ALLOC_HOST_PTR} buffer handed out as a
 * {@link dev.zarrdirect.api.buffer.HostBuffer}. Every operation returns when the device is done.
 *
 * <h2>Kernels</h2>
 * Byte-level kernels (region copy and fill, byte swap, CRC32C) live in this module's
 * {@code dev/zarrdirect/opencl/zd_backend.cl}; the zstd decoder and the loader's plane gather
 * ({@link dev.zarrdirect.opencl.ClRegions#gather}) come from the kernels module
 * ({@code dev/zarrdirect/kernels/opencl/zd_zstd.cl}, {@code zd_gather.cl}). Programs are built at run time, once per
 * backend, by the {@link dev.zarrdirect.opencl.ProgramCache}.
 */
package dev.zarrdirect.opencl;
