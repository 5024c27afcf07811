// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Zarr v3 consolidated metadata as zarr-python 3 writes it: inline in a group's {@code zarr.json},
 * as the extension field
 * {@snippet lang=json :
 * "consolidated_metadata": {"kind": "inline", "must_understand": false,
 *     "metadata": {"t2m": {"zarr_format": 3, "node_type": "array", ...},
 *                  "surface": {"zarr_format": 3, "node_type": "group", ...},
 *                  "surface/u10": {"zarr_format": 3, "node_type": "array", ...}}}
 * }
 * Keys are paths relative to the group holding the field, one per descendant node, and values are
 * those nodes' own {@code zarr.json} documents. zarr-python's proposal is zarr-specs#309, not yet
 * part of the specification. A child group's entry may carry its own (nested) consolidated
 * metadata; its entries are read as descendants of that child, under the flat ones.
 *
 * <p>It is a snapshot: nodes added or changed after it was written are not in it until the hierarchy
 * is consolidated again ({@link dev.zarrdirect.core.Zarr#consolidateV3 Zarr.consolidateV3}). Immutable and thread-safe.
 */
public final class InlineConsolidatedMetadata {

    /** The name of the extension field in a group's {@code zarr.json}. */
    public static final String FIELD = "consolidated_metadata";
    /** The only {@code kind} there is. */
    public static final String KIND_INLINE = "inline";

    /** Relative path to node document (with no nested consolidated metadata), sorted by path. */
    private final Map<String, Map<String, Object>> nodes;
    /** Where the documents came from, named in errors: {@code consolidated metadata of "zarr.json"}. */
    private final String source;

    private InlineConsolidatedMetadata(Map<String, Map<String, Object>> nodes, String source) {
        this.nodes = Collections.unmodifiableMap(nodes);
        this.source = source;
    }

    /**
     * The consolidated metadata in the group document {@code group}, read from {@code key}; empty
     * when the group has none ({@code null}, absent, or a {@code kind} other than {@code "inline"},
     * which a reader may ignore since {@code must_understand} is false).
     *
     * @param group the group's metadata
     * @param key   the store key of the group's document, named in errors
     * @return the consolidated metadata, or empty
     * @throws InvalidMetadataException when the field is there but malformed
     */
    public static Optional<InlineConsolidatedMetadata> of(GroupMetadata group, String key) {
        Object field = group.extraFields().get(FIELD);
        if (!(field instanceof Map<?, ?>)) {
            return Optional.empty();
        }
        String where = Json.where(FIELD, key);
        Map<String, Object> cm = Json.object(field, where);
        if (!KIND_INLINE.equals(cm.get("kind"))) {
            return Optional.empty();
        }
        Map<String, Map<String, Object>> flat = new TreeMap<>();
        flatten("", Json.object(cm.get("metadata"), Json.child(where, "metadata")), where, flat);
        return Optional.of(new InlineConsolidatedMetadata(flat, "consolidated metadata of \"" + key + "\""));
    }

    /**
     * Consolidated metadata of the documents {@code nodes}. The documents are not validated here;
     * {@link #node} does that when one is opened.
     *
     * @param nodes relative path to the node's {@code zarr.json} object, of the plain JSON model;
     *              nested consolidated metadata in an entry is flattened into entries below it
     * @return the consolidated metadata
     * @throws InvalidMetadataException when a path is empty or starts or ends with {@code /}
     */
    public static InlineConsolidatedMetadata of(Map<String, Map<String, Object>> nodes) {
        Map<String, Map<String, Object>> flat = new TreeMap<>();
        flatten("", new LinkedHashMap<>(nodes), "consolidated metadata", flat);
        return new InlineConsolidatedMetadata(flat, "consolidated metadata");
    }

    private static void flatten(String prefix, Map<String, Object> metadata, String where,
                                Map<String, Map<String, Object>> out) {
        for (Map.Entry<String, Object> e : metadata.entrySet()) {
            String path = prefix + e.getKey();
            String w = Json.child(where, e.getKey());
            if (e.getKey().isEmpty() || e.getKey().startsWith("/") || e.getKey().endsWith("/")) {
                throw new InvalidMetadataException(w + ": \"" + e.getKey() + "\" is not a relative node path");
            }
            Map<String, Object> doc = new LinkedHashMap<>(Json.object(e.getValue(), w));
            Object nested = doc.remove(FIELD);
            if (!out.containsKey(path)) {
                out.put(path, doc);
            }
            if (nested instanceof Map<?, ?> n && KIND_INLINE.equals(n.get("kind")) && n.get("metadata") != null) {
                Map<String, Object> inner = Json.object(n, Json.child(w, FIELD));
                flatten(path + "/", Json.object(inner.get("metadata"), Json.child(w, FIELD + ".metadata")), w, out);
            }
        }
    }

    /**
     * Every node's path relative to the consolidating group, sorted.
     *
     * @return the paths, such as {@code ["surface", "surface/u10", "t2m"]}; immutable
     */
    public List<String> paths() {
        return List.copyOf(nodes.keySet());
    }

    /**
     * The {@code zarr.json} document of the node at relative {@code path}, if listed.
     *
     * @param path the node's path relative to the consolidating group
     * @return the document, of the plain JSON model, without nested consolidated metadata; empty
     *         when not listed
     */
    public Optional<Map<String, Object>> document(String path) {
        return Optional.ofNullable(nodes.get(path));
    }

    /**
     * The metadata of the node at relative {@code path}: an {@link ArrayMetadata} or a
     * {@link GroupMetadata}; empty when it is not listed.
     *
     * @param path the node's path relative to the consolidating group
     * @return the parsed metadata, or empty
     * @throws InvalidMetadataException when its document is invalid, naming it as
     *                                  {@code consolidated metadata of "zarr.json" ["t2m"]}
     */
    public Optional<Object> node(String path) {
        Map<String, Object> doc = nodes.get(path);
        return doc == null ? Optional.empty() : Optional.of(Metadata.parseNode(doc, source + " [\"" + path + "\"]"));
    }

    /**
     * The names of the direct children of the node at relative {@code path}, sorted.
     *
     * @param path the node's path relative to the consolidating group; {@code ""} for the group itself
     * @return the children's names (one path segment each); empty when there are none
     */
    public List<String> children(String path) {
        String prefix = path.isEmpty() ? "" : path + "/";
        TreeSet<String> out = new TreeSet<>();
        for (String p : nodes.keySet()) {
            if (p.startsWith(prefix) && p.length() > prefix.length()) {
                String rest = p.substring(prefix.length());
                int slash = rest.indexOf('/');
                out.add(slash < 0 ? rest : rest.substring(0, slash));
            }
        }
        return new ArrayList<>(out);
    }

    /**
     * The entries below the node at relative {@code path}, relative to it: the view a child group
     * opened from here uses.
     *
     * @param path the node's path relative to the consolidating group
     * @return the consolidated metadata of that subtree; empty of nodes when nothing is listed below
     */
    public InlineConsolidatedMetadata subtree(String path) {
        String prefix = path + "/";
        Map<String, Map<String, Object>> sub = new TreeMap<>();
        for (Map.Entry<String, Map<String, Object>> e : nodes.entrySet()) {
            if (e.getKey().startsWith(prefix)) {
                sub.put(e.getKey().substring(prefix.length()), e.getValue());
            }
        }
        return new InlineConsolidatedMetadata(sub, source + " below \"" + path + "\"");
    }

    /**
     * The value of the {@value #FIELD} field, flat as zarr-python writes it.
     *
     * @return a new map of the plain JSON model
     */
    public Map<String, Object> toJsonObject() {
        Map<String, Object> cm = new LinkedHashMap<>();
        cm.put("kind", KIND_INLINE);
        cm.put("must_understand", false);
        cm.put("metadata", new LinkedHashMap<>(nodes));
        return cm;
    }

    @Override
    public String toString() {
        return "InlineConsolidatedMetadata" + nodes.keySet();
    }
}
