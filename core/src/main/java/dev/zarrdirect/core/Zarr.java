// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.NoSuchKeyException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreKeys;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.GroupMetadata;
import dev.zarrdirect.core.metadata.InlineConsolidatedMetadata;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.Metadata;
import dev.zarrdirect.core.metadata.v2.ConsolidatedMetadata;
import dev.zarrdirect.core.metadata.v2.V2ArrayMetadata;
import dev.zarrdirect.core.metadata.v2.V2Nodes;
import dev.zarrdirect.core.store.Stores;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;

/**
 * Entry points: open and create arrays and groups.
 *
 * {@snippet :
 * try (Store store = FileSystemStore.create(dir)) {
 *     ZarrArray a = Zarr.createArray(store, "t2m", ArrayMetadata.create(new long[]{4, 721, 1440},
 *             DataType.FLOAT32, new long[]{1, 721, 1440}, FillValue.zero(DataType.FLOAT32),
 *             List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
 *                     CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false)))));
 *     try (Tensor t = a.read(Selection.parse("0:2", a.shape()))) {
 *         // t is a [2, 721, 1440] float32 host tensor
 *     }
 * }
 * }
 *
 * Methods without a {@link ZarrContext} use {@link ZarrContext#defaultContext()}.
 *
 * <h2>Ownership</h2>
 * The openers that take a location string ({@link #openArray(String)}, {@link #openGroup(String)}
 * and their forms with a path) open the store themselves, and the array or group they return owns
 * it: closing the node closes the store. Every method that takes a {@link Store} leaves it to the
 * caller, who closes it after the last use of the nodes opened on it. No method here closes a
 * {@link ZarrContext}.
 *
 * <h2>Paths</h2>
 * A node's path is its store key prefix without slashes at either end: {@code "t2m"},
 * {@code "group/t2m"}; {@code ""} (or null, or {@code "/"}) is the root. Leading and trailing
 * slashes are dropped; a path that is not a valid key ({@code ..}, empty segments) is refused with
 * {@link dev.zarrdirect.api.InvalidKeyException}.
 *
 * <h2>Errors</h2>
 * Every exception is unchecked and a {@link dev.zarrdirect.api.ZarrDirectException}, unless said
 * otherwise: {@link dev.zarrdirect.api.NoSuchNodeException} for a path without a node,
 * {@link InvalidMetadataException} for a document that cannot be understood or a node of the other
 * kind, {@link dev.zarrdirect.api.MissingCodecException} for a codec without an implementation,
 * {@link dev.zarrdirect.api.StoreException} for the store's own failures.
 *
 * <p>This class has only static methods and no state; they are safe to call from any thread.
 */
public final class Zarr {
    private Zarr() {
    }

    /**
     * The key of the Zarr v3 metadata document of the node at {@code path}: {@code "zarr.json"} for
     * the root, else {@code path + "/zarr.json"}. The path is used as it is, not normalised.
     *
     * @param path the node's path, {@code ""} for the root; not null
     * @return the key of its {@code zarr.json}
     */
    public static String metadataKey(String path) {
        return path.isEmpty() ? "zarr.json" : path + "/zarr.json";
    }

    /**
     * Opens whatever is at {@code path}: a {@link ZarrArray} or a {@link ZarrGroup}. Without a
     * {@code zarr.json} there, a Zarr v2 node is looked for: in the root's {@code .zmetadata},
     * then as {@code .zarray} or {@code .zgroup}.
     *
     * <p>The node does not own {@code store}: the caller closes the store after the last use of the
     * node. Prefer {@link #openArray(ZarrContext, Store, String)} or
     * {@link #openGroup(ZarrContext, Store, String)} when the kind is known.
     *
     * @param ctx   the context the node reads and writes on; not closed by the node
     * @param store the store holding the node
     * @param path  the node's path ({@code ""} or null for the root)
     * @return a {@link ZarrArray} or a {@link ZarrGroup}
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node of either format at
     *         {@code path}; it names every key looked for
     * @throws InvalidMetadataException when the metadata document is invalid, or a Zarr v2 path holds
     *         both a {@code .zarray} and a {@code .zgroup}
     * @throws dev.zarrdirect.api.MissingCodecException when an array's codec has no implementation
     * @throws dev.zarrdirect.api.InvalidKeyException when {@code path} is not a valid key
     * @throws dev.zarrdirect.api.StoreException when the store fails to read
     */
    public static Object open(ZarrContext ctx, Store store, String path) {
        String p = normalise(store, path);
        String key = metadataKey(p);
        Optional<String> text = readText(store, key);
        if (text.isEmpty()) {
            return openV2(ctx, store, p, key);
        }
        String json = text.get();
        Object md = Metadata.parseNode(json, key);
        if (md instanceof ArrayMetadata a) {
            return new ZarrArray(ctx, store, p, a, Map.of());
        }
        return new ZarrGroup(ctx, store, p, (GroupMetadata) md);
    }

    /**
     * As {@link #open(ZarrContext, Store, String)} on the {@linkplain ZarrContext#defaultContext() default context}.
     * The caller closes {@code store}.
     *
     * @param store the store holding the node
     * @param path  the node's path ({@code ""} or null for the root)
     * @return a {@link ZarrArray} or a {@link ZarrGroup}
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code path}
     * @throws InvalidMetadataException when the metadata document is invalid
     */
    public static Object open(Store store, String path) {
        return open(ZarrContext.defaultContext(), store, path);
    }

    /**
     * Opens a local directory, file: URI or other location {@link Stores#open} understands; the root node.
     *
     * @deprecated the store opened here is closed by nobody, and the result is untyped; use
     * {@link #openArray(String)}, {@link #openGroup(String)} (or their forms with a path), whose
     * result owns the store and closes it, or open the store yourself and call {@link #open(Store, String)}.
     * @param location a directory path, {@code file:} URI, zip file or http(s) URL
     * @return the root node: a {@link ZarrArray} or a {@link ZarrGroup}, owning nothing
     * @throws dev.zarrdirect.api.StoreException when the location cannot be opened
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at the root
     */
    @Deprecated(since = "0.1.0")
    public static Object open(String location) {
        return open(Stores.open(location), "");
    }

    /**
     * Opens the store at {@code location} (anything {@link Stores#open} understands: a directory, a
     * {@code file:} URI, a zip file, an http(s) URL) whose root node is an array, on the default
     * context. The array owns the store: close the array to close it.
     *
     * {@snippet :
     * try (ZarrArray a = Zarr.openArray("/data/one-array.zarr")) {
     *     a.shape();
     * }
     * }
     *
     * @param location a directory path, {@code file:} URI, zip file or http(s) URL
     * @return the root array, owning its store; the caller closes it
     * @throws dev.zarrdirect.api.StoreException when the location cannot be opened (unknown scheme,
     *         missing file), or reading fails
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at the root
     * @throws InvalidMetadataException when the root is a group, or its metadata is invalid
     */
    public static ZarrArray openArray(String location) {
        return openArray(location, "");
    }

    /**
     * Opens the store at {@code storeLocation} (as {@link #openArray(String)}) and the array at
     * {@code arrayPath} in it ({@code "t2m"}, {@code "group/t2m"}; {@code ""} for the root), on the
     * default context. The array owns the store: close the array to close it. On failure the store
     * is closed before the exception is thrown.
     *
     * @param storeLocation a directory path, {@code file:} URI, zip file or http(s) URL
     * @param arrayPath     the array's path in the store, {@code ""} for the root
     * @return the array, owning its store; the caller closes it
     * @throws dev.zarrdirect.api.StoreException when the location cannot be opened, or reading fails
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code arrayPath}
     * @throws InvalidMetadataException when the node is a group, or its metadata is invalid
     */
    public static ZarrArray openArray(String storeLocation, String arrayPath) {
        return withOpenedStore(storeLocation, store -> openArray(store, arrayPath).owning(store));
    }

    /**
     * Opens the store at {@code location} (as {@link #openArray(String)}) whose root node is a group,
     * on the default context. The group owns the store: close the group to close it; members opened
     * from it must not be used after that.
     *
     * @param location a directory path, {@code file:} URI, zip file or http(s) URL
     * @return the root group, owning its store; the caller closes it
     * @throws dev.zarrdirect.api.StoreException when the location cannot be opened, or reading fails
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at the root
     * @throws InvalidMetadataException when the root is an array, or its metadata is invalid
     */
    public static ZarrGroup openGroup(String location) {
        return openGroup(location, "");
    }

    /**
     * Opens the store at {@code storeLocation} and the group at {@code groupPath} in it ({@code ""}
     * for the root), on the default context. The group owns the store: close the group to close it.
     * On failure the store is closed before the exception is thrown. Members opened from the group
     * must not be used after it is closed.
     *
     * @param storeLocation a directory path, {@code file:} URI, zip file or http(s) URL
     * @param groupPath     the group's path in the store, {@code ""} for the root
     * @return the group, owning its store; the caller closes it
     * @throws dev.zarrdirect.api.StoreException when the location cannot be opened, or reading fails
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code groupPath}
     * @throws InvalidMetadataException when the node is an array, or its metadata is invalid
     */
    public static ZarrGroup openGroup(String storeLocation, String groupPath) {
        return withOpenedStore(storeLocation, store -> openGroup(store, groupPath).owning(store));
    }

    /** Opens the store at {@code location} and hands it to {@code open}; closes it if that fails. */
    private static <T> T withOpenedStore(String location, java.util.function.Function<Store, T> open) {
        Store store = Stores.open(location);
        try {
            return open.apply(store);
        } catch (RuntimeException | Error e) {
            store.close();
            throw e;
        }
    }

    /**
     * Opens the array at {@code path} of {@code store} on {@code ctx}. The array does not own the
     * store: the caller closes it, after the last use of the array.
     *
     * @param ctx   the context the array reads and writes on; not closed by the array
     * @param store the store holding the array
     * @param path  the array's path ({@code ""} or null for the root)
     * @return the array, owning nothing
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code path}
     * @throws InvalidMetadataException when the node is a group, or its metadata is invalid
     * @throws dev.zarrdirect.api.MissingCodecException when a codec of the array has no implementation
     */
    public static ZarrArray openArray(ZarrContext ctx, Store store, String path) {
        Object n = open(ctx, store, path);
        if (n instanceof ZarrArray a) {
            return a;
        }
        throw new InvalidMetadataException("\"" + metadataKey(normalise(store, path)) + "\" in " + store
                + " describes a group, not an array");
    }

    /**
     * As {@link #openArray(ZarrContext, Store, String)} on the default context; the caller closes the store.
     *
     * @param store the store holding the array
     * @param path  the array's path ({@code ""} or null for the root)
     * @return the array, owning nothing
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code path}
     * @throws InvalidMetadataException when the node is a group, or its metadata is invalid
     */
    public static ZarrArray openArray(Store store, String path) {
        return openArray(ZarrContext.defaultContext(), store, path);
    }

    /**
     * Opens the group at {@code path} of {@code store} on {@code ctx}. The group does not own the
     * store: the caller closes it, after the last use of the group and its members.
     *
     * @param ctx   the context the group and its members read and write on; not closed by them
     * @param store the store holding the group
     * @param path  the group's path ({@code ""} or null for the root)
     * @return the group, owning nothing
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code path}
     * @throws InvalidMetadataException when the node is an array, or its metadata is invalid
     */
    public static ZarrGroup openGroup(ZarrContext ctx, Store store, String path) {
        Object n = open(ctx, store, path);
        if (n instanceof ZarrGroup g) {
            return g;
        }
        throw new InvalidMetadataException("\"" + metadataKey(normalise(store, path)) + "\" in " + store
                + " describes an array, not a group");
    }

    /**
     * As {@link #openGroup(ZarrContext, Store, String)} on the default context; the caller closes the store.
     *
     * @param store the store holding the group
     * @param path  the group's path ({@code ""} or null for the root)
     * @return the group, owning nothing
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code path}
     * @throws InvalidMetadataException when the node is an array, or its metadata is invalid
     */
    public static ZarrGroup openGroup(Store store, String path) {
        return openGroup(ZarrContext.defaultContext(), store, path);
    }

    /**
     * Creates (or replaces the metadata of) the array at {@code path}. The codec chain is resolved
     * first, so an unknown codec or a bad configuration fails before anything is written. Only the
     * {@code zarr.json} is written: chunks already under {@code path} stay, and are read as they are
     * (call {@link #delete} first for a fresh array). No parent group is created, and nothing
     * checks that one exists.
     *
     * @param ctx   the context the array reads and writes on; not closed by the array
     * @param store the store to write into; the caller closes it
     * @param path  the array's path ({@code ""} or null for the root)
     * @param md    the array's metadata, written as its {@code zarr.json}
     * @return the new array, owning nothing
     * @throws dev.zarrdirect.api.MissingCodecException when a codec has no implementation
     * @throws InvalidMetadataException when the codec chain is invalid (no array-to-bytes codec, a
     *         configuration a codec refuses)
     * @throws dev.zarrdirect.api.StoreException when the store is read-only, or writing fails
     */
    public static ZarrArray createArray(ZarrContext ctx, Store store, String path, ArrayMetadata md) {
        String p = normalise(store, path);
        ZarrArray a = new ZarrArray(ctx, store, p, md, Map.of());
        writeText(store, metadataKey(p), md.toJson());
        return a;
    }

    /**
     * Creates the array described by {@code md} as the root of a new directory store at
     * {@code location} (a path or {@code file:} URI; the directory and its parents are created), on
     * the default context. The array owns the store: close the array to close it.
     *
     * {@snippet :
     * ArrayMetadata md = ArrayMetadata.builder(new long[] {4, 721, 1440}, DataType.FLOAT32)
     *         .chunks(1, 721, 1440).compressors(Codecs.zstd(3)).build();
     * try (ZarrArray a = Zarr.createArray("/data/t2m.zarr", md)) {
     *     a.write(tensor);
     * }
     * }
     *
     * <p>An existing directory is used as it is: only {@code zarr.json} is replaced, and chunks
     * already there stay and are read as they are. On failure the store is closed; a directory that
     * was created stays.
     *
     * @param location a local directory path or {@code file:} URI; other schemes are refused
     * @param md       the array's metadata, written as the root's {@code zarr.json}
     * @return the new array, owning its store; the caller closes it
     * @throws dev.zarrdirect.api.StoreException when the location is not a local directory or cannot
     *                                           be created, or writing fails
     * @throws dev.zarrdirect.api.MissingCodecException when a codec of {@code md} is unknown
     * @throws InvalidMetadataException when the codec chain is invalid (no array-to-bytes codec, a
     *         configuration a codec refuses)
     */
    public static ZarrArray createArray(String location, ArrayMetadata md) {
        java.nio.file.Path dir;
        if (location.regionMatches(true, 0, "file:", 0, 5)) {
            try {
                dir = java.nio.file.Path.of(java.net.URI.create(location));
            } catch (IllegalArgumentException e) {
                throw new dev.zarrdirect.api.StoreException(location, null, "cannot create \"" + location
                        + "\": not a valid file: URI (" + e.getMessage() + ")", e);
            }
        } else if (location.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
            throw new dev.zarrdirect.api.StoreException(location, null, "cannot create \"" + location
                    + "\": only local directories are writable by location; open another store yourself and call"
                    + " createArray(store, path, md)");
        } else {
            try {
                dir = java.nio.file.Path.of(location);
            } catch (java.nio.file.InvalidPathException e) {
                throw new dev.zarrdirect.api.StoreException(location, null, "cannot create \"" + location
                        + "\": not a valid path (" + e.getMessage() + ")", e);
            }
        }
        Store store = dev.zarrdirect.core.store.fs.FileSystemStore.create(dir);
        try {
            return createArray(store, "", md).owning(store);
        } catch (RuntimeException | Error e) {
            store.close();
            throw e;
        }
    }

    /**
     * As {@link #createArray(ZarrContext, Store, String, ArrayMetadata)} on the default context.
     *
     * @param store the store to write into; the caller closes it
     * @param path  the array's path ({@code ""} or null for the root)
     * @param md    the array's metadata
     * @return the new array, owning nothing
     * @throws dev.zarrdirect.api.MissingCodecException when a codec has no implementation
     * @throws InvalidMetadataException when the codec chain is invalid
     */
    public static ZarrArray createArray(Store store, String path, ArrayMetadata md) {
        return createArray(ZarrContext.defaultContext(), store, path, md);
    }

    /**
     * Creates (or replaces the metadata of) the Zarr v3 group at {@code path}: writes its
     * {@code zarr.json}. Members already below it stay.
     *
     * @param ctx        the context the group and its members use; not closed by them
     * @param store      the store to write into; the caller closes it
     * @param path       the group's path ({@code ""} or null for the root)
     * @param attributes the group's attributes, values of the plain JSON model (maps, lists,
     *                   strings, numbers, booleans, null); copied
     * @return the new group, owning nothing
     * @throws dev.zarrdirect.api.StoreException when writing fails
     */
    public static ZarrGroup createGroup(ZarrContext ctx, Store store, String path, Map<String, Object> attributes) {
        String p = normalise(store, path);
        GroupMetadata md = GroupMetadata.empty().withAttributes(attributes);
        writeText(store, metadataKey(p), md.toJson());
        return new ZarrGroup(ctx, store, p, md);
    }

    /**
     * As {@link #createGroup(ZarrContext, Store, String, Map)} on the default context.
     *
     * @param store      the store to write into; the caller closes it
     * @param path       the group's path ({@code ""} or null for the root)
     * @param attributes the group's attributes
     * @return the new group, owning nothing
     */
    public static ZarrGroup createGroup(Store store, String path, Map<String, Object> attributes) {
        return createGroup(ZarrContext.defaultContext(), store, path, attributes);
    }

    // ---- Zarr v2 (the documents are read and written by dev.zarrdirect.core.metadata.v2) ----

    /**
     * Opens the Zarr v2 node at {@code p}: from the root's {@code .zmetadata} when it lists the node,
     * else from the node's {@code .zarray} or {@code .zgroup} (and {@code .zattrs}).
     *
     * @throws NoSuchKeyException naming every key looked for, when there is no node of either format
     */
    private static Object openV2(ZarrContext ctx, Store store, String p, String v3Key) {
        Object md = V2Nodes.read(store, p).orElseThrow(() -> V2Nodes.notFound(store, p, v3Key));
        if (md instanceof V2ArrayMetadata a) {
            return new ZarrArray(ctx, store, p, a, Map.of());
        }
        return new ZarrGroup(ctx, store, p, (GroupMetadata) md);
    }

    /**
     * Creates (or replaces the metadata of) a Zarr v2 array: writes {@code .zarray}, and
     * {@code .zattrs} when there are attributes; chunks get v2 keys ({@code 0.3.1} or {@code 0/3/1}).
     * The codec chain is resolved first, so a codec without an implementation fails before anything
     * is written. A root {@code .zmetadata} is not updated: call {@link #consolidate} afterwards.
     *
     * @param ctx   the context the array reads and writes on; not closed by the array
     * @param store the store to write into; the caller closes it
     * @param path  the array's path ({@code ""} or null for the root)
     * @param md    the {@code .zarray} (and {@code .zattrs}) to write
     * @return the new array, owning nothing; its {@link ZarrArray#zarrFormat()} is 2
     * @throws dev.zarrdirect.api.MissingCodecException when a codec has no implementation
     * @throws InvalidMetadataException when the codec chain is invalid
     * @throws dev.zarrdirect.api.StoreException when writing fails
     */
    public static ZarrArray createArrayV2(ZarrContext ctx, Store store, String path, V2ArrayMetadata md) {
        String p = normalise(store, path);
        ZarrArray a = new ZarrArray(ctx, store, p, md, Map.of());
        V2Nodes.writeArray(store, p, md);
        return a;
    }

    /**
     * As {@link #createArrayV2(ZarrContext, Store, String, V2ArrayMetadata)} on the default context.
     *
     * @param store the store to write into; the caller closes it
     * @param path  the array's path ({@code ""} or null for the root)
     * @param md    the {@code .zarray} (and {@code .zattrs}) to write
     * @return the new array, owning nothing
     */
    public static ZarrArray createArrayV2(Store store, String path, V2ArrayMetadata md) {
        return createArrayV2(ZarrContext.defaultContext(), store, path, md);
    }

    /**
     * Creates (or replaces the metadata of) a Zarr v2 group: {@code .zgroup}, and {@code .zattrs} when
     * there are attributes. A root {@code .zmetadata} is not updated: call {@link #consolidate} afterwards.
     *
     * @param ctx        the context the group and its members use; not closed by them
     * @param store      the store to write into; the caller closes it
     * @param path       the group's path ({@code ""} or null for the root)
     * @param attributes the group's attributes, values of the plain JSON model
     * @return the new group, owning nothing
     * @throws dev.zarrdirect.api.StoreException when writing fails
     */
    public static ZarrGroup createGroupV2(ZarrContext ctx, Store store, String path, Map<String, Object> attributes) {
        String p = normalise(store, path);
        return new ZarrGroup(ctx, store, p, V2Nodes.writeGroup(store, p, attributes));
    }

    /**
     * As {@link #createGroupV2(ZarrContext, Store, String, Map)} on the default context.
     *
     * @param store      the store to write into; the caller closes it
     * @param path       the group's path ({@code ""} or null for the root)
     * @param attributes the group's attributes
     * @return the new group, owning nothing
     */
    public static ZarrGroup createGroupV2(Store store, String path, Map<String, Object> attributes) {
        return createGroupV2(ZarrContext.defaultContext(), store, path, attributes);
    }

    /**
     * Writes the Zarr v2 consolidated metadata {@code .zmetadata} at the root of {@code store}: every
     * {@code .zarray}, {@code .zgroup} and {@code .zattrs} of the hierarchy. Opening then reads nodes
     * from it; it is a snapshot, so consolidate again after changing metadata.
     *
     * @param store the store whose whole hierarchy is consolidated; must be able to list
     * @return what was written
     * @throws InvalidMetadataException when a document of the hierarchy is invalid
     * @throws dev.zarrdirect.api.StoreException when reading, listing or writing fails
     */
    public static ConsolidatedMetadata consolidate(Store store) {
        return V2Nodes.consolidate(store);
    }

    /**
     * Writes Zarr v3 consolidated metadata into the {@code zarr.json} of the v3 group at
     * {@code groupPath} ({@code ""} for the root), as zarr-python 3 does: the field
     * {@code "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {...}}}
     * holding the {@code zarr.json} of every node below the group, keyed by its path relative to the
     * group. A group opened afterwards lists and opens its members from it without reading the store
     * ({@link ZarrGroup#members()}). It is a snapshot: consolidate again after changing metadata. An
     * earlier consolidated field of that group is replaced; those of groups below are left as they
     * are and not copied. The store is listed once and each {@code zarr.json} below read and
     * validated before anything is written.
     *
     * @param store     the store holding the group; must be able to list
     * @param groupPath the group's path ({@code ""} or null for the root)
     * @return what was written
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code groupPath}
     * @throws InvalidMetadataException when the node is an array or a Zarr v2 group (for v2 use
     *                                  {@link #consolidate(Store)}), or a document below is invalid
     */
    public static InlineConsolidatedMetadata consolidateV3(Store store, String groupPath) {
        String p = normalise(store, groupPath);
        String key = metadataKey(p);
        Optional<String> text = readText(store, key);
        if (text.isEmpty()) {
            Object node = open(store, p); // throws NoSuchNodeException when there is nothing
            throw new InvalidMetadataException("cannot write Zarr v3 consolidated metadata for " + node + " in " + store
                    + ": it is a Zarr v2 node; use Zarr.consolidate(store) to write .zmetadata");
        }
        if (!(Metadata.parseNode(text.get(), key) instanceof GroupMetadata group)) {
            throw new InvalidMetadataException("cannot write consolidated metadata into \"" + key + "\" in " + store
                    + ": it describes an array, not a group");
        }
        String prefix = p.isEmpty() ? "" : p + "/";
        Map<String, Map<String, Object>> nodes = new TreeMap<>();
        for (String k : store.list(prefix)) {
            if (!k.endsWith("/zarr.json") || k.equals(key)) {
                continue; // a chunk or other key, or the group's own document
            }
            String rel = k.substring(prefix.length(), k.length() - "/zarr.json".length());
            String doc = readText(store, k).orElse(null);
            if (doc == null) {
                continue; // deleted meanwhile
            }
            String what = "metadata \"" + k + "\"";
            Map<String, Object> obj = Json.object(Json.parse(doc, what), what);
            Metadata.parseNode(obj, k); // refuse to consolidate what could not be opened
            nodes.put(rel, obj);
        }
        InlineConsolidatedMetadata c = InlineConsolidatedMetadata.of(nodes);
        Map<String, Object> extra = new LinkedHashMap<>(group.extraFields());
        extra.put(InlineConsolidatedMetadata.FIELD, c.toJsonObject());
        writeText(store, key, new GroupMetadata(group.attributes(), extra).toJson());
        return c;
    }

    /**
     * Deletes every key of the node at {@code path} (for the root: the whole store): its metadata,
     * its chunks and, for a group, every node below it. A missing node is not an error. Arrays and
     * groups opened on it before keep their metadata in memory; reads then see fill values.
     *
     * @param store the store to delete from
     * @param path  the node's path ({@code ""} or null for the whole store)
     * @throws dev.zarrdirect.api.StoreException when deleting fails
     */
    public static void delete(Store store, String path) {
        String p = normalise(store, path);
        store.deletePrefix(p.isEmpty() ? "" : p + "/");
    }

    private static String normalise(Store store, String path) {
        String p = path == null ? "" : path;
        while (p.startsWith("/")) {
            p = p.substring(1);
        }
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (!p.isEmpty()) {
            StoreKeys.validate(store.toString(), p);
        }
        return p;
    }

    static Optional<String> readText(Store store, String key) {
        return dev.zarrdirect.core.store.Stores.readMetadataText(store, key);
    }

    static void writeText(Store store, String key, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        store.set(key, MemorySegment.ofArray(b));
    }
}
