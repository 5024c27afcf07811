// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/**
 * The kinds of device a buffer can live on. The numeric codes are DLPack's {@code DLDeviceType}
 * values, so a tensor handed to a native consumer needs no translation table.
 */
public enum DeviceType {
    /** The host CPU and its ordinary memory ({@code kDLCPU}, 1). */
    CPU(1),
    /** An NVIDIA GPU's device memory ({@code kDLCUDA}, 2). */
    CUDA(2),
    /** Host memory pinned by the CUDA driver, readable by the JVM and by CUDA devices ({@code kDLCUDAHost}, 3). */
    CUDA_HOST(3),
    /** An OpenCL device's memory ({@code kDLOpenCL}, 4). */
    OPENCL(4),
    /** An Apple Metal device's memory ({@code kDLMetal}, 8). */
    METAL(8),
    /** CUDA unified (managed) memory that migrates between host and GPU ({@code kDLCUDAManaged}, 13). */
    CUDA_MANAGED(13);

    private final int dlpackCode;

    DeviceType(int dlpackCode) {
        this.dlpackCode = dlpackCode;
    }

    /**
     * The DLPack {@code DLDeviceType} code, as written into {@code DLDevice.device_type}.
     *
     * @return the code: 1, 2, 3, 4, 8 or 13
     */
    public int dlpackCode() {
        return dlpackCode;
    }

    /**
     * The device type with this DLPack code; the inverse of {@link #dlpackCode()}.
     *
     * @param code a DLPack {@code DLDeviceType} value
     * @return the device type
     * @throws IllegalArgumentException for a code none of these types has (ROCm, Vulkan, …); the
     *                                  message lists the known codes
     */
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
