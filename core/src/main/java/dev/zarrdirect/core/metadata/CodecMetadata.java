// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of an array's {@code codecs} list as written in metadata: the codec's name, its
 * configuration (a deep unmodifiable copy, nested codecs of {@code sharding_indexed} included) and
 * whether a reader must understand it. Whether the name is known is checked later, by the registry.
 *
 * @param name           the codec's name, such as {@code "zstd"}; not empty
 * @param configuration  the codec's configuration, values of the plain JSON model; null reads as
 *                       empty; a deep unmodifiable copy
 * @param mustUnderstand whether a reader that lacks the codec must refuse the array (true unless
 *                       the metadata says {@code "must_understand": false})
 */
public record CodecMetadata(String name, Map<String, Object> configuration, boolean mustUnderstand) {

    /**
     * Checks the name and copies the configuration.
     *
     * @throws NullPointerException when {@code name} is null
     * @throws IllegalArgumentException when {@code name} is empty, or the configuration has a
     *         non-string key
     */
    public CodecMetadata {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("codec name is empty");
        }
        configuration = configuration == null ? Map.of()
                : Json.freezeObject(configuration, "configuration of codec \"" + name + "\"");
    }

    /**
     * A codec that readers must understand.
     *
     * @param name          the codec's name, such as {@code "zstd"}
     * @param configuration its configuration, values of the plain JSON model; null for none
     * @return the entry
     */
    public static CodecMetadata of(String name, Map<String, Object> configuration) {
        return new CodecMetadata(name, configuration, true);
    }

    /**
     * Reads a bare name ({@code "gzip"}) or {@code {"name": .., "configuration": {..}, "must_understand": ..}}.
     *
     * @param json  the entry, of the plain JSON model
     * @param where names the entry in errors, such as {@code "codecs[1]" in "t2m/zarr.json"}
     * @return the entry
     * @throws InvalidMetadataException for an empty or missing name, an unknown member, or a member
     *         of the wrong type
     */
    public static CodecMetadata parse(Object json, String where) {
        if (json instanceof String s) {
            if (s.isEmpty()) {
                throw new InvalidMetadataException(where + " is an empty codec name");
            }
            return of(s, Map.of());
        }
        Map<String, Object> obj = Json.object(json, where);
        for (String k : obj.keySet()) {
            if (!k.equals("name") && !k.equals("configuration") && !k.equals("must_understand")) {
                throw new InvalidMetadataException(where + " has the unknown member \"" + k
                        + "\"; a codec has \"name\", \"configuration\" and \"must_understand\"");
            }
        }
        if (!obj.containsKey("name")) {
            throw new InvalidMetadataException(where + " has no \"name\"");
        }
        String name = Json.string(obj.get("name"), Json.child(where, "name"));
        if (name.isEmpty()) {
            throw new InvalidMetadataException(Json.child(where, "name") + " is empty");
        }
        Map<String, Object> cfg = obj.containsKey("configuration")
                ? Json.object(obj.get("configuration"), Json.child(where, "configuration")) : Map.of();
        boolean must = !obj.containsKey("must_understand")
                || Json.bool(obj.get("must_understand"), Json.child(where, "must_understand"));
        return new CodecMetadata(name, cfg, must);
    }

    /**
     * The entry as written in metadata.
     *
     * @return {@code {"name": .., "configuration": {..}}}, leaving out an empty configuration and a
     *         true must_understand; a new map of the plain JSON model
     */
    public Object toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", name);
        if (!configuration.isEmpty()) {
            json.put("configuration", configuration);
        }
        if (!mustUnderstand) {
            json.put("must_understand", false);
        }
        return json;
    }
}
