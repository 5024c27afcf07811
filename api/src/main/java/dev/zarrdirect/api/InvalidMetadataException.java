// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A {@code zarr.json} (or v2 metadata document) that cannot be understood; names key and field. */
public class InvalidMetadataException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;

    public InvalidMetadataException(String message) {
        super(message);
    }

    public InvalidMetadataException(String message, Throwable cause) {
        super(message, cause);
    }
}
