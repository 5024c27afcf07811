// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata.v2;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Zarr v2 consolidated metadata, the {@code .zmetadata} at the root of a hierarchy:
 * {@code {"zarr_consolidated_format": 1, "metadata": {".zgroup": {..}, "t2m/.zarray": {..},
 * "t2m/.zattrs": {..}}}}, every {@code .zarray}, {@code .zgroup} and {@code .zattrs} document of the
 * hierarchy under its key. It is a snapshot: nodes created or changed after it was written are not
 * in it until it is written again ({@code Zarr.consolidate}).
 *
 * @param metadata store key to document, unmodifiable
 */
public record ConsolidatedMetadata(Map<String, Object> metadata) {

    public ConsolidatedMetadata {
        metadata = Json.freezeObject(metadata, "consolidated metadata");
    }

    /**
     * Reads a {@code .zmetadata}.
     *
     * @param key its store key, named in errors
     */
    public static ConsolidatedMetadata parse(String json, String key) {
        String what = "consolidated metadata \"" + key + "\"";
        Map<String, Object> doc = Json.object(Json.parse(json, what), what);
        Object format = doc.get("zarr_consolidated_format");
        if (!(format instanceof Long l && l == 1)) {
            throw new InvalidMetadataException(Json.where("zarr_consolidated_format", key) + " must be 1, got "
                    + Json.describe(format) + " (members seen: " + doc.keySet() + ")");
        }
        if (!doc.containsKey("metadata")) {
            throw new InvalidMetadataException(what + " has no \"metadata\", which holds the documents");
        }
        String mw = Json.where("metadata", key);
        Map<String, Object> md = Json.object(doc.get("metadata"), mw);
        for (Map.Entry<String, Object> e : md.entrySet()) {
            Json.object(e.getValue(), Json.child(mw, e.getKey()));
        }
        return new ConsolidatedMetadata(md);
    }

    /** The document stored under {@code key} ({@code "t2m/.zarray"}), if the snapshot has it. */
    public Optional<Map<String, Object>> document(String key) {
        Object d = metadata.get(key);
        return d == null ? Optional.empty() : Optional.of(Json.object(d, "consolidated \"" + key + "\""));
    }

    /** Names of the arrays and groups directly under {@code path} ("" for the root), sorted. */
    public List<String> children(String path) {
        String prefix = path.isEmpty() ? "" : path + "/";
        TreeSet<String> names = new TreeSet<>();
        for (String k : metadata.keySet()) {
            if (!k.startsWith(prefix)) {
                continue;
            }
            String rest = k.substring(prefix.length());
            int slash = rest.indexOf('/');
            if (slash > 0 && (rest.equals(rest.substring(0, slash) + "/" + V2Nodes.ZARRAY)
                    || rest.equals(rest.substring(0, slash) + "/" + V2Nodes.ZGROUP))) {
                names.add(rest.substring(0, slash));
            }
        }
        return new ArrayList<>(names);
    }

    /** The {@code .zmetadata} text. */
    public String toJson() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("metadata", metadata);
        doc.put("zarr_consolidated_format", 1L);
        return Json.write(doc);
    }
}
