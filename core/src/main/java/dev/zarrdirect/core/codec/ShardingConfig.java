// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.codec;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.metadata.CodecMetadata;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configuration of {@code sharding_indexed}: the inner chunk shape, the codecs of the inner
 * chunks, the codecs of the index and where the index sits.
 */
public record ShardingConfig(long[] chunkShape, List<CodecMetadata> codecs, List<CodecMetadata> indexCodecs,
                             boolean indexAtEnd) {

    public ShardingConfig {
        chunkShape = chunkShape.clone();
        codecs = List.copyOf(codecs);
        indexCodecs = List.copyOf(indexCodecs);
    }

    @Override
    public long[] chunkShape() {
        return chunkShape.clone();
    }

    /** The usual index codecs: little-endian bytes followed by a crc32c checksum. */
    public static List<CodecMetadata> defaultIndexCodecs() {
        return List.of(CodecMetadata.of(BuiltinCodecs.BYTES, Map.of("endian", "little")),
                CodecMetadata.of(BuiltinCodecs.CRC32C, Map.of()));
    }

    public static ShardingConfig parse(Map<String, Object> cfg, long[] shardShape, String where) {
        String w = "codec \"sharding_indexed\" of " + where;
        for (String k : cfg.keySet()) {
            if (!List.of("chunk_shape", "codecs", "index_codecs", "index_location").contains(k)) {
                throw new InvalidMetadataException(w + " has the unknown configuration field \"" + k + "\"");
            }
        }
        Object cs = cfg.get("chunk_shape");
        if (!(cs instanceof List<?> csl) || csl.size() != shardShape.length) {
            throw new InvalidMetadataException(w + " needs \"chunk_shape\" with " + shardShape.length
                    + " extents; got " + cs);
        }
        long[] inner = new long[shardShape.length];
        for (int i = 0; i < inner.length; i++) {
            if (!(csl.get(i) instanceof Long v) || v <= 0) {
                throw new InvalidMetadataException(w + " has chunk_shape " + csl + "; extents are positive integers");
            }
            inner[i] = v;
            if (shardShape[i] % v != 0) {
                throw new InvalidMetadataException(w + ": the inner chunk shape " + csl + " does not divide the shard shape "
                        + java.util.Arrays.toString(shardShape) + " (dimension " + i + ")");
            }
        }
        List<CodecMetadata> codecs = codecList(cfg.get("codecs"), w + " field \"codecs\"", true);
        List<CodecMetadata> index = cfg.containsKey("index_codecs")
                ? codecList(cfg.get("index_codecs"), w + " field \"index_codecs\"", true) : defaultIndexCodecs();
        Object loc = cfg.getOrDefault("index_location", "end");
        if (!"end".equals(loc) && !"start".equals(loc)) {
            throw new InvalidMetadataException(w + " has index_location " + BuiltinCodecs.quote(loc)
                    + "; expected \"start\" or \"end\"");
        }
        return new ShardingConfig(inner, codecs, index, "end".equals(loc));
    }

    private static List<CodecMetadata> codecList(Object v, String where, boolean nonEmpty) {
        if (!(v instanceof List<?> l) || (nonEmpty && l.isEmpty())) {
            throw new InvalidMetadataException(where + " must be a non-empty array of codecs; got " + v);
        }
        List<CodecMetadata> out = new ArrayList<>();
        for (Object o : l) {
            out.add(CodecMetadata.parse(o, where));
        }
        return out;
    }

    /** The configuration as metadata JSON values. */
    public Map<String, Object> toConfiguration() {
        Map<String, Object> m = new LinkedHashMap<>();
        List<Object> cs = new ArrayList<>();
        for (long c : chunkShape) {
            cs.add(c);
        }
        m.put("chunk_shape", cs);
        m.put("codecs", codecs.stream().map(CodecMetadata::toJson).toList());
        m.put("index_codecs", indexCodecs.stream().map(CodecMetadata::toJson).toList());
        m.put("index_location", indexAtEnd ? "end" : "start");
        return m;
    }
}
