// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/**
 * A setting was given a value it cannot take, or a name no setting has:
 * {@code InvalidSettingException: zarrdirect.decodeDepth = "banana": expected an integer 1..64}.
 * Thrown when a context or backend starts, never later at the point of use.
 */
public class InvalidSettingException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;

    /** The setting's full name. */
    private final String name;
    /** The rejected text, or null. */
    private final String value;

    /**
     * Creates the exception.
     *
     * @param name    the setting's full name ({@code zarrdirect.decodeDepth})
     * @param value   the text that was given (may be null for an unknown name)
     * @param message the whole message
     */
    public InvalidSettingException(String name, String value, String message) {
        super(message);
        this.name = name;
        this.value = value;
    }

    /**
     * The setting's full name, with the {@code zarrdirect.} prefix.
     *
     * @return the name, as given to the constructor
     */
    public String name() {
        return name;
    }

    /**
     * The text that was rejected, as given (not trimmed).
     *
     * @return the text, or null when the name itself was the problem and no value was given
     */
    public String value() {
        return value;
    }
}
