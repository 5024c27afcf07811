// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.cuda.codec.CudaCodecs;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The CUDA implementations of {@code zstd} (decode only), {@code crc32c}, {@code bytes} and
 * {@code transpose}, running on {@code cuda:N} devices with one kernel launch per batch.
 *
 * <h2>Two ways to get one</h2>
 * A {@link CudaBackend}'s {@link CudaBackend#codecs()} is bound to that backend: its codecs use the
 * backend's contexts, streams and memory pool. The public no-argument constructor is for
 * {@link java.util.ServiceLoader}: such a provider opens one process-wide backend the first time it
 * creates a codec for a CUDA device, and offers no codecs at all when the CUDA probe says the
 * backend is unavailable. The shared backend lives as long as the process (its memory is the
 * driver's, released at exit).
 *
 * <p>{@code zstd} encoding does not run on the device: its {@code encode} throws
 * {@link UnsupportedOperationException}, and writes must resolve {@code zstd} to the CPU provider.
 */
public final class CudaCodecProvider implements CodecProvider {

    private static volatile CudaBackend shared;
    private final CudaBackend backend; // null: the shared one, opened on demand

    /** For {@link java.util.ServiceLoader}. */
    public CudaCodecProvider() {
        this.backend = null;
    }

    CudaCodecProvider(CudaBackend backend) {
        this.backend = backend;
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public Set<DeviceType> deviceTypes() {
        return Set.of(DeviceType.CUDA);
    }

    @Override
    public Set<String> codecNames() {
        if (backend == null && !new CudaBackendProvider().probe().available()) {
            return Set.of();
        }
        return CudaCodecs.NAMES;
    }

    @Override
    public Optional<Codec> create(String codecName, Map<String, Object> configuration, Device device) {
        if (device.type() != DeviceType.CUDA || !CudaCodecs.NAMES.contains(codecName)) {
            return Optional.empty();
        }
        CudaBackend b = backend != null ? backend : sharedBackend();
        if (b == null || device.index() >= b.cudaDevices().size()) {
            return Optional.empty();
        }
        return CudaCodecs.create(b, b.cudaDevice(device), codecName, configuration);
    }

    private static CudaBackend sharedBackend() {
        CudaBackend b = shared;
        if (b == null) {
            synchronized (CudaCodecProvider.class) {
                if (shared == null) {
                    CudaBackendProvider p = new CudaBackendProvider();
                    if (!p.probe().available()) {
                        return null;
                    }
                    shared = p.open();
                }
                b = shared;
            }
        }
        return b;
    }

    @Override
    public String toString() {
        return "CudaCodecProvider" + CudaCodecs.NAMES;
    }
}
