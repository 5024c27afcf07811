// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/**
 * The root of every exception zarr-direct throws on purpose. Unchecked: storage failures,
 * corrupt data and missing plugins are reported with messages that name the store, key, codec and
 * chunk involved, so a caller can log them as they are.
 */
public class ZarrDirectException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the whole message, naming what failed, where, the values seen and what to do
     */
    public ZarrDirectException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message the whole message, naming what failed, where, the values seen and what to do
     * @param cause   the underlying failure, or null
     */
    public ZarrDirectException(String message, Throwable cause) {
        super(message, cause);
    }
}
