// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/**
 * The root of every exception zarr-direct throws on purpose. Unchecked: storage failures,
 * corrupt data and missing plugins are reported with messages that name the store, key, codec and
 * chunk involved, so a caller can log them as they are.
 */
public class ZarrDirectException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ZarrDirectException(String message) {
        super(message);
    }

    public ZarrDirectException(String message, Throwable cause) {
        super(message, cause);
    }
}
