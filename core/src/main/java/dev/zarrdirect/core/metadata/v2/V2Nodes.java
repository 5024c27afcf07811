// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata.v2;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.NoSuchKeyException;
import dev.zarrdirect.api.NoSuchNodeException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.GroupMetadata;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Zarr v2 nodes in a store: reading a node's {@code .zarray} or {@code .zgroup} (with its
 * {@code .zattrs}), from the root's consolidated {@code .zmetadata} when that has them, writing them,
 * and consolidating a hierarchy.
 *
 * <p>Paths are normalised node paths ({@code ""} for the root, {@code "a/b"} otherwise); keys are
 * the path plus the document's name ({@code "a/b/.zarray"}).
 */
public final class V2Nodes {

    public static final String ZARRAY = ".zarray";
    public static final String ZGROUP = ".zgroup";
    public static final String ZATTRS = ".zattrs";
    /** The consolidated metadata, at the root of the store. */
    public static final String ZMETADATA = ".zmetadata";

    private V2Nodes() {
    }

    /** The key of document {@code name} ({@code .zarray}, ...) of the node at {@code path}. */
    public static String key(String path, String name) {
        return path.isEmpty() ? name : path + "/" + name;
    }

    /**
     * The v2 node at {@code path}: a {@link V2ArrayMetadata} or a {@link GroupMetadata}; empty when
     * neither the consolidated metadata nor the store holds a {@code .zarray} or {@code .zgroup} there.
     *
     * @throws InvalidMetadataException when a document is malformed, or a path holds both an array and a group
     */
    public static Optional<Object> read(Store store, String path) {
        Optional<ConsolidatedMetadata> consolidated = consolidated(store);
        if (consolidated.isPresent()) {
            Optional<Object> node = fromConsolidated(consolidated.get(), store, path);
            if (node.isPresent()) {
                return node;
            }
        }
        String arrayKey = key(path, ZARRAY);
        String groupKey = key(path, ZGROUP);
        Optional<String> array = readText(store, arrayKey);
        Optional<String> group = readText(store, groupKey);
        if (array.isPresent() && group.isPresent()) {
            throw new InvalidMetadataException("\"" + path + "\" in " + store + " holds both \"" + arrayKey
                    + "\" and \"" + groupKey + "\"; a node is an array or a group, not both");
        }
        if (array.isEmpty() && group.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Object> attributes = readText(store, key(path, ZATTRS))
                .map(t -> parseAttributes(t, key(path, ZATTRS))).orElse(Map.of());
        if (array.isPresent()) {
            return Optional.of(V2ArrayMetadata.parse(array.get(), arrayKey, attributes));
        }
        return Optional.of(parseGroup(group.get(), groupKey, attributes));
    }

    private static Optional<Object> fromConsolidated(ConsolidatedMetadata c, Store store, String path) {
        String where = " in " + ZMETADATA;
        Optional<Map<String, Object>> array = c.document(key(path, ZARRAY));
        Optional<Map<String, Object>> group = c.document(key(path, ZGROUP));
        if (array.isEmpty() && group.isEmpty()) {
            return Optional.empty();
        }
        if (array.isPresent() && group.isPresent()) {
            throw new InvalidMetadataException("\"" + ZMETADATA + "\" in " + store + " holds both \"" + key(path, ZARRAY)
                    + "\" and \"" + key(path, ZGROUP) + "\"; a node is an array or a group, not both");
        }
        Map<String, Object> attributes = c.document(key(path, ZATTRS)).orElse(Map.of());
        if (array.isPresent()) {
            return Optional.of(V2ArrayMetadata.fromJson(array.get(), key(path, ZARRAY) + where, attributes));
        }
        return Optional.of(groupFromJson(group.get(), key(path, ZGROUP) + where, attributes));
    }

    /** The root's consolidated metadata, if the store has a {@code .zmetadata}. */
    public static Optional<ConsolidatedMetadata> consolidated(Store store) {
        return readText(store, ZMETADATA).map(t -> ConsolidatedMetadata.parse(t, ZMETADATA));
    }

    /**
     * The children of the group at {@code path} as the consolidated metadata lists them; empty when
     * the store has no {@code .zmetadata}.
     */
    public static Optional<List<String>> consolidatedMembers(Store store, String path) {
        return consolidated(store).map(c -> c.children(path));
    }

    /** True when {@code path} holds a {@code .zarray} or a {@code .zgroup}. */
    public static boolean isNode(Store store, String path) {
        return store.exists(key(path, ZARRAY)) || store.exists(key(path, ZGROUP));
    }

    /**
     * The exception for a path that holds no node of either format; its {@link NoSuchKeyException#key()}
     * is the v3 {@code zarr.json} key, and its message lists every key looked for.
     */
    public static NoSuchNodeException notFound(Store store, String path, String v3Key) {
        List<String> keys = List.of(v3Key, key(path, ZARRAY), key(path, ZGROUP));
        String consolidated = store.exists(ZMETADATA) ? "; \"" + ZMETADATA + "\" has no entry for it either" : "";
        String message = "no Zarr array or group at \"/" + path + "\" in " + store + ": none of the keys "
                + keys.stream().map(k -> "\"" + k + "\"").toList() + " exists" + consolidated;
        return new NoSuchNodeException(store.toString(), path, keys, message);
    }

    /** Reads a {@code .zattrs}: a JSON object. */
    public static Map<String, Object> parseAttributes(String json, String key) {
        String what = "attributes \"" + key + "\"";
        return Json.object(Json.parse(json, what), what);
    }

    /** Reads a {@code .zgroup} ({@code {"zarr_format": 2}}) into the engine's group metadata. */
    public static GroupMetadata parseGroup(String json, String key, Map<String, Object> attributes) {
        String what = "group metadata \"" + key + "\"";
        return groupFromJson(Json.object(Json.parse(json, what), what), key, attributes);
    }

    private static GroupMetadata groupFromJson(Map<String, Object> doc, String key, Map<String, Object> attributes) {
        Object format = doc.get("zarr_format");
        if (!(format instanceof Long l && l == 2)) {
            throw new InvalidMetadataException(Json.where("zarr_format", key) + " must be 2 in a .zgroup, got "
                    + Json.describe(format) + " (members seen: " + doc.keySet() + ")");
        }
        return new GroupMetadata(attributes, Map.of());
    }

    /**
     * Writes the {@code .zarray} of {@code md} and its {@code .zattrs} (removed when the attributes are
     * empty) at {@code path}, replacing a v3 {@code zarr.json} there.
     */
    public static void writeArray(Store store, String path, V2ArrayMetadata md) {
        store.delete(key(path, ZGROUP));
        store.delete(key(path, "zarr.json"));
        writeText(store, key(path, ZARRAY), md.toZarrayJson());
        writeAttributes(store, path, md.attributes());
    }

    /** Writes a {@code .zgroup} and its {@code .zattrs} at {@code path}, replacing a v3 {@code zarr.json} there. */
    public static GroupMetadata writeGroup(Store store, String path, Map<String, Object> attributes) {
        GroupMetadata md = GroupMetadata.empty().withAttributes(attributes == null ? Map.of() : attributes);
        store.delete(key(path, ZARRAY));
        store.delete(key(path, "zarr.json"));
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("zarr_format", 2L);
        writeText(store, key(path, ZGROUP), Json.write(doc));
        writeAttributes(store, path, md.attributes());
        return md;
    }

    /** Writes {@code .zattrs} at {@code path}, or removes it when {@code attributes} is empty. */
    public static void writeAttributes(Store store, String path, Map<String, Object> attributes) {
        if (attributes.isEmpty()) {
            store.delete(key(path, ZATTRS));
        } else {
            writeText(store, key(path, ZATTRS), Json.write(attributes));
        }
    }

    /**
     * Writes the root {@code .zmetadata}: the {@code .zarray}, {@code .zgroup} and {@code .zattrs} of
     * every node, found by walking the hierarchy from the root (arrays are not descended into, so
     * chunk keys are never listed). Each document is parsed, so a malformed one fails here, naming its key.
     */
    public static ConsolidatedMetadata consolidate(Store store) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        walk(store, "", metadata);
        ConsolidatedMetadata c = new ConsolidatedMetadata(metadata);
        writeText(store, ZMETADATA, c.toJson());
        return c;
    }

    private static void walk(Store store, String path, Map<String, Object> metadata) {
        boolean array = false;
        for (String name : List.of(ZARRAY, ZGROUP, ZATTRS)) {
            String k = key(path, name);
            Optional<String> text = readText(store, k);
            if (text.isPresent()) {
                String what = "\"" + k + "\" in " + store;
                metadata.put(k, Json.object(Json.parse(text.get(), what), what));
                array |= name.equals(ZARRAY);
            }
        }
        if (array) {
            return;
        }
        String prefix = path.isEmpty() ? "" : path + "/";
        for (String e : store.listDir(prefix)) {
            if (e.endsWith("/")) {
                walk(store, e.substring(0, e.length() - 1), metadata);
            }
        }
    }

    static Optional<String> readText(Store store, String key) {
        try (Arena arena = Arena.ofConfined()) {
            return store.get(key, arena).map(seg -> new String(seg.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
        }
    }

    static void writeText(Store store, String key, String text) {
        store.set(key, MemorySegment.ofArray(text.getBytes(StandardCharsets.UTF_8)));
    }
}
