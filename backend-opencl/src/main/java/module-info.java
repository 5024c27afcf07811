// SPDX-License-Identifier: Apache-2.0
/**
 * The OpenCL backend (LWJGL): any OpenCL 1.2+ device, its memory and the device codecs. It exports
 * nothing; {@code dev.zarrdirect.core} finds it through the services it provides.
 */
module dev.zarrdirect.opencl {
    requires dev.zarrdirect.api;
    requires dev.zarrdirect.kernels;
    requires org.lwjgl;
    requires org.lwjgl.opencl;

    provides dev.zarrdirect.api.backend.BackendProvider with dev.zarrdirect.opencl.OpenClBackendProvider;
    provides dev.zarrdirect.api.codec.CodecProvider with dev.zarrdirect.opencl.OpenClCodecProvider;
}
