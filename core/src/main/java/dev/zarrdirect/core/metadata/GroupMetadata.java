// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.core.json.Json;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code zarr.json} of a Zarr v3 group: its attributes, and extension fields marked
 * {@code "must_understand": false} kept for writing back. Maps are deep unmodifiable copies.
 *
 * @param attributes  the user attributes, values of the plain JSON model; null reads as empty
 * @param extraFields extension fields (such as {@code consolidated_metadata}), kept to be written
 *                    back; null reads as empty
 */
public record GroupMetadata(Map<String, Object> attributes, Map<String, Object> extraFields) {

    static final Set<String> KNOWN_FIELDS = Set.of("zarr_format", "node_type", "attributes");

    /**
     * Copies the maps.
     *
     * @throws IllegalArgumentException when a map has a non-string key, or an extra field is a field
     *         of group metadata itself
     */
    public GroupMetadata {
        attributes = attributes == null ? Map.of() : Json.freezeObject(attributes, "attributes");
        extraFields = extraFields == null ? Map.of() : Json.freezeObject(extraFields, "extra fields");
        for (String k : extraFields.keySet()) {
            if (KNOWN_FIELDS.contains(k)) {
                throw new IllegalArgumentException("extra field \"" + k + "\" is a field of group metadata itself");
            }
        }
    }

    /**
     * A group with no attributes.
     *
     * @return the metadata, without extension fields
     */
    public static GroupMetadata empty() {
        return new GroupMetadata(Map.of(), Map.of());
    }

    /**
     * This metadata with other attributes; the extension fields stay.
     *
     * @param attributes the new user attributes, values of the plain JSON model; null for none
     * @return new metadata; this one is unchanged
     */
    public GroupMetadata withAttributes(Map<String, Object> attributes) {
        return new GroupMetadata(attributes, extraFields);
    }

    /**
     * Reads and validates a group's {@code zarr.json}.
     *
     * @param json the document's text
     * @param key  the store key of the document, named in every error
     * @return the metadata
     * @throws dev.zarrdirect.api.InvalidMetadataException naming key and field for anything the spec does not allow
     *         (including an array's document or a Zarr v2 one)
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

    /**
     * The document as a JSON object of the plain value model.
     *
     * @return a new, modifiable map
     */
    public Map<String, Object> toJsonObject() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("zarr_format", 3L);
        doc.put("node_type", "group");
        doc.put("attributes", attributes);
        doc.putAll(extraFields);
        return doc;
    }

    /**
     * The {@code zarr.json} text, which {@link #parse} reads back to equal metadata.
     *
     * @return the document
     */
    public String toJson() {
        return Json.write(toJsonObject());
    }
}
