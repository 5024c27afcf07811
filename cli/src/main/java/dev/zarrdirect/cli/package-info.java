// SPDX-License-Identifier: Apache-2.0
/**
 * The {@code zarr-direct} command (picocli): info, checksum, cat, demo, bench, convert, stats, doctor,
 * and loader-serve (the server the Python loader starts).
 *
 * <h2>Conventions</h2>
 * Exit code 0 on success, 1 on failure (the message names store, key, codec and chunk), 2 on bad
 * usage (message, synopsis, then a pointer to {@code --help}); progress on stderr. Backends are
 * reached only through the core's registries.
 */
package dev.zarrdirect.cli;
