// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A backend was asked for by name and is absent or unusable; the message carries its probe's reason. */
public class MissingBackendException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the whole message: the backend asked for and why it cannot be used (its
     *                {@link dev.zarrdirect.api.backend.ProbeResult#reason() probe reason}), or which
     *                backends exist when none has that name
     */
    public MissingBackendException(String message) {
        super(message);
    }
}
