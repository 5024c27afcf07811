// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import java.util.Map;
import java.util.Set;

/**
 * The configuration of the {@code zstd} codec, read once for every implementation (CPU, CUDA,
 * OpenCL): {@code {"level": -131072..22, "checksum": bool}}. Decoding needs neither field; encoders
 * use both.
 *
 * @param level    the compression level (0 means zstd's default, 3)
 * @param checksum whether frames carry an XXH64 content checksum
 */
public record ZstdSpec(int level, boolean checksum) {

    /** The codec's name in metadata. */
    public static final String NAME = "zstd";

    /**
     * Reads a configuration (null reads as empty).
     *
     * @param configuration the {@code configuration} object from the metadata, or null
     * @return the spec
     * @throws IllegalArgumentException for an unknown field or a value out of range, naming it
     */
    public static ZstdSpec parse(Map<String, Object> configuration) {
        CodecConfigReader c = CodecConfigReader.of(NAME, configuration, Set.of("level", "checksum"));
        return new ZstdSpec((int) c.integer("level", -131072, 22, 0), c.bool("checksum", false));
    }

    /**
     * The largest frame zstd may write for {@code decodedSize} bytes ({@code ZSTD_COMPRESSBOUND}).
     *
     * @param decodedSize bytes before compression
     * @return the bound, in bytes
     */
    public static long maxEncodedSize(long decodedSize) {
        long margin = decodedSize < (128L << 10) ? ((128L << 10) - decodedSize) >> 11 : 0;
        return decodedSize + (decodedSize >> 8) + margin;
    }
}
