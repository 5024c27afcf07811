// SPDX-License-Identifier: Apache-2.0
/**
 * The CUDA backend: the driver API through {@code java.lang.foreign}, GPUDirect Storage through
 * cuFile, device memory, IPC handles and the GPU codecs. It exports nothing;
 * {@code dev.zarrdirect.core} finds it through the services it provides.
 */
module dev.zarrdirect.cuda {
    requires dev.zarrdirect.api;
    requires dev.zarrdirect.kernels;

    provides dev.zarrdirect.api.backend.BackendProvider with dev.zarrdirect.cuda.CudaBackendProvider;
    provides dev.zarrdirect.api.codec.CodecProvider with dev.zarrdirect.cuda.CudaCodecProvider;
}
