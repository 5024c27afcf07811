// SPDX-License-Identifier: Apache-2.0
/**
 * The loader server the Python package starts: one JSON message a line over a Unix-domain socket,
 * batch data only in shared slots. The protocol is in {@code docs/loader-protocol.md}.
 *
 * <h2>Lifetime</h2>
 * The server ends when the socket closes, on {@code close}, or when its parent process is gone.
 */
package dev.zarrdirect.loader.server;
