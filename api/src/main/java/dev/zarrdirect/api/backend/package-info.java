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
 */
package dev.zarrdirect.api.backend;
