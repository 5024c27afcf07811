// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.core.json.Json;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code zarr.json} of a Zarr v3 group: its attributes, and extension fields marked
 * {@code "must_understand": false} kept for writing back. Maps are deep unmodifiable copies.
 */
public record GroupMetadata(Map<String, Object> attributes, Map<String, Object> extraFields) {

    static final Set<String> KNOWN_FIELDS = Set.of("zarr_format", "node_type", "attributes");

    public GroupMetadata {
        attributes = attributes == null ? Map.of() : Json.freezeObject(attributes, "attributes");
        extraFields = extraFields == null ? Map.of() : Json.freezeObject(extraFields, "extra fields");
        for (String k : extraFields.keySet()) {
            if (KNOWN_FIELDS.contains(k)) {
                throw new IllegalArgumentException("extra field \"" + k + "\" is a field of group metadata itself");
            }
        }
    }

    /** A group with no attributes. */
    public static GroupMetadata empty() {
        return new GroupMetadata(Map.of(), Map.of());
    }

    public GroupMetadata withAttributes(Map<String, Object> attributes) {
        return new GroupMetadata(attributes, extraFields);
    }

    /**
     * Reads and validates a group's {@code zarr.json}.
     *
     * @param key the store key of the document, named in every error
     */
    public static GroupMetadata parse(String json, String key) {
        String what = "group metadata \"" + key + "\"";
        return fromJson(Json.object(Json.parse(json, what), what), key);
    }

    static GroupMetadata fromJson(Map<String, Object> doc, String key) {
        Metadata.checkFormat(doc, key, "group");
        Map<String, Object> extra = Metadata.extensionFields(doc, key, KNOWN_FIELDS, "group");
        Map<String, Object> attributes = doc.containsKey("attributes")
                ? Json.object(doc.get("attributes"), Json.where("attributes", key)) : Map.of();
        return new GroupMetadata(attributes, extra);
    }

    /** The document as a JSON object of the plain value model. */
    public Map<String, Object> toJsonObject() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("zarr_format", 3L);
        doc.put("node_type", "group");
        doc.put("attributes", attributes);
        doc.putAll(extraFields);
        return doc;
    }

    /** The {@code zarr.json} text. */
    public String toJson() {
        return Json.write(toJsonObject());
    }
}
