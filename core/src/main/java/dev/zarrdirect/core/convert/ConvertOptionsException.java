// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

/**
 * Options that do not fit together or do not fit the source: a shard that is not a multiple of the
 * chunks, a chunk shape of another rank than the array's, a codec nobody provides, a codec chain
 * Zarr v2 cannot express, a destination inside the source. Thrown before anything is written. The
 * message names the option as the CLI spells it ({@code --shard} for
 * {@link ConvertOptions.Builder#shard}) and the values seen.
 */
public class ConvertOptionsException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /**
     * Options that do not fit.
     *
     * @param message which option, as the CLI spells it, the values seen and what fits
     */
    public ConvertOptionsException(String message) {
        super(message);
    }

    /**
     * Options that do not fit, found through another failure (such as a codec configuration a codec
     * refused).
     *
     * @param message which option, as the CLI spells it, the values seen and what fits
     * @param cause   the failure underneath
     */
    public ConvertOptionsException(String message, Throwable cause) {
        super(message, cause);
    }
}
