// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A {@code zarr.json} (or v2 metadata document) that cannot be understood; names key and field. */
public class InvalidMetadataException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the whole message, naming the metadata key, the field and the value found
     */
    public InvalidMetadataException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause (a JSON syntax error, a codec's rejection of its configuration).
     *
     * @param message the whole message, naming the metadata key, the field and the value found
     * @param cause   the underlying failure, or null
     */
    public InvalidMetadataException(String message, Throwable cause) {
        super(message, cause);
    }
}
