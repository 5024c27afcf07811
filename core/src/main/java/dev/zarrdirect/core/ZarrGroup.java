// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.NoSuchKeyException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.GroupMetadata;
import dev.zarrdirect.core.metadata.InlineConsolidatedMetadata;
import dev.zarrdirect.core.metadata.v2.V2Nodes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Zarr group (v3, or v2 read through {@code .zgroup}): attributes and named members, which are
 * arrays or groups.
 *
 * <h2>Ownership</h2>
 * A group opened from a location ({@link Zarr#openGroup(String)}, {@link Zarr#openGroup(String, String)})
 * owns the store it opened: {@link #close()} closes that store. Members opened from a group own
 * nothing; they use the group's store and must not be used after the group is closed. A group opened
 * on a store the caller passed in owns nothing, and closing it does nothing. No group closes its
 * {@link ZarrContext}. Closing twice is harmless.
 *
 * <p>A group holds its metadata as read when it was opened; {@link #members()} and {@link #open}
 * look at the store (or the consolidated metadata) on each call. Safe for use by many threads.
 *
 * {@snippet :
 * try (ZarrGroup root = Zarr.openGroup("/data/era5.zarr")) {
 *     for (String name : root.members()) {
 *         if (root.open(name) instanceof ZarrArray a) {
 *             System.out.println(name + " " + a);
 *         }
 *     }
 * }
 * }
 */
public final class ZarrGroup implements AutoCloseable {

    private final ZarrContext ctx;
    private final Store store;
    private final String path;
    private final GroupMetadata metadata;
    /** The store {@link #close()} closes: the one this group opened itself; null when the caller owns it. */
    private final java.util.concurrent.atomic.AtomicReference<Store> ownedStore =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** Consolidated metadata of the members (relative to this group); null when there is none. */
    private final InlineConsolidatedMetadata consolidated;

    /** A group whose consolidated metadata, if any, is the inline one of its own document. */
    ZarrGroup(ZarrContext ctx, Store store, String path, GroupMetadata metadata) {
        this(ctx, store, path, metadata, null);
    }

    /**
     * A group opened from a parent's consolidated metadata: {@code inherited} (the parent's entries
     * below this group) wins over this group's own; null to use its own.
     */
    ZarrGroup(ZarrContext ctx, Store store, String path, GroupMetadata metadata, InlineConsolidatedMetadata inherited) {
        this.ctx = ctx;
        this.store = store;
        this.path = path;
        this.metadata = metadata;
        this.consolidated = inherited != null ? inherited
                : InlineConsolidatedMetadata.of(metadata, Zarr.metadataKey(path)).orElse(null);
    }

    /**
     * The Zarr v3 consolidated metadata this group answers {@link #members()} and opens from: its own
     * inline {@code consolidated_metadata}, or for a group opened from a consolidated parent, the
     * parent's entries below it; empty when there is none.
     *
     * @return the consolidated metadata, or empty
     */
    public Optional<InlineConsolidatedMetadata> consolidatedMetadata() {
        return Optional.ofNullable(consolidated);
    }

    /** This group, now owning {@code owned}: {@link #close()} closes it. For {@link Zarr}'s openers from a location. */
    ZarrGroup owning(Store owned) {
        this.ownedStore.set(owned);
        return this;
    }

    /**
     * Whether this group owns its store.
     *
     * @return true when {@link #close()} closes this group's store (it was opened from a location
     *         and is not closed yet); false when the caller owns the store, or after {@link #close()}
     */
    public boolean ownsStore() {
        return ownedStore.get() != null;
    }

    /**
     * Closes the store this group opened itself, if any ({@link #ownsStore()}); otherwise does
     * nothing. Never closes the context. Closing twice is harmless.
     */
    @Override
    public void close() {
        Store s = ownedStore.getAndSet(null);
        if (s != null) {
            ctx.shardIndexCache().invalidateStore(s);
            s.close();
        }
    }

    /**
     * The path of the group in its store, without leading or trailing slashes.
     *
     * @return the path, {@code ""} for the root
     */
    public String path() {
        return path;
    }

    /**
     * The store the group lives in; owned by this group only when {@link #ownsStore()}.
     *
     * @return the store; do not close it unless you opened it
     */
    public Store store() {
        return store;
    }

    /**
     * The group's user attributes, as read when the group was opened or created.
     *
     * @return the attributes, values of the plain JSON model (maps, lists, strings, numbers,
     *         booleans, null)
     */
    public Map<String, Object> attributes() {
        return metadata.attributes();
    }

    /**
     * The group's metadata document, as read (for Zarr v2, built from {@code .zgroup} and
     * {@code .zattrs}).
     *
     * @return the metadata; immutable
     */
    public GroupMetadata metadata() {
        return metadata;
    }

    /**
     * Names of the direct children that hold a {@code zarr.json} (or, Zarr v2, a {@code .zarray} or
     * {@code .zgroup}), sorted. With Zarr v3 consolidated metadata ({@link #consolidatedMetadata()}),
     * or when the store's root has a consolidated {@code .zmetadata}, the children it lists, and the
     * store is neither listed nor read (so this works on stores that cannot list, such as HTTP).
     *
     * @return the names of the members, relative to this group; empty when there are none
     * @throws dev.zarrdirect.api.StoreException when the store must be listed and cannot be (an
     *         {@link dev.zarrdirect.core.store.http.HttpStore} without consolidated metadata)
     */
    public List<String> members() {
        if (consolidated != null) {
            return consolidated.children("");
        }
        // Zarr v2: consolidated metadata answers without listing the store.
        var consolidated = V2Nodes.consolidatedMembers(store, path);
        if (consolidated.isPresent()) {
            return consolidated.get();
        }
        List<String> out = new ArrayList<>();
        String prefix = path.isEmpty() ? "" : path + "/";
        for (String e : store.listDir(prefix)) {
            if (e.endsWith("/")) {
                String name = e.substring(prefix.length(), e.length() - 1);
                if (store.exists(prefix + name + "/zarr.json") || V2Nodes.isNode(store, prefix + name)) {
                    out.add(name);
                }
            }
        }
        return out;
    }

    /**
     * Opens the child array or group {@code name} (or a deeper relative path). The child owns
     * nothing: it lives as long as this group's store. When the group has consolidated metadata
     * listing the child, its metadata comes from there and the store is not read; otherwise from the
     * child's own document.
     *
     * @param name the child's name, or a relative path below this group ({@code "a/b"}); slashes at
     *             either end are dropped
     * @return a {@link ZarrArray} or a {@link ZarrGroup}, owning nothing
     * @throws dev.zarrdirect.api.NoSuchKeyException when {@code name} is empty
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code name}
     * @throws InvalidMetadataException when the child's metadata is invalid
     */
    public Object open(String name) {
        String rel = relative(name);
        if (consolidated != null) {
            Optional<Object> md = consolidated.node(rel);
            if (md.isPresent()) {
                String p = child(rel);
                if (md.get() instanceof ArrayMetadata a) {
                    return new ZarrArray(ctx, store, p, a, Map.of());
                }
                return new ZarrGroup(ctx, store, p, (GroupMetadata) md.get(), consolidated.subtree(rel));
            }
        }
        return Zarr.open(ctx, store, child(rel));
    }

    /**
     * Opens the child array {@code name} (or a deeper relative path); it owns nothing (see {@link #open}).
     *
     * @param name the child's name, or a relative path below this group
     * @return the array, owning nothing
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code name}
     * @throws InvalidMetadataException when the child is a group, or its metadata is invalid
     */
    public ZarrArray openArray(String name) {
        Object n = open(name);
        if (n instanceof ZarrArray a) {
            return a;
        }
        throw new InvalidMetadataException("\"" + Zarr.metadataKey(child(relative(name))) + "\" in " + store
                + " describes a group, not an array");
    }

    /**
     * Opens the child group {@code name} (or a deeper relative path); it owns nothing (see {@link #open}).
     *
     * @param name the child's name, or a relative path below this group
     * @return the group, owning nothing
     * @throws dev.zarrdirect.api.NoSuchNodeException when there is no node at {@code name}
     * @throws InvalidMetadataException when the child is an array, or its metadata is invalid
     */
    public ZarrGroup openGroup(String name) {
        Object n = open(name);
        if (n instanceof ZarrGroup g) {
            return g;
        }
        throw new InvalidMetadataException("\"" + Zarr.metadataKey(child(relative(name))) + "\" in " + store
                + " describes an array, not a group");
    }

    /**
     * Creates the child array {@code name}, as {@link Zarr#createArray(ZarrContext, Store, String, ArrayMetadata)};
     * it owns nothing. The array is Zarr v3 even in a Zarr v2 group. Consolidated metadata is not
     * updated.
     *
     * @param name the child's name, or a relative path below this group
     * @param md   the array's metadata
     * @return the new array, owning nothing
     * @throws dev.zarrdirect.api.MissingCodecException when a codec has no implementation
     * @throws InvalidMetadataException when the codec chain is invalid
     * @throws dev.zarrdirect.api.StoreException when the store is read-only, or writing fails
     */
    public ZarrArray createArray(String name, ArrayMetadata md) {
        return Zarr.createArray(ctx, store, child(name), md);
    }

    /**
     * Creates the child group {@code name}, as {@link Zarr#createGroup(ZarrContext, Store, String, Map)};
     * it owns nothing. The group is Zarr v3 even in a Zarr v2 group. Consolidated metadata is not
     * updated.
     *
     * @param name       the child's name, or a relative path below this group
     * @param attributes the group's attributes, values of the plain JSON model
     * @return the new group, owning nothing
     * @throws dev.zarrdirect.api.StoreException when the store is read-only, or writing fails
     */
    public ZarrGroup createGroup(String name, Map<String, Object> attributes) {
        return Zarr.createGroup(ctx, store, child(name), attributes);
    }

    /** {@code name} without leading or trailing slashes. */
    private static String relative(String name) {
        String n = name;
        while (n.startsWith("/")) {
            n = n.substring(1);
        }
        while (n.endsWith("/")) {
            n = n.substring(0, n.length() - 1);
        }
        return n;
    }

    private String child(String name) {
        if (name.isEmpty()) {
            throw new NoSuchKeyException(store.toString(), name);
        }
        return path.isEmpty() ? name : path + "/" + name;
    }

    @Override
    public String toString() {
        return "ZarrGroup[/" + path + "]";
    }
}
