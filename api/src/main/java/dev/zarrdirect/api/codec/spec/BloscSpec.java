// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The configuration of the {@code blosc} codec (blosc 1.x frames), read once for every
 * implementation. The v3 form is {@code {"cname", "clevel", "shuffle": "noshuffle"|"shuffle"|"bitshuffle",
 * "typesize", "blocksize"}}; the numcodecs (v2) form has {@code "id": "blosc"} and a numeric shuffle
 * (0 none, 1 byte, 2 bit, -1 automatic: bit for one-byte elements, else byte). Decoding reads
 * everything it needs from each frame's header, so only encoders use these fields.
 *
 * @param cname     the internal compressor: one of {@link #CNAMES}
 * @param clevel    0..9
 * @param shuffle   how blocks are shuffled before compression
 * @param typesize  the element size the shuffle works on, 1..255 (a larger one is written as 1, as
 *                  c-blosc does)
 * @param blocksize the block size in bytes, 0 for automatic
 */
public record BloscSpec(String cname, int clevel, Shuffle shuffle, int typesize, long blocksize) {

    /** The codec's name in metadata (v3) and its id in numcodecs (v2). */
    public static final String NAME = "blosc";
    /** The internal compressors blosc 1.x defines and this library reads and writes. */
    public static final List<String> CNAMES = List.of("blosclz", "lz4", "lz4hc", "zlib", "zstd");
    /**
     * What every backend's decoder says of a buffer of format version 3 or later (Blosc2), after
     * saying which buffer and version: such buffers fail with a {@code CodecException}, not as corrupt.
     */
    public static final String BLOSC1_ONLY = "only Blosc1 buffers (versions 1 and 2, as c-blosc 1.x writes) are read,"
            + " not Blosc2 ones";
    /** The largest chunk blosc 1.x can hold, in bytes (its {@code BLOSC_MAX_BUFFERSIZE}). */
    public static final long MAX_BUFFERSIZE = Integer.MAX_VALUE - 16L;

    /** How blosc reorders the bytes of a block before compressing it. */
    public enum Shuffle {
        /** Bytes as they are. */
        NOSHUFFLE,
        /** Byte k of every element together. */
        SHUFFLE,
        /** Bit k of every element together. */
        BITSHUFFLE
    }

    /**
     * Reads a configuration in either form (null reads as empty: lz4, level 5, byte shuffle,
     * typesize 1, automatic block size).
     *
     * @param configuration the {@code configuration} object from the metadata, or null
     * @return the spec
     * @throws IllegalArgumentException for an unknown field, compressor or shuffle, or a value out of
     *                                  range, naming it
     */
    public static BloscSpec parse(Map<String, Object> configuration) {
        CodecConfigReader c = CodecConfigReader.of(NAME, configuration, Set.of("cname", "clevel", "shuffle", "typesize",
                "blocksize", "id"));
        if (c.has("id")) {
            c.choice("id", Set.of(NAME));
        }
        String cname = c.choice("cname", Set.copyOf(CNAMES));
        int clevel = (int) c.integer("clevel", 0, 9, 5);
        int typesize = (int) c.integer("typesize", 1, Integer.MAX_VALUE, 1);
        long blocksize = c.integer("blocksize", 0, MAX_BUFFERSIZE, 0);
        Object s = configuration == null ? null : configuration.get("shuffle");
        Shuffle shuffle;
        if (s == null) {
            shuffle = Shuffle.SHUFFLE;
        } else if (s instanceof String) {
            shuffle = Shuffle.valueOf(c.choice("shuffle", Set.of("noshuffle", "shuffle", "bitshuffle"))
                    .toUpperCase(Locale.ROOT));
        } else {
            shuffle = switch ((int) c.integer("shuffle", -1, 2, 1)) {
                case 0 -> Shuffle.NOSHUFFLE;
                case 1 -> Shuffle.SHUFFLE;
                case 2 -> Shuffle.BITSHUFFLE;
                default -> typesize == 1 ? Shuffle.BITSHUFFLE : Shuffle.SHUFFLE;
            };
        }
        return new BloscSpec(cname == null ? "lz4" : cname, clevel, shuffle, typesize > 255 ? 1 : typesize, blocksize);
    }

    /**
     * The largest frame blosc 1.x may write for {@code decodedSize} bytes: the data plus its
     * 16-byte header ({@code BLOSC_MAX_OVERHEAD}).
     *
     * @param decodedSize bytes before compression
     * @return the bound, in bytes
     */
    public static long maxEncodedSize(long decodedSize) {
        return decodedSize + 16;
    }
}
