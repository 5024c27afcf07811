// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.codec;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecKind;
import dev.zarrdirect.api.codec.spec.GzipSpec;
import dev.zarrdirect.api.codec.spec.ZstdSpec;
import dev.zarrdirect.core.metadata.CodecMetadata;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The specifications of the codecs the Zarr v3 core defines: their kind, the configuration each
 * accepts (validated here, with messages naming the array, so every backend sees the same checked
 * and normalised configuration) and defaults. Implementations live in the backends.
 */
public final class BuiltinCodecs {

    public static final String BYTES = "bytes";
    public static final String TRANSPOSE = "transpose";
    public static final String CRC32C = "crc32c";
    public static final String GZIP = "gzip";
    public static final String ZSTD = "zstd";
    public static final String SHARDING = "sharding_indexed";

    private BuiltinCodecs() {
    }

    /** The kind of a built-in codec, or null for a codec the core does not define. */
    public static CodecKind kindOf(String name) {
        return switch (name) {
            case TRANSPOSE -> CodecKind.ARRAY_TO_ARRAY;
            case BYTES, SHARDING -> CodecKind.ARRAY_TO_BYTES;
            case CRC32C, GZIP, ZSTD -> CodecKind.BYTES_TO_BYTES;
            default -> null;
        };
    }

    /**
     * Checks a built-in codec's configuration against the representation it receives and returns the
     * normalised form; codecs the core does not define are returned unchanged.
     */
    public static CodecMetadata validate(CodecMetadata codec, ChunkSpec decoded, String where) {
        Map<String, Object> cfg = codec.configuration() == null ? Map.of() : codec.configuration();
        String w = "codec \"" + codec.name() + "\" of " + where;
        Map<String, Object> out = new LinkedHashMap<>();
        switch (codec.name()) {
            case BYTES -> {
                only(cfg, Set.of("endian"), w);
                Object e = cfg.get("endian");
                if (e == null) {
                    if (decoded.dataType().byteSize() > 1 && decoded.dataType().swapUnit() > 1) {
                        throw new InvalidMetadataException(w + " needs \"endian\" (\"little\" or \"big\") for data type "
                                + decoded.dataType());
                    }
                } else if (!"little".equals(e) && !"big".equals(e)) {
                    throw new InvalidMetadataException(w + " has endian " + quote(e) + "; expected \"little\" or \"big\"");
                } else {
                    out.put("endian", e);
                }
            }
            case TRANSPOSE -> {
                only(cfg, Set.of("order"), w);
                Object o = cfg.get("order");
                if (!(o instanceof List<?> list)) {
                    throw new InvalidMetadataException(w + " needs \"order\", an array permuting the "
                            + decoded.rank() + " dimensions; got " + quote(o));
                }
                int rank = decoded.rank();
                boolean[] seen = new boolean[rank];
                List<Object> order = new ArrayList<>();
                for (Object x : list) {
                    if (!(x instanceof Long v) || v < 0 || v >= rank || seen[(int) (long) v]) {
                        throw new InvalidMetadataException(w + " has order " + list + ", which is not a permutation of 0.."
                                + (rank - 1));
                    }
                    seen[(int) (long) v] = true;
                    order.add(v);
                }
                if (order.size() != rank) {
                    throw new InvalidMetadataException(w + " has order " + list + " of length " + order.size()
                            + " for an array of rank " + rank);
                }
                out.put("order", order);
            }
            case CRC32C -> only(cfg, Set.of(), w);
            case GZIP -> out.put("level", (long) spec(() -> GzipSpec.parse(cfg), w).level());
            case ZSTD -> {
                ZstdSpec z = spec(() -> ZstdSpec.parse(cfg), w);
                out.put("level", (long) z.level());
                out.put("checksum", z.checksum());
            }
            case SHARDING -> {
                // Validated structurally by ShardingConfig, which needs the registry to build inner chains.
                return codec;
            }
            default -> {
                return codec;
            }
        }
        return new CodecMetadata(codec.name(), out, codec.mustUnderstand());
    }

    /** A spec's parse (the one every backend uses), its message prefixed with the array. */
    private static <T> T spec(java.util.function.Supplier<T> parse, String where) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw new InvalidMetadataException(where + ": " + e.getMessage(), e);
        }
    }

    private static void only(Map<String, Object> cfg, Set<String> allowed, String where) {
        for (String k : cfg.keySet()) {
            if (!allowed.contains(k)) {
                throw new InvalidMetadataException(where + " has the unknown configuration field \"" + k
                        + "\"; allowed: " + allowed);
            }
        }
    }

    static String quote(Object o) {
        return o instanceof String s ? "\"" + s + "\"" : String.valueOf(o);
    }
}
