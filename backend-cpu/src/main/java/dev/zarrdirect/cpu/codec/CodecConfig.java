// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec;

import dev.zarrdirect.api.codec.spec.CodecConfigReader;

import java.util.Map;
import java.util.Set;

/**
 * A stand-in for {@link CodecConfigReader}, where the configuration rules and messages live, kept
 * only for {@link dev.zarrdirect.cpu.codec.bytestobytes.ZstdCodec} until it reads its configuration
 * with {@link CodecConfigReader} directly; then delete this class. New code uses
 * {@link CodecConfigReader}.
 */
public final class CodecConfig {

    private final CodecConfigReader reader;

    private CodecConfig(CodecConfigReader reader) {
        this.reader = reader;
    }

    /** As {@link CodecConfigReader#of}. */
    public static CodecConfig of(String codec, Map<String, Object> configuration, Set<String> known) {
        return new CodecConfig(CodecConfigReader.of(codec, configuration, known));
    }

    /** As {@link CodecConfigReader#integer}. */
    public long integer(String field, long min, long max, long fallback) {
        return reader.integer(field, min, max, fallback);
    }

    /** As {@link CodecConfigReader#bool}. */
    public boolean bool(String field, boolean fallback) {
        return reader.bool(field, fallback);
    }
}
