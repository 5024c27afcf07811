// SPDX-License-Identifier: Apache-2.0
/**
 * Discovery of backends and codec implementations with {@link java.util.ServiceLoader}, and the
 * rules that choose among them.
 *
 * <h2>Backends</h2>
 * {@link dev.zarrdirect.core.registry.BackendRegistry} probes every provider without throwing and
 * picks the one named by {@code zarrdirect.backend} / {@code ZARRDIRECT_BACKEND}, else the
 * available one of highest priority.
 *
 * <h2>Codecs</h2>
 * {@link dev.zarrdirect.core.registry.CodecRegistry}: per-read or per-array choice, then the global
 * setting {@code zarrdirect.codec.NAME}, then the implementation native to the device, then the CPU.
 */
package dev.zarrdirect.core.registry;
