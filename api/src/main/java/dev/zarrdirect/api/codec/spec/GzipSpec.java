// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import java.util.Map;
import java.util.Set;

/**
 * The configuration of the {@code gzip} codec (RFC 1952 members), read once for every
 * implementation: {@code {"level": 0..9}}, default 5. Decoding ignores the level.
 *
 * @param level the deflate level 0 (stored) to 9
 */
public record GzipSpec(int level) {

    /** The codec's name in metadata. */
    public static final String NAME = "gzip";

    /**
     * Reads a configuration (null reads as empty).
     *
     * @param configuration the {@code configuration} object from the metadata, or null
     * @return the spec
     * @throws IllegalArgumentException for an unknown field or a level outside 0..9
     */
    public static GzipSpec parse(Map<String, Object> configuration) {
        CodecConfigReader c = CodecConfigReader.of(NAME, configuration, Set.of("level"));
        return new GzipSpec((int) c.integer("level", 0, 9, 5));
    }
}
