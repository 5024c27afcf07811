// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A backend was asked for by name and is absent or unusable; the message carries its probe's reason. */
public class MissingBackendException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;

    public MissingBackendException(String message) {
        super(message);
    }
}
