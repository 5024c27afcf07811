// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata.v2;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.NoSuchKeyException;
import dev.zarrdirect.api.NoSuchNodeException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.GroupMetadata;

import java.lang.foreign.MemorySegment;
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
 * the path plus the document's name ({@code "a/b/.zarray"}). Nothing here checks or normalises a
 * path: {@link dev.zarrdirect.core.Zarr} does that before calling.
 *
 * <p>The store is the caller's: nothing here closes it. Store failures propagate as the store throws
 * them ({@link dev.zarrdirect.api.StoreException} and its subclasses). Writes are not atomic across
 * documents, and nothing here updates a {@code .zmetadata}: call {@link #consolidate} again after
 * writing. Stateless and thread-safe, as far as the store is.
 */
public final class V2Nodes {

    /** The name of an array's metadata document. */
    public static final String ZARRAY = ".zarray";
    /** The name of a group's metadata document. */
    public static final String ZGROUP = ".zgroup";
    /** The name of a node's attributes document, present only when it has attributes. */
    public static final String ZATTRS = ".zattrs";
    /** The consolidated metadata, at the root of the store. */
    public static final String ZMETADATA = ".zmetadata";

    private V2Nodes() {
    }

    /**
     * The key of document {@code name} ({@code .zarray}, ...) of the node at {@code path}.
     *
     * @param path a node path, {@code ""} for the root
     * @param name a document name such as {@link #ZARRAY}
     * @return {@code name} for the root, else {@code path + "/" + name}
     */
    public static String key(String path, String name) {
        return path.isEmpty() ? name : path + "/" + name;
    }

    /**
     * The v2 node at {@code path}: a {@link V2ArrayMetadata} or a {@link GroupMetadata}; empty when
     * neither the consolidated metadata nor the store holds a {@code .zarray} or {@code .zgroup} there.
     * A node that the root's {@code .zmetadata} lists is read from it (documents written since it was
     * consolidated are not seen); any other is read from its own documents.
     *
     * @param store where the node is; not closed
     * @param path  the node's path, {@code ""} for the root
     * @return the node's metadata, with its attributes; empty when there is no v2 node at {@code path}
     * @throws InvalidMetadataException when a document (the {@code .zmetadata} included) is malformed,
     *                                  or a path holds both an array and a group
     * @throws dev.zarrdirect.api.StoreException when the store fails
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

    /**
     * The root's consolidated metadata, if the store has a {@code .zmetadata}. Read and parsed on
     * every call.
     *
     * @param store where to look; not closed
     * @return the snapshot, or empty when there is no {@code .zmetadata}
     * @throws InvalidMetadataException when the {@code .zmetadata} is malformed
     * @throws dev.zarrdirect.api.StoreException when the store fails
     */
    public static Optional<ConsolidatedMetadata> consolidated(Store store) {
        return readText(store, ZMETADATA).map(t -> ConsolidatedMetadata.parse(t, ZMETADATA));
    }

    /**
     * The children of the group at {@code path} as the consolidated metadata lists them; empty when
     * the store has no {@code .zmetadata}.
     *
     * @param store where to look; not closed
     * @param path  the group's path, {@code ""} for the root
     * @return the members' names, sorted (an empty list when the snapshot lists none), or empty when
     *         there is no {@code .zmetadata}
     * @throws InvalidMetadataException when the {@code .zmetadata} is malformed
     * @throws dev.zarrdirect.api.StoreException when the store fails
     */
    public static Optional<List<String>> consolidatedMembers(Store store, String path) {
        return consolidated(store).map(c -> c.children(path));
    }

    /**
     * Whether {@code path} holds a {@code .zarray} or a {@code .zgroup} in the store itself; the
     * {@code .zmetadata} is not consulted and nothing is parsed.
     *
     * @param store where to look; not closed
     * @param path  the node's path, {@code ""} for the root
     * @return true when either key exists
     * @throws dev.zarrdirect.api.StoreException when the store fails
     */
    public static boolean isNode(Store store, String path) {
        return store.exists(key(path, ZARRAY)) || store.exists(key(path, ZGROUP));
    }

    /**
     * The exception for a path that holds no node of either format; its {@link NoSuchKeyException#key()}
     * is the v3 {@code zarr.json} key, and its message lists every key looked for. Returned, not
     * thrown: the caller throws it.
     *
     * @param store the store looked in, named in the message; it is asked whether a {@code .zmetadata}
     *              exists
     * @param path  the node's path, {@code ""} for the root
     * @param v3Key the {@code zarr.json} key that was looked for
     * @return a new exception whose {@link NoSuchNodeException#keysTried()} are {@code v3Key}, the
     *         {@code .zarray} and the {@code .zgroup} keys
     */
    public static NoSuchNodeException notFound(Store store, String path, String v3Key) {
        List<String> keys = List.of(v3Key, key(path, ZARRAY), key(path, ZGROUP));
        String consolidated = store.exists(ZMETADATA) ? "; \"" + ZMETADATA + "\" has no entry for it either" : "";
        String message = "no Zarr array or group at \"/" + path + "\" in " + store + ": none of the keys "
                + keys.stream().map(k -> "\"" + k + "\"").toList() + " exists" + consolidated;
        return new NoSuchNodeException(store.toString(), path, keys, message);
    }

    /**
     * Reads a {@code .zattrs}: a JSON object.
     *
     * @param json the document's text
     * @param key  its store key, named in errors
     * @return the attributes in the metadata value model (a mutable map, not copied further)
     * @throws InvalidMetadataException naming {@code key}, when the text is not one JSON object
     */
    public static Map<String, Object> parseAttributes(String json, String key) {
        String what = "attributes \"" + key + "\"";
        return Json.object(Json.parse(json, what), what);
    }

    /**
     * Reads a {@code .zgroup} ({@code {"zarr_format": 2}}) into the engine's group metadata. Other
     * members are allowed and dropped.
     *
     * @param json       the document's text
     * @param key        its store key, named in errors
     * @param attributes the group's {@code .zattrs}, empty when there is none
     * @return group metadata holding {@code attributes} and nothing else
     * @throws InvalidMetadataException naming {@code key}, when the text is not one JSON object or its
     *                                  {@code zarr_format} is not 2
     */
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
     * empty) at {@code path}, replacing a v3 {@code zarr.json} there. A {@code .zgroup} at
     * {@code path} is deleted; chunks already stored are left alone.
     *
     * @param store where to write; not closed
     * @param path  the array's path, {@code ""} for the root
     * @param md    the metadata to write
     * @throws dev.zarrdirect.api.StoreException when the store fails or is read-only
     */
    public static void writeArray(Store store, String path, V2ArrayMetadata md) {
        store.delete(key(path, ZGROUP));
        store.delete(key(path, "zarr.json"));
        writeText(store, key(path, ZARRAY), md.toZarrayJson());
        writeAttributes(store, path, md.attributes());
    }

    /**
     * Writes a {@code .zgroup} and its {@code .zattrs} at {@code path}, replacing a v3 {@code zarr.json}
     * there. A {@code .zarray} at {@code path} is deleted (its chunks are left alone).
     *
     * @param store      where to write; not closed
     * @param path       the group's path, {@code ""} for the root
     * @param attributes the group's attributes, or null for none
     * @return the group's metadata as written
     * @throws dev.zarrdirect.api.StoreException when the store fails or is read-only
     */
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

    /**
     * Writes {@code .zattrs} at {@code path}, or removes it when {@code attributes} is empty.
     *
     * @param store      where to write; not closed
     * @param path       the node's path, {@code ""} for the root
     * @param attributes the attributes in the metadata value model, not null
     * @throws dev.zarrdirect.api.StoreException when the store fails or is read-only
     * @throws IllegalArgumentException          when {@code attributes} holds a value JSON cannot write
     *                                           (NaN, infinities, objects outside the model)
     */
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
     * chunk keys are never listed). Each document is parsed as JSON, so one that is not a JSON object
     * fails here, naming its key; documents are not otherwise checked. Directories that hold no v2
     * array are walked, v3 nodes' included.
     *
     * @param store the hierarchy's store, written at its root; not closed
     * @return the snapshot written
     * @throws InvalidMetadataException when a document is not a JSON object
     * @throws dev.zarrdirect.api.StoreException when the store fails or is read-only
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
        return dev.zarrdirect.core.store.Stores.readMetadataText(store, key);
    }

    static void writeText(Store store, String key, String text) {
        store.set(key, MemorySegment.ofArray(text.getBytes(StandardCharsets.UTF_8)));
    }
}
