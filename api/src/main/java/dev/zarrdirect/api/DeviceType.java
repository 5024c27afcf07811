// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/**
 * The kinds of device a buffer can live on. The numeric codes are DLPack's {@code DLDeviceType}
 * values, so a tensor handed to a native consumer needs no translation table.
 */
public enum DeviceType {
    CPU(1),
    CUDA(2),
    CUDA_HOST(3),
    OPENCL(4),
    METAL(8),
    CUDA_MANAGED(13);

    private final int dlpackCode;

    DeviceType(int dlpackCode) {
        this.dlpackCode = dlpackCode;
    }

    /** The DLPack {@code DLDeviceType} code. */
    public int dlpackCode() {
        return dlpackCode;
    }

    /** The device type with this DLPack code. */
    public static DeviceType fromDlpackCode(int code) {
        for (DeviceType t : values()) {
            if (t.dlpackCode == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown DLPack device type code " + code
                + "; known codes are CPU 1, CUDA 2, CUDA_HOST 3, OPENCL 4, METAL 8, CUDA_MANAGED 13");
    }
}
