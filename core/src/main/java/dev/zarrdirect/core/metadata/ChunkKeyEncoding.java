// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a chunk's index becomes its store key, relative to the array's own path: {@code default}
 * ({@code c/0/3/1}) or {@code v2} ({@code 0.3.1}). Implementations are immutable records.
 */
public sealed interface ChunkKeyEncoding permits DefaultChunkKeyEncoding, V2ChunkKeyEncoding {

    /**
     * The key of a chunk relative to the array's path.
     *
     * @param chunkIndex the chunk's position in the grid, one entry per dimension
     * @return the relative key
     * @throws IllegalArgumentException when an index is negative
     */
    String encode(long[] chunkIndex);

    /**
     * The chunk index a relative key names under this encoding, or {@code null} if the key is not a
     * chunk key of rank {@code rank} (a listing may hold {@code zarr.json} and foreign files).
     *
     * @param relativeKey a key relative to the array's path
     * @param rank        the array's rank
     * @return the chunk's grid index, or {@code null}
     */
    long[] decode(String relativeKey, int rank);

    /**
     * The character between the parts of a key.
     *
     * @return {@code '/'} or {@code '.'}
     */
    char separator();

    /**
     * The encoding's name in metadata.
     *
     * @return {@code "default"} or {@code "v2"}
     */
    String name();

    /**
     * The encoding as a {@code chunk_key_encoding} value.
     *
     * @return {@code {"name": .., "configuration": {"separator": ..}}}, a new map of the plain JSON model
     */
    default Object toJson() {
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("separator", String.valueOf(separator()));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", name());
        json.put("configuration", cfg);
        return json;
    }

    /**
     * Reads a {@code chunk_key_encoding} value: {@code {"name": "default" | "v2", "configuration":
     * {"separator": "/" | "."}}} with the configuration optional, or the bare name.
     *
     * @param json  the value, of the plain JSON model
     * @param where names the field in errors, such as {@code "chunk_key_encoding" in "t2m/zarr.json"}
     * @return the encoding
     * @throws InvalidMetadataException for another name, an unknown member or a bad separator
     */
    static ChunkKeyEncoding parse(Object json, String where) {
        String name;
        Map<String, Object> cfg = Map.of();
        if (json instanceof String s) {
            name = s;
        } else {
            Map<String, Object> obj = Json.object(json, where);
            for (String k : obj.keySet()) {
                if (!k.equals("name") && !k.equals("configuration")) {
                    throw new InvalidMetadataException(where + " has the unknown member \"" + k
                            + "\"; a chunk key encoding has only \"name\" and \"configuration\"");
                }
            }
            if (!obj.containsKey("name")) {
                throw new InvalidMetadataException(where + " has no \"name\"");
            }
            name = Json.string(obj.get("name"), Json.child(where, "name"));
            if (obj.containsKey("configuration")) {
                cfg = Json.object(obj.get("configuration"), Json.child(where, "configuration"));
            }
        }
        char fallback = switch (name) {
            case DefaultChunkKeyEncoding.NAME -> '/';
            case V2ChunkKeyEncoding.NAME -> '.';
            default -> throw new InvalidMetadataException(where + " names the chunk key encoding \"" + name
                    + "\"; supported are \"default\" and \"v2\"");
        };
        String cfgWhere = Json.child(where, "configuration");
        for (String k : cfg.keySet()) {
            if (!k.equals("separator")) {
                throw new InvalidMetadataException(cfgWhere + " has the unknown member \"" + k
                        + "\"; the " + name + " chunk key encoding takes only \"separator\"");
            }
        }
        char sep = fallback;
        if (cfg.containsKey("separator")) {
            String sepWhere = Json.child(cfgWhere, "separator");
            String s = Json.string(cfg.get("separator"), sepWhere);
            if (!s.equals("/") && !s.equals(".")) {
                throw new InvalidMetadataException(sepWhere + " must be \"/\" or \".\", got \"" + s + "\"");
            }
            sep = s.charAt(0);
        }
        return name.equals(DefaultChunkKeyEncoding.NAME) ? new DefaultChunkKeyEncoding(sep) : new V2ChunkKeyEncoding(sep);
    }
}
