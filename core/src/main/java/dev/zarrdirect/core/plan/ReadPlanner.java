// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.plan;

import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.grid.RegularChunkGrid;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.pipeline.CodecChain;
import dev.zarrdirect.core.pipeline.ShardIndex;
import dev.zarrdirect.core.pipeline.ShardIndexCache;
import dev.zarrdirect.core.pipeline.StoreChunkSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.CompletableFuture;

/**
 * Turns reads of one array into {@link ReadPlan}s. A plan covers one or many requests at once (a
 * loader's batch of windows is one plan): the chunks they touch are listed once, each with every
 * place it feeds. For an array whose chain is {@code sharding_indexed} alone, each shard's index is
 * read here (in parallel on the given workers) and the plan lists the inner chunks needed, by byte
 * range, with nearby ranges of one shard coalesced into one request; inner chunks never written
 * become fill boxes. Thread-safe.
 */
public final class ReadPlanner {

    /** Two ranges of one key closer than this are read as one, trading a few wasted bytes for a request. */
    public static final long COALESCE_GAP = ShardIndex.COALESCE_GAP;

    /** One region to read: the box {@code [start, stop)} of the array, to {@code at} in the destination. */
    public record Request(long[] start, long[] stop, long[] at) {
        public Request {
            if (start.length != stop.length || start.length != at.length) {
                throw new IllegalArgumentException("request of ranks " + start.length + ", " + stop.length + ", "
                        + at.length);
            }
            start = start.clone();
            stop = stop.clone();
            at = at.clone();
        }
    }

    private final ArrayMetadata metadata;
    private final CodecChain chain;
    private final Store store;
    private final String keyPrefix;
    private final String where;
    private final ShardIndexCache shardIndexes;
    /** What a decoded index depends on besides the shard's bytes: the chain and the chunk shape. */
    private final Object layout;

    /**
     * @param keyPrefix what precedes a chunk key in the store ({@code "t2m/"}, or "" for a root array)
     * @param where     the array, for labels: {@code array "/t2m" in FileSystemStore(...)}
     */
    @SuppressWarnings("exports") // the codec chain is internal: users plan through ZarrArray.plan
    public ReadPlanner(ArrayMetadata metadata, CodecChain chain, Store store, String keyPrefix, String where) {
        this(metadata, chain, store, keyPrefix, where, ShardIndexCache.DISABLED);
    }

    /**
     * As {@link #ReadPlanner(ArrayMetadata, CodecChain, Store, String, String)}, keeping decoded shard
     * indexes in {@code shardIndexes} (the context's), so that planning a shard again does not read
     * its index again.
     */
    @SuppressWarnings("exports") // as above; the cache is the context's
    public ReadPlanner(ArrayMetadata metadata, CodecChain chain, Store store, String keyPrefix, String where,
                       ShardIndexCache shardIndexes) {
        this.shardIndexes = shardIndexes;
        this.layout = List.of(chain.metadata(), Arrays.stream(metadata.chunkShape()).boxed().toList());
        this.metadata = metadata;
        this.chain = chain;
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.where = where;
    }

    /** True when plans list inner chunks of shards rather than whole chunks. */
    public boolean expandsShards() {
        return chain.isPartiallyReadable();
    }

    /** The store key of the chunk at {@code chunkIndex}. */
    public String chunkKey(long[] chunkIndex) {
        return keyPrefix + metadata.chunkKey(chunkIndex);
    }

    /** {@code chunk [0, 3] of array "/t2m" in ... (key "t2m/c/0/3")}, for messages. */
    public String label(long[] chunkIndex) {
        return "chunk " + Arrays.toString(chunkIndex) + " of " + where + " (key \"" + chunkKey(chunkIndex) + "\")";
    }

    /** The boxes of one chunk (or shard) that the requests need. */
    private record Touched(long[] chunkIndex, List<Placement> boxes) {
    }

    /**
     * Plans {@code requests} into a destination of {@code destShape}. With {@code workers}, the
     * shards' indexes are read there in parallel and the plan is returned at once, its parts
     * completing as their shards are planned; without, everything is planned here, and a corrupt
     * shard index throws here.
     *
     * @param workers where shard indexes are read; null to read them on this thread
     */
    public ReadPlan plan(List<Request> requests, long[] destShape, ExecutorService workers) {
        long[] shape = metadata.shape();
        RegularChunkGrid grid = metadata.chunkGrid();
        Map<String, Touched> touched = new LinkedHashMap<>();
        for (Request r : requests) {
            for (int i = 0; i < shape.length; i++) {
                if (r.start()[i] < 0 || r.stop()[i] > shape[i] || r.start()[i] > r.stop()[i]
                        || r.at()[i] < 0 || r.at()[i] + r.stop()[i] - r.start()[i] > destShape[i]) {
                    throw new IllegalArgumentException("request " + Arrays.toString(r.start()) + ".." + Arrays.toString(r.stop())
                            + " to " + Arrays.toString(r.at()) + " does not fit " + where + " or the destination "
                            + Arrays.toString(destShape));
                }
            }
            grid.forEachChunk(shape, r.start(), r.stop(), (ci, cs, ce, out) -> {
                long[] ext = new long[cs.length];
                long[] at = new long[cs.length];
                for (int i = 0; i < ext.length; i++) {
                    ext[i] = ce[i] - cs[i];
                    at[i] = r.at()[i] + out[i];
                }
                touched.computeIfAbsent(chunkKey(ci), k -> new Touched(ci.clone(), new ArrayList<>()))
                        .boxes().add(new Placement(cs.clone(), ext, at));
            });
        }
        if (!expandsShards()) {
            List<FetchRange> ranges = new ArrayList<>(touched.size());
            touched.forEach((key, t) -> ranges.add(new FetchRange(key, 0, -1,
                    List.of(new ChunkRead(key, 0, -1, t.chunkIndex(), label(t.chunkIndex()), t.boxes())))));
            return new ReadPlan(destShape, false, List.of(CompletableFuture.completedFuture(
                    new ReadPlan.Part(ranges, List.of()))));
        }
        List<CompletableFuture<ReadPlan.Part>> parts = new ArrayList<>(touched.size());
        for (var e : touched.entrySet()) {
            if (workers == null || touched.size() < 2) {
                parts.add(CompletableFuture.completedFuture(planShard(e.getKey(), e.getValue())));
            } else {
                parts.add(CompletableFuture.supplyAsync(() -> planShard(e.getKey(), e.getValue()), workers));
            }
        }
        return new ReadPlan(destShape, true, parts);
    }

    /** Reads one shard's index and lists the inner chunks its boxes need, coalesced by byte range. */
    private ReadPlan.Part planShard(String key, Touched shard) {
        String label = label(shard.chunkIndex());
        List<FillBox> fills = new ArrayList<>();
        long size = store.size(key);
        ShardIndex index = size < 0 ? null : shardIndexes.get(store, key, size, layout,
                () -> chain.readShardIndex(new StoreChunkSource(store, key), size, label));
        if (index == null) {
            for (Placement b : shard.boxes()) {
                fills.add(new FillBox(b.at(), b.extent()));
            }
            return new ReadPlan.Part(List.of(), fills);
        }
        long[] shardShape = index.shardShape();
        RegularChunkGrid inner = new RegularChunkGrid(index.innerShape());
        record Inner(long[] index, ShardIndex.Entry entry, List<Placement> boxes) {
        }
        Map<List<Long>, Inner> needed = new LinkedHashMap<>();
        for (Placement b : shard.boxes()) {
            long[] stop = new long[shardShape.length];
            for (int i = 0; i < stop.length; i++) {
                stop[i] = b.chunkStart()[i] + b.extent()[i];
            }
            inner.forEachChunk(shardShape, b.chunkStart(), stop, (ci, cs, ce, out) -> {
                long[] ext = new long[cs.length];
                long[] at = new long[cs.length];
                for (int i = 0; i < ext.length; i++) {
                    ext[i] = ce[i] - cs[i];
                    at[i] = b.at()[i] + out[i];
                }
                ShardIndex.Entry e = index.entry(ci);
                if (e == null) {
                    fills.add(new FillBox(at, ext));
                } else {
                    needed.computeIfAbsent(Arrays.stream(ci).boxed().toList(), k -> new Inner(ci.clone(), e, new ArrayList<>()))
                            .boxes().add(new Placement(cs.clone(), ext, at));
                }
            });
        }
        List<ChunkRead> reads = new ArrayList<>(needed.size());
        for (Inner n : needed.values()) {
            reads.add(new ChunkRead(key, n.entry().offset(), n.entry().length(), n.index(),
                    label + " inner chunk " + Arrays.toString(n.index()), n.boxes()));
        }
        return new ReadPlan.Part(coalesce(key, reads), fills);
    }

    /** {@code reads} of one key as requests: sorted by offset, merged while the gap is at most {@link #COALESCE_GAP}. */
    static List<FetchRange> coalesce(String key, List<ChunkRead> reads) {
        List<ChunkRead> sorted = new ArrayList<>(reads);
        sorted.sort(Comparator.comparingLong(ChunkRead::offset));
        List<FetchRange> out = new ArrayList<>();
        int i = 0;
        while (i < sorted.size()) {
            long start = sorted.get(i).offset();
            long end = start + sorted.get(i).length();
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1).offset() - end <= COALESCE_GAP) {
                j++;
                end = Math.max(end, sorted.get(j).offset() + sorted.get(j).length());
            }
            out.add(new FetchRange(key, start, end - start, sorted.subList(i, j + 1)));
            i = j + 1;
        }
        return out;
    }
}
