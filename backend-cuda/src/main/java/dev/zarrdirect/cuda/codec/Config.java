// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.codec.spec.CodecConfigReader;

import java.util.Map;
import java.util.Set;

/**
 * A stand-in for {@link CodecConfigReader}, where the configuration rules and messages live, kept
 * only for {@link CudaZstdCodec} until it reads its configuration with {@link CodecConfigReader}
 * directly; then delete this class.
 */
final class Config {

    private final CodecConfigReader reader;

    private Config(CodecConfigReader reader) {
        this.reader = reader;
    }

    static Config of(String codec, Map<String, Object> configuration, Set<String> known) {
        return new Config(CodecConfigReader.of(codec, configuration, known));
    }

    long integer(String field, long min, long max, long fallback) {
        return reader.integer(field, min, max, fallback);
    }

    boolean bool(String field, boolean fallback) {
        return reader.bool(field, fallback);
    }
}
