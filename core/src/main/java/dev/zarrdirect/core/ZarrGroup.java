// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.NoSuchKeyException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.GroupMetadata;
import dev.zarrdirect.core.metadata.v2.V2Nodes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A Zarr v3 group: attributes and named members, which are arrays or groups. */
public final class ZarrGroup {

    private final ZarrContext ctx;
    private final Store store;
    private final String path;
    private final GroupMetadata metadata;

    ZarrGroup(ZarrContext ctx, Store store, String path, GroupMetadata metadata) {
        this.ctx = ctx;
        this.store = store;
        this.path = path;
        this.metadata = metadata;
    }

    public String path() {
        return path;
    }

    public Store store() {
        return store;
    }

    public Map<String, Object> attributes() {
        return metadata.attributes();
    }

    public GroupMetadata metadata() {
        return metadata;
    }

    /**
     * Names of the direct children that hold a {@code zarr.json} (or, Zarr v2, a {@code .zarray} or
     * {@code .zgroup}), sorted. When the store's root has a consolidated {@code .zmetadata}, the
     * children it lists.
     */
    public List<String> members() {
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

    /** Opens the child array or group {@code name} (or a deeper relative path). */
    public Object open(String name) {
        return Zarr.open(ctx, store, child(name));
    }

    public ZarrArray openArray(String name) {
        return Zarr.openArray(ctx, store, child(name));
    }

    public ZarrGroup openGroup(String name) {
        return Zarr.openGroup(ctx, store, child(name));
    }

    public ZarrArray createArray(String name, ArrayMetadata md) {
        return Zarr.createArray(ctx, store, child(name), md);
    }

    public ZarrGroup createGroup(String name, Map<String, Object> attributes) {
        return Zarr.createGroup(ctx, store, child(name), attributes);
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
