// SPDX-License-Identifier: Apache-2.0
/**
 * The CPU backend: host memory and the CPU implementations of every built-in codec. It exports
 * nothing; {@code dev.zarrdirect.core} finds it through the services it provides.
 */
module dev.zarrdirect.cpu {
    requires dev.zarrdirect.api;
    requires com.github.luben.zstd_jni;
    requires org.lz4.java;

    provides dev.zarrdirect.api.backend.BackendProvider with dev.zarrdirect.cpu.CpuBackendProvider;
    provides dev.zarrdirect.api.codec.CodecProvider with dev.zarrdirect.cpu.CpuCodecProvider;
}
