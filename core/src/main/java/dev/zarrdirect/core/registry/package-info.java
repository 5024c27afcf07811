// SPDX-License-Identifier: Apache-2.0
/**
 * Discovery of backends and codec implementations with {@link java.util.ServiceLoader}, and the
 * rules that choose among them.
 *
 * <h2>Backends</h2>
 * {@link dev.zarrdirect.core.registry.BackendRegistry} probes every provider without throwing and
 * picks the one named by {@code zarrdirect.backend} / {@code ZARRDIRECT_BACKEND}, else the
 * available one of highest priority. A provider that cannot be loaded, created or probed is listed
 * as unavailable with the reason; asking for it throws
 * {@link dev.zarrdirect.api.MissingBackendException} with every backend found and why.
 *
 * <h2>Codecs</h2>
 * {@link dev.zarrdirect.core.registry.CodecRegistry}: per-read or per-array choice, then the global
 * setting {@code zarrdirect.codec.NAME}, then the implementation native to the device, then the CPU.
 * A codec no provider offers throws {@link dev.zarrdirect.api.MissingCodecException}, listing what
 * each device has and how to add the codec.
 *
 * <h2>Listing what is installed</h2>
 * {@snippet :
 * for (BackendRegistry.Entry e : BackendRegistry.discover().entries()) {
 *     System.out.println(e.name() + ": " + (e.probe().available() ? "available" : e.probe().reason()));
 * }
 * }
 *
 * <h2>Lifetime and threads</h2>
 * Both registries are immutable snapshots, safe for use by many threads. Discovery loads and probes
 * providers but starts no backend; {@link dev.zarrdirect.core.registry.BackendRegistry#open} starts
 * a new backend each time, which its caller closes. Most programs use neither registry directly: a
 * {@link dev.zarrdirect.core.ZarrContext} makes both when it starts.
 */
package dev.zarrdirect.core.registry;
