// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** No provider offers a codec named in the metadata; the message lists what exists and how to fix it. */
public class MissingCodecException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;

    public MissingCodecException(String message) {
        super(message);
    }
}
