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
 *
 * <p>Every {@link dev.zarrdirect.core.ZarrArray} has a planner; users plan through
 * {@link dev.zarrdirect.core.ZarrArray#plan}, which picks the workers, and run the plan with the
 * same array. The planner does not own the store it reads shard indexes from.
 *
 * {@snippet :
 * // t2m has shape [8760, 721, 1440]: two windows of 24 hours, stacked along time
 * List<ReadPlanner.Request> windows = List.of(
 *         new ReadPlanner.Request(new long[] {0, 0, 0}, new long[] {24, 721, 1440}, new long[] {0, 0, 0}),
 *         new ReadPlanner.Request(new long[] {12, 0, 0}, new long[] {36, 721, 1440}, new long[] {24, 0, 0}));
 * ReadPlan plan = t2m.plan(windows, new long[] {48, 721, 1440});   // hours 12..23 decode once
 * try (Tensor batch = Tensor.allocateHost(t2m.dataType(), 48, 721, 1440)) {
 *     t2m.read(plan, batch);
 * }
 * }
 */
public final class ReadPlanner {

    /**
     * Two ranges of one key at most this many bytes apart (64 KiB) are read as one, trading a few
     * wasted bytes for a request.
     */
    public static final long COALESCE_GAP = ShardIndex.COALESCE_GAP;

    /**
     * One region to read: the box {@code [start, stop)} of the array, to {@code at} in the
     * destination. All three are element coordinates of the array's rank: a request cannot add or
     * drop dimensions, so the windows of a batch go side by side along an existing dimension
     * (usually the first). Whether the box fits the array and the destination is checked when it is
     * planned. The record copies the arrays in, but its accessors return its own arrays, not copies:
     * do not change them. {@code equals} compares the arrays by identity.
     *
     * {@snippet :
     * // rows 100..131 of all 64 columns, to rows 32..63 of the destination
     * new ReadPlanner.Request(new long[] {100, 0}, new long[] {132, 64}, new long[] {32, 0});
     * }
     *
     * @param start first element of the box in the array (inclusive)
     * @param stop  end of the box in the array (exclusive); {@code start <= stop}
     * @param at    where {@code start} lands in the destination
     */
    public record Request(long[] start, long[] stop, long[] at) {
        /**
         * Checks that the three have one rank, and copies them.
         *
         * @throws NullPointerException     if an array is null
         * @throws IllegalArgumentException if their lengths differ
         */
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
     * A planner that reads shard indexes afresh for every plan. For the engine: the codec chain is
     * internal, so users plan through {@link dev.zarrdirect.core.ZarrArray#plan}.
     *
     * @param metadata  the array's metadata: shape, chunk grid and chunk key encoding
     * @param chain     the array's codec chain, built for {@code metadata}
     * @param store     where the shards are, for reading their indexes; not owned, not closed
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
     *
     * @param metadata     the array's metadata: shape, chunk grid and chunk key encoding
     * @param chain        the array's codec chain, built for {@code metadata}
     * @param store        where the shards are, for reading their indexes; not owned, not closed
     * @param keyPrefix    what precedes a chunk key in the store ({@code "t2m/"}, or "" for a root array)
     * @param where        the array, for labels: {@code array "/t2m" in FileSystemStore(...)}
     * @param shardIndexes where decoded shard indexes are kept, shared with other planners; not owned
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

    /**
     * Whether plans list inner chunks of shards rather than whole chunks.
     *
     * @return true when the array's chain is {@code sharding_indexed} alone
     */
    public boolean expandsShards() {
        return chain.isPartiallyReadable();
    }

    /**
     * The store key of the chunk (the shard, for a sharded array) at {@code chunkIndex}.
     *
     * @param chunkIndex the chunk's index in the chunk grid, one entry per dimension
     * @return the key prefix followed by the metadata's chunk key, such as {@code t2m/c/0/3}; whether
     *         it exists is not checked
     */
    public String chunkKey(long[] chunkIndex) {
        return keyPrefix + metadata.chunkKey(chunkIndex);
    }

    /**
     * A chunk as messages name it.
     *
     * @param chunkIndex the chunk's index in the chunk grid
     * @return {@code chunk [0, 3] of array "/t2m" in ... (key "t2m/c/0/3")}
     */
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
     * shard index throws here. A plan of an array without shards is complete when returned and
     * reads nothing from the store.
     *
     * @param requests  the boxes to read, in any order; they may overlap in the array (a chunk they
     *                  share is listed once) and should not overlap in the destination
     * @param destShape the destination's shape, in elements
     * @param workers   where shard indexes are read; null to read them on this thread, as is done
     *                  anyway when fewer than two shards are touched; not owned
     * @return the plan; its parts may still be completing on {@code workers}
     * @throws IllegalArgumentException                 when a request does not fit the array or the
     *                                                  destination
     * @throws dev.zarrdirect.api.StoreException        without workers, when a shard's index cannot be
     *                                                  read
     * @throws dev.zarrdirect.api.CorruptChunkException without workers, when a shard's index is corrupt
     */
    public ReadPlan plan(List<Request> requests, long[] destShape, ExecutorService workers) {
        long[] shape = metadata.shape();
        RegularChunkGrid grid = metadata.chunkGrid();
        Map<String, Touched> touched = new LinkedHashMap<>();
        if (destShape.length != shape.length) {
            throw new IllegalArgumentException("destination shape " + Arrays.toString(destShape) + " has rank "
                    + destShape.length + " but " + where + " has rank " + shape.length);
        }
        for (Request r : requests) {
            if (r.start().length != shape.length || r.stop().length != shape.length || r.at().length != shape.length) {
                throw new IllegalArgumentException("request " + Arrays.toString(r.start()) + ".." + Arrays.toString(r.stop())
                        + " to " + Arrays.toString(r.at()) + " is not of the rank " + shape.length + " of " + where);
            }
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
                () -> chain.readShardIndex(new StoreChunkSource(store, key, chain.maxEncodedBytes()), size, label));
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
