// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.ZarrDirectException;

/**
 * An OpenCL call failed: the message names the call, what it was for, the error code and its
 * symbolic name ({@code clCreateBuffer of 64 MiB on opencl:0 failed: -61 CL_INVALID_BUFFER_SIZE}).
 */
public class OpenClException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;
    private final int code;

    public OpenClException(String message, int code) {
        super(message);
        this.code = code;
    }

    /** The OpenCL error code ({@code CL_...}, negative), or 0 when the failure was not a call's result. */
    public int code() {
        return code;
    }
}
