// SPDX-License-Identifier: Apache-2.0
/**
 * The slots a loader writes batches into and its consumer reads: device memory exported with CUDA
 * IPC ({@link dev.zarrdirect.loader.slots.IpcSlots}), files in {@code /dev/shm}
 * ({@link dev.zarrdirect.loader.slots.ShmSlots}), or plain host memory in this process
 * ({@link dev.zarrdirect.loader.slots.HostSlots}).
 *
 * <h2>Ordering</h2>
 * A slot is written only after the consumer released it, and on CUDA after the consumer's stream
 * passed the point where it released it (an interprocess event).
 */
package dev.zarrdirect.loader.slots;
