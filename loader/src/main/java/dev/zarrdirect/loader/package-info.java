// SPDX-License-Identifier: Apache-2.0
/**
 * The training loader: time windows of ERA5-like variables, delivered as batches for PyTorch.
 *
 * <h2>Pieces</h2>
 * <ul>
 *   <li>{@link dev.zarrdirect.loader.LoaderSpec}: what a loader delivers (variables, channels,
 *       windows, order, normalization, output type).</li>
 *   <li>{@code dataset}: the variables of a group checked against each other, and the samples.</li>
 *   <li>{@code sampling}: the order of an epoch, sharded over ranks.</li>
 *   <li>{@code stats}: per-channel mean and standard deviation, and the file the loader reads.</li>
 *   <li>{@code assemble}: a batch read once per distinct chunk into staging memory on the device,
 *       then gathered, normalized and converted into a slot by one
 *       {@link dev.zarrdirect.api.backend.PlaneGather} per variable.</li>
 *   <li>{@code slots}: the ring of batch memory shared with the consumer (CUDA IPC, /dev/shm).</li>
 *   <li>{@code server}: the process the Python package starts (docs/loader-protocol.md).</li>
 * </ul>
 *
 * <h2>Dependencies</h2>
 * The loader uses {@code api} and {@code core} only; the backends come through the context.
 */
package dev.zarrdirect.loader;
