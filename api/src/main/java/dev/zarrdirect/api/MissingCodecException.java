// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** No provider offers a codec named in the metadata; the message lists what exists and how to fix it. */
public class MissingCodecException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the whole message: the codec and device asked for, the codecs that exist for that
     *                device and elsewhere, and how to add or select one
     */
    public MissingCodecException(String message) {
        super(message);
    }
}
