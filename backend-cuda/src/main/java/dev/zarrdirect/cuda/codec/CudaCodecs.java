// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.spec.GzipSpec;
import dev.zarrdirect.api.codec.spec.ZlibSpec;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The factory behind {@link dev.zarrdirect.cuda.CudaCodecProvider}: codec name to device implementation. */
public final class CudaCodecs {

    /** The codecs with a CUDA implementation. */
    public static final Set<String> NAMES = Set.of(CudaZstdCodec.NAME, CudaCrc32cCodec.NAME, CudaBytesCodec.NAME,
            CudaTransposeCodec.NAME, CudaBloscCodec.NAME, GzipSpec.NAME, ZlibSpec.NAME, ZlibSpec.V2_ID, CudaShuffleCodec.NAME,
            CudaDeltaCodec.NAME);

    private CudaCodecs() {
    }

    /**
     * The implementation of {@code name} on {@code device}, or empty where this configuration is one
     * the kernels do not decode (blosc with zlib or snappy inside): the CPU codec then runs.
     *
     * @throws IllegalArgumentException for an unknown name or an invalid configuration
     */
    public static Optional<Codec> create(CudaBackend backend, CudaDevice device, String name,
                                         Map<String, Object> configuration) {
        return switch (name) {
            case CudaZstdCodec.NAME -> Optional.of(CudaZstdCodec.create(backend, device, configuration));
            case CudaCrc32cCodec.NAME -> Optional.of(CudaCrc32cCodec.create(backend, device, configuration));
            case CudaBytesCodec.NAME -> Optional.of(CudaBytesCodec.create(backend, device, configuration));
            case CudaTransposeCodec.NAME -> Optional.of(CudaTransposeCodec.create(backend, device, configuration));
            case CudaBloscCodec.NAME -> CudaBloscCodec.create(backend, device, configuration).map(c -> c);
            case GzipSpec.NAME -> Optional.of(CudaInflateCodec.gzip(backend, device, configuration));
            case ZlibSpec.NAME, ZlibSpec.V2_ID -> Optional.of(CudaInflateCodec.zlib(backend, device, name, configuration));
            case CudaShuffleCodec.NAME -> Optional.of(CudaShuffleCodec.create(backend, device, configuration));
            case CudaDeltaCodec.NAME -> Optional.of(CudaDeltaCodec.create(backend, device, configuration));
            default -> throw new IllegalArgumentException("no cuda codec \"" + name + "\"; there are " + NAMES);
        };
    }
}
