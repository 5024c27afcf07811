// SPDX-License-Identifier: Apache-2.0
/**
 * Device families: discovery, memory, copies, batched placement, and direct file reads.
 *
 * <h2>Discovery</h2>
 * A {@link dev.zarrdirect.api.backend.BackendProvider} (ServiceLoader) probes without throwing and
 * explains in one sentence why it is unavailable.
 *
 * <h2>Work</h2>
 * A {@link dev.zarrdirect.api.backend.Backend} allocates, copies, places chunks with batched region
 * copies and fills, and offers its native codecs; a {@link dev.zarrdirect.api.backend.DirectReader}
 * reads files straight into its memory where it can.
 *
 * <h2>Settings</h2>
 * A provider lists the settings its backend reads ({@link dev.zarrdirect.api.backend.BackendProvider#settings()})
 * and parses them once in {@link dev.zarrdirect.api.backend.BackendProvider#open(dev.zarrdirect.api.settings.SettingValues)},
 * explicit values first; the started backend reports them with their sources
 * ({@link dev.zarrdirect.api.backend.Backend#settings()}) for {@code doctor}.
 */
package dev.zarrdirect.api.backend;
