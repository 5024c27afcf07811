// SPDX-License-Identifier: Apache-2.0
/**
 * CUDA IPC: device memory and events exported to another process of the same machine, so that a
 * training loader hands its batches to a PyTorch process without a copy.
 *
 * <h2>Pieces</h2>
 * {@link dev.zarrdirect.cuda.ipc.CudaIpcMemory} ({@code CudaBackend.interprocess()}) allocates slabs:
 * plain {@code cuMemAlloc} memory (IPC cannot export the stream-ordered pool's), its
 * {@code cuIpcGetMemHandle}, and two events created with {@code CU_EVENT_INTERPROCESS} whose
 * {@code cuIpcGetEventHandle}s go to the consumer with the memory's: {@code ready} (this process has
 * written a batch) and {@code released} (the consumer is done with it).
 *
 * <h2>Lifetimes</h2>
 * A slab is memory: one owner closes it, closing it twice throws. The consumer must close its
 * mapping ({@code cudaIpcCloseMemHandle}) before the slab is closed: freeing exported memory that
 * another process still maps is undefined behaviour in CUDA.
 */
package dev.zarrdirect.cuda.ipc;
