// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/**
 * A setting was given a value it cannot take, or a name no setting has:
 * {@code InvalidSettingException: zarrdirect.decodeDepth = "banana": expected an integer 1..64}.
 * Thrown when a context or backend starts, never later at the point of use.
 */
public class InvalidSettingException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;

    private final String name;
    private final String value;

    /**
     * @param name    the setting's full name ({@code zarrdirect.decodeDepth})
     * @param value   the text that was given (may be null for an unknown name)
     * @param message the whole message
     */
    public InvalidSettingException(String name, String value, String message) {
        super(message);
        this.name = name;
        this.value = value;
    }

    /** The setting's full name. */
    public String name() {
        return name;
    }

    /** The text that was rejected. */
    public String value() {
        return value;
    }
}
