// SPDX-License-Identifier: Apache-2.0
/**
 * Contract tests that third-party implementations extend, and store wrappers for tests.
 *
 * <h2>Contracts</h2>
 * Each contract is an abstract JUnit Jupiter class: a subclass supplies the implementation under
 * test through one or two factory methods, and inherits every test. zarr-direct runs the same
 * classes on its own implementations (conformance-tests), so a third-party store, backend or codec
 * that passes them behaves as the built-in ones do.
 * <ul>
 *   <li>{@link dev.zarrdirect.testing.StoreContract}: a writable {@link dev.zarrdirect.api.store.Store};
 *       {@link dev.zarrdirect.testing.ReadOnlyStoreContract} for stores that only read.</li>
 *   <li>{@link dev.zarrdirect.testing.BackendContract}: a {@link dev.zarrdirect.api.backend.Backend}'s
 *       memory, copies, fills, slices and the lifecycle of its buffers, with a leak check after each
 *       test.</li>
 *   <li>{@link dev.zarrdirect.testing.DeviceCodecContract}: every codec a backend offers decodes what
 *       the CPU codec decodes, byte for byte, rejects what it rejects, and never writes past its
 *       output.</li>
 *   <li>{@link dev.zarrdirect.testing.DirectReaderContract}: a
 *       {@link dev.zarrdirect.api.backend.DirectReader} reads file ranges as {@code FileChannel} does.</li>
 * </ul>
 *
 * <h2>Wrappers</h2>
 * {@link dev.zarrdirect.testing.FaultInjectingStore} damages what reads see (an I/O failure on the
 * n-th read, truncation, a flipped bit); {@link dev.zarrdirect.testing.TrackingStore} records where
 * each read and the store itself started, for leak checks after a test. Wrap the one in the other
 * to do both. {@link dev.zarrdirect.testing.TrackedStores}, a JUnit extension, hands out tracking
 * stores and checks them after each test, as Lucene's {@code newDirectory()} does.
 *
 * <h2>Seeds</h2>
 * Random data comes from a seed printed in every failure message; {@code -Dzd.seed=N} replays it.
 */
package dev.zarrdirect.testing;
