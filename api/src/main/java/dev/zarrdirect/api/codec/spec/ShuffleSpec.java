// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import java.util.Map;
import java.util.Set;

/**
 * The configuration of numcodecs' byte shuffle filter ({@code numcodecs.shuffle}, v2 id
 * {@code shuffle}), read once for every implementation: {@code {"elementsize": 1..}}, default 4.
 *
 * @param elementsize the size in bytes of the elements whose bytes are regrouped
 */
public record ShuffleSpec(int elementsize) {

    /** The codec's v3 name. */
    public static final String NAME = "numcodecs.shuffle";

    /**
     * Reads a configuration (null reads as empty).
     *
     * @param configuration the {@code configuration} object from the metadata, or null
     * @return the spec
     * @throws IllegalArgumentException for an unknown field or an element size below 1
     */
    public static ShuffleSpec parse(Map<String, Object> configuration) {
        CodecConfigReader c = CodecConfigReader.of(NAME, configuration, Set.of("elementsize", "id"));
        if (c.has("id")) {
            c.choice("id", Set.of("shuffle"));
        }
        return new ShuffleSpec((int) c.integer("elementsize", 1, Integer.MAX_VALUE, 4));
    }
}
