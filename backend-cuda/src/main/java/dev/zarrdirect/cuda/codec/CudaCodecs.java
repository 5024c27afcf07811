// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;

import java.util.Map;
import java.util.Set;

/** The factory behind {@link dev.zarrdirect.cuda.CudaCodecProvider}: codec name to device implementation. */
public final class CudaCodecs {

    /** The codecs with a CUDA implementation. */
    public static final Set<String> NAMES = Set.of(CudaZstdCodec.NAME, CudaCrc32cCodec.NAME, CudaBytesCodec.NAME,
            CudaTransposeCodec.NAME);

    private CudaCodecs() {
    }

    /**
     * The implementation of {@code name} on {@code device}.
     *
     * @throws IllegalArgumentException for an unknown name or an invalid configuration
     */
    public static Codec create(CudaBackend backend, CudaDevice device, String name, Map<String, Object> configuration) {
        return switch (name) {
            case CudaZstdCodec.NAME -> CudaZstdCodec.create(backend, device, configuration);
            case CudaCrc32cCodec.NAME -> CudaCrc32cCodec.create(backend, device, configuration);
            case CudaBytesCodec.NAME -> CudaBytesCodec.create(backend, device, configuration);
            case CudaTransposeCodec.NAME -> CudaTransposeCodec.create(backend, device, configuration);
            default -> throw new IllegalArgumentException("no cuda codec \"" + name + "\"; there are " + NAMES);
        };
    }
}
