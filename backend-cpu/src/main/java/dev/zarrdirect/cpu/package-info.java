// SPDX-License-Identifier: Apache-2.0
/**
 * The CPU backend: host memory and the CPU implementations of the Zarr v3 codecs.
 *
 * <h2>Entry points</h2>
 * {@link dev.zarrdirect.cpu.CpuBackendProvider} (ServiceLoader name {@code cpu}, priority 0) opens a
 * {@link dev.zarrdirect.cpu.CpuBackend}; {@link dev.zarrdirect.cpu.CpuCodecProvider} offers
 * {@code bytes}, {@code transpose}, {@code crc32c}, {@code gzip} and {@code zstd} for {@code cpu:0}.
 *
 * <h2>Memory</h2>
 * Buffers come from a {@link dev.zarrdirect.cpu.HostBufferPool}; {@code HOST_PINNED} is plain host
 * memory on this backend. Tests turn on allocation tracking and end with
 * {@link dev.zarrdirect.cpu.CpuBackend#assertNoLiveBuffers()}.
 */
package dev.zarrdirect.cpu;
