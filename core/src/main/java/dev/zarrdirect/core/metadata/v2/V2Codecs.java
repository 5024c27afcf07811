// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata.v2;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.codec.BuiltinCodecs;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.CodecMetadata;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a v2 array's {@code order}, {@code filters} and {@code compressor} into the v3 codec chain
 * the engine runs:
 * <ol>
 *   <li>{@code order: "F"} (rank 2 or more): {@code transpose} with the axes reversed, so that a
 *       Fortran-order chunk is the C-order chunk of the transposed shape;</li>
 *   <li>{@code delta} filters: {@code numcodecs.delta} (array to array), {@code {dtype, astype}} as
 *       NumPy type strings;</li>
 *   <li>{@code bytes}, with the endian of the element type that reaches it (the last delta's
 *       {@code astype}, else the array's {@code dtype}; {@code little} for one-byte types);</li>
 *   <li>{@code shuffle} filters: {@code numcodecs.shuffle} (bytes to bytes), {@code {elementsize}};</li>
 *   <li>the compressor: {@code zlib} as {@code numcodecs.zlib {level}}, {@code gzip} as the v3
 *       {@code gzip {level}}, {@code zstd} as {@code zstd {level, checksum}} and {@code blosc} as the
 *       v3 {@code blosc {cname, clevel, shuffle, typesize, blocksize}} with the shuffle as a word.</li>
 * </ol>
 * A {@code delta} after a {@code shuffle} works on shuffled bytes as numbers, which no v3 chain can
 * say; it is refused.
 *
 * <p>Configurations are checked as strictly as the metadata: unknown members, out-of-range levels
 * and unsupported ids throw {@link InvalidMetadataException} naming the {@code .zarray} key and the
 * field. Whether a codec is implemented is not checked here: the codec registry does that when the
 * array is opened. Stateless and thread-safe.
 */
public final class V2Codecs {

    /** numcodecs {@code Zlib}: zlib-wrapped deflate (RFC 1950), configuration {@code {level}}. */
    public static final String NUMCODECS_ZLIB = "numcodecs.zlib";
    /** numcodecs {@code Shuffle}: byte shuffle by {@code elementsize}, bytes to bytes. */
    public static final String NUMCODECS_SHUFFLE = "numcodecs.shuffle";
    /** numcodecs {@code Delta}: differences of consecutive elements, array to array. */
    public static final String NUMCODECS_DELTA = "numcodecs.delta";
    /** The v3 {@code blosc} codec. */
    public static final String BLOSC = "blosc";

    /** The filter ids this reader maps. */
    public static final List<String> FILTER_IDS = List.of("delta", "shuffle");
    /** The compressor ids this reader maps. */
    public static final List<String> COMPRESSOR_IDS = List.of("blosc", "gzip", "zlib", "zstd");

    static final Set<String> BLOSC_CNAMES = Set.of("blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd");

    private V2Codecs() {
    }

    /**
     * The v3 codecs that decode chunks of a v2 array, in v3 order: array-to-array codecs, then
     * {@code bytes}, then bytes-to-bytes codecs, the compressor last.
     *
     * @param dtype      the array's {@code dtype}
     * @param order      {@code 'C'} or {@code 'F'}; any other value is treated as {@code 'C'}
     * @param rank       the number of dimensions of the array
     * @param compressor the {@code compressor} object, or null
     * @param filters    the {@code filters} list, or null
     * @param key        the {@code .zarray} key, named in errors
     * @return a new, modifiable list of codecs
     * @throws InvalidMetadataException naming {@code key} and the field, for an unsupported filter or
     *                                  compressor, an unknown member, a value out of range, a delta
     *                                  whose {@code dtype} is not the type reaching it, or a delta
     *                                  after a shuffle
     */
    public static List<CodecMetadata> toCodecs(V2DataType dtype, char order, int rank, Map<String, Object> compressor,
                                               List<Object> filters, String key) {
        List<CodecMetadata> arrayToArray = new ArrayList<>();
        List<CodecMetadata> bytesToBytes = new ArrayList<>();
        if (order == 'F' && rank > 1) {
            List<Object> axes = new ArrayList<>(rank);
            for (int i = rank - 1; i >= 0; i--) {
                axes.add((long) i);
            }
            arrayToArray.add(CodecMetadata.of(BuiltinCodecs.TRANSPOSE, Map.of("order", axes)));
        }
        V2DataType current = dtype;
        String filtersWhere = Json.where("filters", key);
        if (filters != null) {
            for (int i = 0; i < filters.size(); i++) {
                String w = Json.element(filtersWhere, i);
                Map<String, Object> f = Json.object(filters.get(i), w);
                String id = id(f, w);
                switch (id) {
                    case "delta" -> {
                        if (!bytesToBytes.isEmpty()) {
                            throw new InvalidMetadataException(w + " is a delta filter after a shuffle filter; delta"
                                    + " would difference shuffled bytes, which this reader cannot express (filters: "
                                    + filters + ")");
                        }
                        only(f, Set.of("id", "dtype", "astype"), w);
                        V2DataType in = V2DataType.parse(required(f, "dtype", w), Json.child(w, "dtype"));
                        V2DataType out = f.get("astype") == null ? in
                                : V2DataType.parse(f.get("astype"), Json.child(w, "astype"));
                        checkDelta(in, out, current, w);
                        Map<String, Object> cfg = new LinkedHashMap<>();
                        cfg.put("dtype", in.typestr());
                        cfg.put("astype", out.typestr());
                        arrayToArray.add(CodecMetadata.of(NUMCODECS_DELTA, cfg));
                        current = out;
                    }
                    case "shuffle" -> {
                        only(f, Set.of("id", "elementsize"), w);
                        // numcodecs' Shuffle() defaults to 4; its get_config() always writes the size.
                        long size = f.get("elementsize") == null ? 4
                                : Json.longValue(f.get("elementsize"), Json.child(w, "elementsize"));
                        if (size < 1) {
                            throw new InvalidMetadataException(Json.child(w, "elementsize") + " is " + size
                                    + "; it must be 1 or more");
                        }
                        bytesToBytes.add(CodecMetadata.of(NUMCODECS_SHUFFLE, Map.of("elementsize", size)));
                    }
                    default -> throw new InvalidMetadataException(w + " is the filter \"" + id
                            + "\", which this reader does not support; supported filters: " + FILTER_IDS);
                }
            }
        }
        List<CodecMetadata> out = new ArrayList<>(arrayToArray);
        out.add(CodecMetadata.of(BuiltinCodecs.BYTES, Map.of("endian", current.endian())));
        out.addAll(bytesToBytes);
        if (compressor != null) {
            out.add(compressor(compressor, current.dataType(), Json.where("compressor", key)));
        }
        return out;
    }

    private static void checkDelta(V2DataType in, V2DataType out, V2DataType current, String where) {
        for (V2DataType t : List.of(in, out)) {
            DataType.Kind k = t.dataType().kind();
            if (k != DataType.Kind.INT && k != DataType.Kind.UINT && k != DataType.Kind.FLOAT) {
                throw new InvalidMetadataException(where + " is a delta filter of " + in.typestr() + " as "
                        + out.typestr() + "; delta works on integer and float types only");
            }
        }
        if (!in.equals(current)) {
            throw new InvalidMetadataException(Json.child(where, "dtype") + " is \"" + in.typestr()
                    + "\", but the elements reaching this filter are \"" + current.typestr() + "\"; a delta of another"
                    + " type or byte order would reinterpret the bytes, which this reader does not support");
        }
    }

    private static CodecMetadata compressor(Map<String, Object> c, DataType typeAtBytes, String w) {
        String id = id(c, w);
        Map<String, Object> cfg = new LinkedHashMap<>();
        switch (id) {
            case "zlib" -> {
                only(c, Set.of("id", "level"), w);
                cfg.put("level", integer(c, "level", 1, -1, 9, w));
                return CodecMetadata.of(NUMCODECS_ZLIB, cfg);
            }
            case "gzip" -> {
                only(c, Set.of("id", "level"), w);
                cfg.put("level", integer(c, "level", 1, 0, 9, w));
                return CodecMetadata.of(BuiltinCodecs.GZIP, cfg);
            }
            case "zstd" -> {
                only(c, Set.of("id", "level", "checksum"), w);
                cfg.put("level", integer(c, "level", 1, -131072, 22, w));
                cfg.put("checksum", c.get("checksum") == null ? Boolean.FALSE
                        : Json.bool(c.get("checksum"), Json.child(w, "checksum")));
                return CodecMetadata.of(BuiltinCodecs.ZSTD, cfg);
            }
            case "blosc" -> {
                only(c, Set.of("id", "cname", "clevel", "shuffle", "blocksize", "typesize"), w);
                String cname = c.get("cname") == null ? "lz4" : Json.string(c.get("cname"), Json.child(w, "cname"));
                if (!BLOSC_CNAMES.contains(cname)) {
                    throw new InvalidMetadataException(Json.child(w, "cname") + " is \"" + cname
                            + "\"; blosc compressors are " + BLOSC_CNAMES.stream().sorted().toList());
                }
                long shuffle = integer(c, "shuffle", 1, -1, 2, w);
                long typesize = c.get("typesize") == null ? typeAtBytes.byteSize()
                        : integer(c, "typesize", typeAtBytes.byteSize(), 1, Integer.MAX_VALUE, w);
                cfg.put("cname", cname);
                cfg.put("clevel", integer(c, "clevel", 5, 0, 9, w));
                cfg.put("shuffle", switch ((int) shuffle) {
                    case 0 -> "noshuffle";
                    case 2 -> "bitshuffle";
                    // -1 is numcodecs' AUTOSHUFFLE: bit shuffle for one-byte elements, byte shuffle otherwise.
                    case -1 -> typesize == 1 ? "bitshuffle" : "shuffle";
                    default -> "shuffle";
                });
                cfg.put("typesize", typesize);
                cfg.put("blocksize", integer(c, "blocksize", 0, 0, Integer.MAX_VALUE, w));
                return CodecMetadata.of(BLOSC, cfg);
            }
            default -> throw new InvalidMetadataException(w + " is the compressor \"" + id
                    + "\", which this reader does not support; supported compressors: " + COMPRESSOR_IDS);
        }
    }

    private static long integer(Map<String, Object> c, String field, long fallback, long min, long max, String w) {
        Object v = c.get(field);
        if (v == null) {
            return fallback;
        }
        long l = Json.longValue(v, Json.child(w, field));
        if (l < min || l > max) {
            throw new InvalidMetadataException(Json.child(w, field) + " is " + l + "; expected " + min + " to " + max);
        }
        return l;
    }

    private static String id(Map<String, Object> codec, String where) {
        if (!codec.containsKey("id")) {
            throw new InvalidMetadataException(where + " has no \"id\" naming the numcodecs codec (members: "
                    + codec.keySet() + ")");
        }
        return Json.string(codec.get("id"), Json.child(where, "id"));
    }

    private static Object required(Map<String, Object> codec, String field, String where) {
        Object v = codec.get(field);
        if (v == null) {
            throw new InvalidMetadataException(where + " has no \"" + field + "\", which the "
                    + codec.get("id") + " filter needs");
        }
        return v;
    }

    private static void only(Map<String, Object> codec, Set<String> allowed, String where) {
        for (String k : codec.keySet()) {
            if (!allowed.contains(k)) {
                throw new InvalidMetadataException(where + " (" + codec.get("id") + ") has the unknown member \"" + k
                        + "\" = " + Json.describe(codec.get(k)) + "; allowed: " + allowed.stream().sorted().toList());
            }
        }
    }
}
