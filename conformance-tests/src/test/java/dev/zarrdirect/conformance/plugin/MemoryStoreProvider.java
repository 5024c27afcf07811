// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.plugin;

import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreOptions;
import dev.zarrdirect.api.store.StoreProvider;
import dev.zarrdirect.core.store.memory.MemoryStore;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A third-party store plugin, as a user would write one against the api alone: {@code zdmem://NAME}
 * is a memory store shared by every open of that name. Listed in this module's
 * {@code META-INF/services}; it records the options of the last open so that a test sees them pass.
 */
public final class MemoryStoreProvider implements StoreProvider {

    static final Map<String, MemoryStore> STORES = new ConcurrentHashMap<>();
    static volatile StoreOptions lastOptions;

    @Override
    public String name() {
        return "test plugin (zdmem://)";
    }

    @Override
    public Set<String> schemes() {
        return Set.of("zdmem");
    }

    @Override
    public Store open(URI location, StoreOptions options) {
        lastOptions = options;
        return new dev.zarrdirect.api.store.FilterStore(STORES.computeIfAbsent(location.getHost(), k -> new MemoryStore())) {
            @Override
            public void close() {
                // The memory outlives each open: the next open of the name sees what was written.
            }
        };
    }

    @Override
    public List<String> describeConfiguration(StoreOptions options) {
        return List.of("zdmem: memory, " + options);
    }
}
