// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import java.util.Map;
import java.util.Set;

/**
 * The configuration of numcodecs' zlib compressor (RFC 1950 streams), under its v3 name
 * {@code numcodecs.zlib} or its v2 id {@code zlib}, read once for every implementation:
 * {@code {"level": -1..9}}, default 1, and optionally the v2 {@code "id": "zlib"}.
 *
 * @param name  the name it was configured under: {@link #NAME} or {@link #V2_ID}
 * @param level the deflate level (-1 is zlib's default)
 */
public record ZlibSpec(String name, int level) {

    /** The codec's v3 name. */
    public static final String NAME = "numcodecs.zlib";
    /** The compressor's id in Zarr v2 metadata. */
    public static final String V2_ID = "zlib";

    /**
     * Reads a configuration (null reads as empty) given under {@code name}.
     *
     * @param name          {@link #NAME} or {@link #V2_ID}
     * @param configuration the {@code configuration} object from the metadata, or null
     * @return the spec
     * @throws IllegalArgumentException for another name, an unknown field or a level outside -1..9
     */
    public static ZlibSpec parse(String name, Map<String, Object> configuration) {
        if (!NAME.equals(name) && !V2_ID.equals(name)) {
            throw new IllegalArgumentException("zlib is \"" + NAME + "\" or \"" + V2_ID + "\", not \"" + name + "\"");
        }
        CodecConfigReader c = CodecConfigReader.of(name, configuration, Set.of("level", "id"));
        if (c.has("id")) {
            c.choice("id", Set.of(V2_ID));
        }
        return new ZlibSpec(name, (int) c.integer("level", -1, 9, 1));
    }
}
