// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.driver;

import dev.zarrdirect.api.ZarrDirectException;

/**
 * A CUDA driver call returned an error. The message names the call, its arguments that matter, the
 * device and the driver's own name and text for the code ({@code CUDA_ERROR_OUT_OF_MEMORY: out of memory}).
 */
public class CudaException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;
    private final int code;

    public CudaException(int code, String message) {
        super(message);
        this.code = code;
    }

    /** The {@code CUresult} value. */
    public int code() {
        return code;
    }
}
