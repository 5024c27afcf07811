// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@code zarr.json} whose node type is not known in advance. Stateless and thread-safe.
 */
public final class Metadata {

    private Metadata() {
    }

    /**
     * Reads a node's {@code zarr.json}.
     *
     * @param json the document's text
     * @param key  the store key of the document, named in every error
     * @return an {@link ArrayMetadata} or a {@link GroupMetadata}, by {@code node_type}
     * @throws InvalidMetadataException for invalid JSON, Zarr v2 documents, a missing or unknown
     *                                  {@code node_type}, and anything the node's own parser refuses
     */
    public static Object parseNode(String json, String key) {
        String what = "metadata \"" + key + "\"";
        return parseNode(Json.object(Json.parse(json, what), what), key);
    }

    /**
     * As {@link #parseNode(String, String)}, for a document already parsed into the plain JSON value
     * model (an entry of consolidated metadata).
     *
     * @param doc the document, of the plain JSON model
     * @param key where the document came from, named in every error
     * @return an {@link ArrayMetadata} or a {@link GroupMetadata}, by {@code node_type}
     * @throws InvalidMetadataException as {@link #parseNode(String, String)}
     */
    public static Object parseNode(Map<String, Object> doc, String key) {
        checkFormat(doc, key, null);
        String nodeType = Json.string(doc.get("node_type"), Json.where("node_type", key));
        return switch (nodeType) {
            case "array" -> ArrayMetadata.fromJson(doc, key);
            case "group" -> GroupMetadata.fromJson(doc, key);
            default -> throw new InvalidMetadataException(Json.where("node_type", key) + " is \"" + nodeType
                    + "\"; it must be \"array\" or \"group\"");
        };
    }

    /** Checks {@code zarr_format} is 3 and, unless {@code nodeType} is null, that the node is of that type. */
    static void checkFormat(Map<String, Object> doc, String key, String nodeType) {
        if (!doc.containsKey("zarr_format")) {
            throw new InvalidMetadataException("metadata \"" + key + "\" has no \"zarr_format\"; a Zarr v3 zarr.json"
                    + " starts with \"zarr_format\": 3 (fields seen: " + doc.keySet() + ")");
        }
        Object format = doc.get("zarr_format");
        if (format instanceof Long l && l == 2) {
            throw new InvalidMetadataException("metadata \"" + key + "\" is Zarr v2 metadata, which this v3"
                    + " parser does not read; open the node with Zarr.open, which reads both versions");
        }
        if (!(format instanceof Long l && l == 3)) {
            throw new InvalidMetadataException(Json.where("zarr_format", key) + " must be 3, got " + Json.describe(format));
        }
        if (!doc.containsKey("node_type")) {
            throw new InvalidMetadataException("metadata \"" + key + "\" has no \"node_type\"; it must be \"array\" or"
                    + " \"group\"");
        }
        if (nodeType != null) {
            String seen = Json.string(doc.get("node_type"), Json.where("node_type", key));
            if (!seen.equals(nodeType)) {
                throw new InvalidMetadataException(Json.where("node_type", key) + " is \"" + seen + "\", but "
                        + ("array".equals(nodeType) ? "an array" : "a group") + " was expected here");
            }
        }
    }

    static Object required(Map<String, Object> doc, String field, String key) {
        if (!doc.containsKey(field)) {
            throw new InvalidMetadataException("array metadata \"" + key + "\" has no \"" + field + "\", which is required");
        }
        return doc.get(field);
    }

    /**
     * The fields of {@code doc} outside {@code known}, each of which must be an object with
     * {@code "must_understand": false}; any other unknown field is an error.
     */
    static Map<String, Object> extensionFields(Map<String, Object> doc, String key, Set<String> known, String nodeKind) {
        Map<String, Object> extra = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : doc.entrySet()) {
            String field = e.getKey();
            if (known.contains(field)) {
                continue;
            }
            Object v = e.getValue();
            boolean ignorable = v instanceof Map<?, ?> m && Boolean.FALSE.equals(m.get("must_understand"));
            // zarr-python writes "consolidated_metadata": null into every group it creates.
            boolean zarrPythonNull = v == null && field.equals("consolidated_metadata");
            if (!ignorable && !zarrPythonNull) {
                throw new InvalidMetadataException(nodeKind + " metadata \"" + key + "\" has the extension field \""
                        + field + "\" that this reader does not understand (its must_understand is not false)");
            }
            extra.put(field, v);
        }
        return extra;
    }
}
