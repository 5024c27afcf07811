// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import dev.zarrdirect.api.ZarrDirectException;

/**
 * A conversion that cannot go on: the source is not there or holds no Zarr node, the destination
 * holds something a conversion must not touch, its journal cannot be read, or {@code verify} found
 * different elements. The message names the store or path and says what to do.
 */
public class ConvertException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;

    /**
     * A conversion failure.
     *
     * @param message what failed, naming the store or path, and what to do
     */
    public ConvertException(String message) {
        super(message);
    }

    /**
     * A conversion failure caused by another.
     *
     * @param message what failed, naming the store or path, and what to do
     * @param cause   the failure underneath
     */
    public ConvertException(String message, Throwable cause) {
        super(message, cause);
    }
}
