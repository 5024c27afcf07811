// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.json;

import dev.zarrdirect.api.InvalidMetadataException;

/**
 * A metadata document that is not well-formed JSON (syntax error, duplicate key, trailing
 * content). The message names the document and the line and column of the first problem.
 */
public class JsonException extends InvalidMetadataException {
    private static final long serialVersionUID = 1L;

    private final int line;
    private final int column;

    public JsonException(String message, int line, int column, Throwable cause) {
        super(message, cause);
        this.line = line;
        this.column = column;
    }

    /** The 1-based line of the problem, or -1 when unknown. */
    public int line() {
        return line;
    }

    /** The 1-based column of the problem, or -1 when unknown. */
    public int column() {
        return column;
    }
}
