// SPDX-License-Identifier: Apache-2.0
/**
 * Device families: discovery, memory, copies, batched placement, and direct file reads.
 *
 * <h2>Discovery</h2>
 * A {@link dev.zarrdirect.api.backend.BackendProvider} (ServiceLoader) probes without throwing and
 * explains in one sentence why it is unavailable ({@link dev.zarrdirect.api.backend.ProbeResult}).
 * Asking for an unavailable backend by name is a {@link dev.zarrdirect.api.MissingBackendException}
 * carrying that sentence.
 *
 * <h2>Work</h2>
 * A {@link dev.zarrdirect.api.backend.Backend} allocates, copies, places chunks with batched region
 * copies and fills, assembles training batches ({@link dev.zarrdirect.api.backend.PlaneGather}), and
 * offers its native codecs; a {@link dev.zarrdirect.api.backend.DirectReader} reads files straight
 * into its memory where it can, and {@link dev.zarrdirect.api.backend.InterprocessMemory} shares
 * device memory with another process. Every data-moving call returns when the data is in place.
 *
 * <h2>Ownership</h2>
 * Whoever opens a backend closes it, after closing every buffer it allocated. Buffers passed to a
 * backend stay the caller's; the direct reader and the native codec provider belong to the backend.
 *
 * <h2>Settings</h2>
 * A provider lists the settings its backend reads ({@link dev.zarrdirect.api.backend.BackendProvider#settings()})
 * and parses them once in {@link dev.zarrdirect.api.backend.BackendProvider#open(dev.zarrdirect.api.settings.SettingValues)},
 * explicit values first; the started backend reports them with their sources
 * ({@link dev.zarrdirect.api.backend.Backend#settings()}) for {@code doctor}. Settings that several
 * backends share are in {@link dev.zarrdirect.api.backend.CommonBackendSettings}.
 */
package dev.zarrdirect.api.backend;
