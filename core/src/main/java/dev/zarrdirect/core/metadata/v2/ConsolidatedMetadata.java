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
 * <p>Immutable and safe for use by many threads. Keys are relative to the hierarchy's root, the
 * root's own documents being {@code .zgroup} and {@code .zattrs}.
 *
 * @param metadata store key to document (a JSON object in the metadata value model); deep-copied
 *                 when made, unmodifiable
 */
public record ConsolidatedMetadata(Map<String, Object> metadata) {

    /**
     * Deep-copies the documents, widening {@code Integer}s and {@code Float}s as the metadata value
     * model does. The documents are not checked: {@link #parse} checks what it reads.
     *
     * @throws NullPointerException     if {@code metadata} is null
     * @throws IllegalArgumentException if a map in it has a key that is not a string
     */
    public ConsolidatedMetadata {
        metadata = Json.freezeObject(metadata, "consolidated metadata");
    }

    /**
     * Reads a {@code .zmetadata}. Checks its format, that {@code metadata} is an object and that each
     * document in it is an object; the documents themselves are checked when a node is read from
     * them.
     *
     * @param json the document's text
     * @param key  its store key, named in errors ({@code .zmetadata}, or {@code path/.zmetadata})
     * @return the snapshot
     * @throws dev.zarrdirect.api.InvalidMetadataException naming {@code key}, for text that is not one
     *                                                     JSON object, a {@code zarr_consolidated_format}
     *                                                     other than 1, a missing {@code metadata} or
     *                                                     a document that is not an object
     * @throws IllegalArgumentException                    if {@code json} is null
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

    /**
     * The document stored under {@code key} ({@code "t2m/.zarray"}), if the snapshot has it.
     *
     * @param key a store key relative to the hierarchy's root
     * @return the document, unmodifiable; empty when the snapshot has none (or a JSON {@code null})
     *         under that key
     * @throws InvalidMetadataException when the value under {@code key} is not an object (possible
     *                                  only for a snapshot not made by {@link #parse})
     */
    public Optional<Map<String, Object>> document(String key) {
        Object d = metadata.get(key);
        return d == null ? Optional.empty() : Optional.of(Json.object(d, "consolidated \"" + key + "\""));
    }

    /**
     * Names of the arrays and groups directly under {@code path} ("" for the root), sorted: those
     * whose {@code .zarray} or {@code .zgroup} the snapshot holds.
     *
     * @param path a node's path without leading or trailing {@code /}; "" for the root
     * @return a new, modifiable list of member names (not paths), possibly empty
     */
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

    /**
     * The {@code .zmetadata} text: {@code metadata} then {@code "zarr_consolidated_format": 1},
     * two-space indented, a newline at the end. {@link #parse} reads it back to an equal snapshot.
     *
     * @return the document's text
     */
    public String toJson() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("metadata", metadata);
        doc.put("zarr_consolidated_format", 1L);
        return Json.write(doc);
    }
}
