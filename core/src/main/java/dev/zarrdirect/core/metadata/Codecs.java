// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The codecs of the Zarr v3 specification and its registered extensions as {@link CodecMetadata},
 * with their configuration spelled as the specification does, for {@link ArrayMetadataBuilder}:
 *
 * {@snippet :
 * ArrayMetadata md = ArrayMetadata.builder(new long[] {96, 8, 721, 1440}, DataType.FLOAT32)
 *         .chunks(1, 8, 721, 1440)
 *         .compressors(Codecs.zstd(3))
 *         .build();
 * }
 *
 * These only build the JSON; whether a backend can run a codec is checked when an array is created
 * or opened ({@code Zarr.createArray}), which fails on a bad configuration before writing anything.
 * Each method returns a new, immutable {@link CodecMetadata}; the class is stateless and thread-safe.
 */
public final class Codecs {

    private Codecs() {
    }

    /**
     * {@code bytes}, little-endian: how every array-to-bytes chain in this library starts unless told
     * otherwise.
     *
     * @return {@code {"name": "bytes", "configuration": {"endian": "little"}}}
     */
    public static CodecMetadata bytes() {
        return bytes(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * {@code bytes} with the given byte order of multi-byte elements (ignored by readers for one-byte
     * types).
     *
     * @param order the order of each element's bytes in the stored chunk
     * @return {@code bytes} with {@code endian} {@code "big"} or {@code "little"}
     * @throws NullPointerException when {@code order} is null
     */
    public static CodecMetadata bytes(ByteOrder order) {
        Objects.requireNonNull(order, "order");
        return CodecMetadata.of("bytes", Map.of("endian", order == ByteOrder.BIG_ENDIAN ? "big" : "little"));
    }

    /**
     * {@code transpose}: the chunk is stored with its dimensions permuted by {@code order}, a
     * permutation of {@code 0 .. rank-1} ({@code order[i]} is the source dimension of stored dimension i).
     * Whether its length is the array's rank is checked when the array is created.
     *
     * @param order the permutation, such as {@code 2, 1, 0} to store a chunk in Fortran order
     * @return {@code transpose} with that {@code order}
     * @throws IllegalArgumentException when {@code order} is not a permutation
     */
    public static CodecMetadata transpose(int... order) {
        int[] sorted = order.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            if (sorted[i] != i) {
                throw new IllegalArgumentException("transpose order " + Arrays.toString(order)
                        + " is not a permutation of 0.." + (order.length - 1));
            }
        }
        return CodecMetadata.of("transpose", Map.of("order", Arrays.stream(order).boxed().toList()));
    }

    /**
     * {@code zstd} at {@code level} (zstd's levels, -131072 .. 22; 3 is its default), no checksum.
     * The level is not checked here (unlike {@link #gzip}'s); the codec checks it when the array is
     * created.
     *
     * @param level the compression level; higher is smaller and slower, 0 is zstd's default
     * @return {@code zstd} with {@code level} and {@code checksum} false
     */
    public static CodecMetadata zstd(int level) {
        return zstd(level, false);
    }

    /**
     * {@code zstd} at {@code level}, with an XXH64 content checksum in every frame when
     * {@code checksum}. The level is not checked here, as for {@link #zstd(int)}.
     *
     * @param level    the compression level, -131072 .. 22
     * @param checksum whether each frame carries a checksum of its content, verified on decode
     * @return {@code zstd} with {@code level} and {@code checksum}
     */
    public static CodecMetadata zstd(int level, boolean checksum) {
        if (level < -131072 || level > 22) {
            throw new IllegalArgumentException("zstd level " + level + " is outside -131072..22");
        }
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("level", (long) level);
        cfg.put("checksum", checksum);
        return CodecMetadata.of("zstd", cfg);
    }

    /**
     * {@code gzip} at {@code level} 0 (stored) .. 9.
     *
     * @param level the compression level, 0 .. 9
     * @return {@code gzip} with {@code level}
     * @throws IllegalArgumentException when {@code level} is outside 0..9
     */
    public static CodecMetadata gzip(int level) {
        if (level < 0 || level > 9) {
            throw new IllegalArgumentException("gzip level " + level + " is outside 0..9");
        }
        return CodecMetadata.of("gzip", Map.of("level", (long) level));
    }

    /**
     * {@code crc32c}: a CRC-32C of the encoded chunk appended to it (4 bytes), checked on every read;
     * a mismatch throws {@link dev.zarrdirect.api.ChecksumMismatchException}.
     *
     * @return {@code crc32c}, which has no configuration
     */
    public static CodecMetadata crc32c() {
        return CodecMetadata.of("crc32c", Map.of());
    }

    /** How blosc reorders the bytes of a block before compressing it. */
    public enum BloscShuffle {
        /** Bytes as they are. */
        NOSHUFFLE("noshuffle"),
        /** Byte k of every element together (good for floats and wide integers). */
        SHUFFLE("shuffle"),
        /** Bit k of every element together (good for narrow or slowly changing values). */
        BITSHUFFLE("bitshuffle");

        private final String json;

        BloscShuffle(String json) {
            this.json = json;
        }

        /**
         * The spelling in the codec's configuration.
         *
         * @return {@code "noshuffle"}, {@code "shuffle"} or {@code "bitshuffle"}
         */
        public String json() {
            return json;
        }
    }

    /**
     * {@code blosc}: {@code cname} one of {@code lz4, lz4hc, blosclz, zstd, zlib}, {@code clevel}
     * 0..9, the shuffle, {@code typesize} in bytes (the element size the shuffle works on) and
     * {@code blocksize} in bytes (0: blosc chooses).
     *
     * <p>blosc 1.x frames carry no checksum: a flipped bit in a stored chunk decodes to wrong values
     * without an error on every backend. Follow it with {@link #crc32c()} (as the last compressor)
     * where the data must be verified on every read.
     *
     * @param cname     the compressor inside blosc: {@code lz4}, {@code lz4hc}, {@code blosclz},
     *                  {@code zstd} or {@code zlib}
     * @param clevel    the compression level, 0..9
     * @param shuffle   how bytes are reordered before compressing
     * @param typesize  the element size, in bytes, the shuffle works on (1..255), usually the data
     *                  type's size
     * @param blocksize the block size in bytes, 0 or more; 0: blosc chooses
     * @return {@code blosc} with that configuration
     * @throws IllegalArgumentException for an unknown compressor, a level outside 0..9, a typesize
     *                                  outside 1..255 or a negative blocksize
     * @throws NullPointerException     when {@code cname} or {@code shuffle} is null
     */
    public static CodecMetadata blosc(String cname, int clevel, BloscShuffle shuffle, int typesize, long blocksize) {
        if (!List.of("lz4", "lz4hc", "blosclz", "zstd", "zlib").contains(cname)) {
            throw new IllegalArgumentException("blosc compressor \"" + cname
                    + "\" is not one of lz4, lz4hc, blosclz, zstd, zlib");
        }
        if (clevel < 0 || clevel > 9) {
            throw new IllegalArgumentException("blosc clevel " + clevel + " is outside 0..9");
        }
        if (typesize < 1 || typesize > 255) {
            throw new IllegalArgumentException("blosc typesize " + typesize + " is outside 1..255");
        }
        if (blocksize < 0) {
            throw new IllegalArgumentException("blosc blocksize " + blocksize + " is negative");
        }
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("cname", cname);
        cfg.put("clevel", (long) clevel);
        cfg.put("shuffle", Objects.requireNonNull(shuffle, "shuffle").json());
        cfg.put("typesize", (long) typesize);
        cfg.put("blocksize", blocksize);
        return CodecMetadata.of("blosc", cfg);
    }

    /**
     * {@code sharding_indexed}: chunks of {@code innerChunkShape} stored together in one object per
     * outer chunk, each inner chunk through {@code innerCodecs}, the index last and protected by a
     * CRC-32C (what zarr-python writes by default). Nothing is checked here: whether the inner chunk
     * shape divides the shard shape is checked when the array is created (the builder's
     * {@link ArrayMetadataBuilder#shards} checks it earlier).
     *
     * @param innerChunkShape the shape of the chunks inside a shard, in elements; copied
     * @param innerCodecs     the chain each inner chunk goes through, with one array-to-bytes codec
     * @return {@code sharding_indexed} with {@code chunk_shape}, {@code codecs}, {@code index_codecs}
     *         ({@code bytes} and {@code crc32c}) and {@code index_location} {@code "end"}
     * @throws NullPointerException when an argument or one of the codecs is null
     */
    public static CodecMetadata sharding(long[] innerChunkShape, List<CodecMetadata> innerCodecs) {
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("chunk_shape", Arrays.stream(innerChunkShape).boxed().toList());
        cfg.put("codecs", innerCodecs.stream().map(CodecMetadata::toJson).toList());
        cfg.put("index_codecs", List.of(bytes().toJson(), crc32c().toJson()));
        cfg.put("index_location", "end");
        return CodecMetadata.of("sharding_indexed", cfg);
    }
}
