// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.store.Store;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Decoded shard indexes kept for the next read of the same shard, least recently used first out,
 * bounded by the bytes the indexes hold ({@code zarrdirect.shardIndexCacheBytes}, default 64 MiB; 0
 * turns it off). One per {@link dev.zarrdirect.core.ZarrContext}; the read planner asks it before
 * reading a shard's index from the store.
 *
 * <h2>Keys and staleness</h2>
 * An index is kept under the identity of the store object, the shard's key, the shard's size in
 * bytes as the store reported it when the read was planned, and the layout (codec chain and chunk
 * shape) it was decoded with. A shard rewritten with another size is therefore read again; one
 * rewritten in place with exactly the same size by another writer is not detected (stores expose no
 * etag yet). Writes through this context's arrays {@linkplain #invalidate invalidate} the shards
 * they write, and an array or group that closes its own store drops that store's entries.
 *
 * <h2>Memory</h2>
 * Indexes live on the Java heap ({@link ShardIndex} copies its entries there), so nothing here is
 * native and nothing needs closing; an entry keeps its store object reachable until it is evicted
 * or {@linkplain #invalidateStore dropped}. Thread-safe: lookups lock briefly; two threads missing
 * the same shard at once may both read its index, and one copy is kept.
 */
public final class ShardIndexCache {

    /** A cache that keeps nothing: every lookup reads the index. */
    public static final ShardIndexCache DISABLED = new ShardIndexCache(0);

    /** Default bound: 64 MiB of entries, i.e. the indexes of 4096 shards of 1024 inner chunks. */
    public static final long DEFAULT_BYTES = 64L << 20;

    private record Key(StoreRef store, String key, long shardSize, Object layout) {
    }

    /** A store compared by identity: two store objects over one location are two caches' worth. */
    private record StoreRef(Store store) {
        @Override
        public boolean equals(Object o) {
            return o instanceof StoreRef r && r.store == store;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(store);
        }
    }

    private final long capacity;
    private final LinkedHashMap<Key, ShardIndex> map = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();

    /**
     * @param capacityBytes the most bytes of decoded indexes to keep; 0 keeps none
     */
    public ShardIndexCache(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("negative shard index cache size " + capacityBytes);
        }
        this.capacity = capacityBytes;
    }

    /**
     * The index of the shard at {@code key} in {@code store} of {@code shardSize} bytes decoded with
     * {@code layout} (any value with {@code equals}: the chain and chunk shape): from the cache, or
     * from {@code load}, whose result (unless null, a shard never written) is kept.
     */
    public ShardIndex get(Store store, String key, long shardSize, Object layout, Supplier<ShardIndex> load) {
        if (capacity == 0) {
            misses.incrementAndGet();
            return load.get();
        }
        Key k = new Key(new StoreRef(store), key, shardSize, layout);
        synchronized (map) {
            ShardIndex hit = map.get(k);
            if (hit != null) {
                hits.incrementAndGet();
                return hit;
            }
        }
        misses.incrementAndGet();
        ShardIndex loaded = load.get();
        if (loaded == null || loaded.footprint() > capacity) {
            return loaded;
        }
        synchronized (map) {
            ShardIndex old = map.put(k, loaded);
            if (old != null) {
                bytes -= old.footprint();
            }
            bytes += loaded.footprint();
            Iterator<ShardIndex> it = map.values().iterator();
            while (bytes > capacity && it.hasNext()) {
                bytes -= it.next().footprint();
                it.remove();
            }
        }
        return loaded;
    }

    /** Forgets every index of the shard at {@code key} in {@code store} (after it was written or deleted). */
    public void invalidate(Store store, String key) {
        if (capacity == 0) {
            return;
        }
        synchronized (map) {
            remove(e -> e.getKey().store().store() == store && e.getKey().key().equals(key));
        }
    }

    /** Forgets every index of {@code store} (when it closes). */
    public void invalidateStore(Store store) {
        if (capacity == 0) {
            return;
        }
        synchronized (map) {
            remove(e -> e.getKey().store().store() == store);
        }
    }

    /** Forgets everything. */
    public void clear() {
        synchronized (map) {
            map.clear();
            bytes = 0;
        }
    }

    private void remove(java.util.function.Predicate<Map.Entry<Key, ShardIndex>> which) {
        Iterator<Map.Entry<Key, ShardIndex>> it = map.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Key, ShardIndex> e = it.next();
            if (which.test(e)) {
                bytes -= e.getValue().footprint();
                it.remove();
            }
        }
    }

    /** The bound, in bytes; 0 when the cache is off. */
    public long capacityBytes() {
        return capacity;
    }

    /** Bytes of the indexes held now. */
    public long byteSize() {
        synchronized (map) {
            return bytes;
        }
    }

    /** Indexes held now. */
    public int size() {
        synchronized (map) {
            return map.size();
        }
    }

    /** Lookups answered from the cache since it was made. */
    public long hits() {
        return hits.get();
    }

    /** Lookups that read the index from the store since it was made. */
    public long misses() {
        return misses.get();
    }

    @Override
    public String toString() {
        return "ShardIndexCache[" + size() + " indexes, " + byteSize() + " of " + capacity + " bytes, " + hits()
                + " hits, " + misses() + " misses]";
    }
}
