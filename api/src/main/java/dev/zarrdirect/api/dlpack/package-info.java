// SPDX-License-Identifier: Apache-2.0
/**
 * The DLPack bridge: tensors handed to and taken from native code without a copy.
 *
 * <h2>What DLPack is</h2>
 * DLPack is the C ABI that array libraries (PyTorch, JAX, CuPy, NumPy, TVM) use to share tensors
 * in place. A producer fills a {@code DLManagedTensorVersioned}: a version, a data pointer on a
 * device, a data type, shape and strides in elements, a byte offset, flags (read-only, copied) and
 * a deleter. {@link dev.zarrdirect.api.dlpack.DLPack} describes those structs with
 * {@link java.lang.foreign.StructLayout}s, writes them for our {@link dev.zarrdirect.api.Tensor}s
 * ({@code export}, version 1.1) and reads the ones native producers make ({@code importTensor},
 * any 1.x). Device codes are {@link dev.zarrdirect.api.DeviceType#dlpackCode()}, data type codes
 * {@link dev.zarrdirect.api.DataType.Kind#dlpackCode()}; vector types ({@code lanes != 1}) are
 * refused.
 *
 * <h2>Ownership</h2>
 * <ul>
 *   <li>{@code export(tensor)} lends: the consumer must call the struct's deleter exactly once, as
 *       DLPack requires, and the tensor's buffer must stay open until it has. The deleter frees the
 *       struct; the pointer dangles afterwards.</li>
 *   <li>{@code exportOwned(tensor)} gives: the deleter also closes the tensor, and the caller must
 *       not touch the tensor again.</li>
 *   <li>{@code importTensor(ptr)} takes: the returned tensor owns the producer's memory, and closing
 *       it calls the producer's deleter once. If the import throws, nothing was taken and the caller
 *       still owns the struct.</li>
 * </ul>
 * {@code DLPack.liveExports()} counts exports whose deleter has not run, so tests can prove that
 * consumers released everything. A deleter called twice on the same pointer is a consumer bug; it
 * is logged and ignored rather than crashing the process, unless the memory has meanwhile been
 * reused for another export, which the deleter then cannot tell apart.
 *
 * <h2>Threads</h2>
 * Exported deleters are upcall stubs and may be called from any thread, including native threads
 * the JVM has never seen. They never throw into native code: failures are logged. Imported tensors
 * call the producer's deleter on the thread that closes them. Every call here needs native access
 * ({@code --enable-native-access} for the module or class path that holds this library).
 *
 * <h2>Example</h2>
 * A tensor lent to a native consumer (the same code runs in {@code DLPackTest}):
 * {@snippet :
 * try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, 3, 4)) {
 *     MemorySegment managed = DLPack.export(t);
 *     // hand the pointer to C, which reads it and calls managed->deleter(managed)
 *     long status = (long) consume.invokeExact(managed, sumOut);
 *     assert DLPack.liveExports() == 0;
 * }
 * }
 */
package dev.zarrdirect.api.dlpack;
