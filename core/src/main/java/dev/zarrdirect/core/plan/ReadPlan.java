// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.plan;

import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.pipeline.Futures;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What one read does, computed once: the store requests ({@link FetchRange}s, nearby ranges of one
 * key coalesced), the chunks each request holds (each read and decoded once, however many places
 * of the destination need it), and the boxes of the destination that read as the fill value.
 * Immutable and safe for use by many threads; built by {@link ReadPlanner} (users get one from
 * {@link dev.zarrdirect.core.ZarrArray#plan}). A plan holds no native memory and no store handle,
 * needs no closing, and can be run any number of times, by the array that made it only.
 *
 * <h2>Parts</h2>
 * A plan is a sequence of {@link Part}s in plan order: one per shard of a sharded array (whose index
 * must be read before its requests are known), one in all otherwise. Parts may still be being
 * planned on worker threads when the plan is handed over: a consumer that streams ({@link #parts()})
 * starts on the first parts while later shards' indexes are read; {@link #ranges()} and the other
 * totals wait for every part.
 *
 * <p>When {@link #innerChunks()} is true the chunks are inner chunks of shards and decode with the
 * shard's inner chain.
 */
public final class ReadPlan {

    /**
     * The requests and fills of one shard (or of a whole plan without shards).
     *
     * @param ranges the store requests (those of a shard in ascending offset); copied, unmodifiable
     * @param fills  the boxes that read as the fill value; copied, unmodifiable
     */
    public record Part(List<FetchRange> ranges, List<FillBox> fills) {
        /**
         * Copies both lists.
         *
         * @throws NullPointerException if a list or one of its elements is null
         */
        public Part {
            ranges = List.copyOf(ranges);
            fills = List.copyOf(fills);
        }
    }

    private final long[] destShape;
    private final boolean innerChunks;
    private final List<CompletableFuture<Part>> parts;
    private volatile Part all;

    ReadPlan(long[] destShape, boolean innerChunks, List<CompletableFuture<Part>> parts) {
        this.destShape = destShape.clone();
        this.innerChunks = innerChunks;
        this.parts = List.copyOf(parts);
    }

    /**
     * The shape of the destination the placements and fills address.
     *
     * @return a fresh copy, in elements
     */
    public long[] destShape() {
        return destShape.clone();
    }

    /**
     * Whether the chunks are inner chunks of shards, read by byte range and decoded with the
     * shards' inner chain.
     *
     * @return true for a plan of an array whose chain is {@code sharding_indexed} alone
     */
    public boolean innerChunks() {
        return innerChunks;
    }

    /**
     * The parts, in plan order, each complete once its shard is planned (or failed, with why).
     * Never waits. A part that failed completes exceptionally with the failure of reading its
     * shard's index: a {@link dev.zarrdirect.api.StoreException} or a
     * {@link dev.zarrdirect.api.CorruptChunkException}.
     *
     * @return an unmodifiable list of the plan's own futures; read them, do not complete or cancel them
     */
    public List<CompletableFuture<Part>> parts() {
        return parts;
    }

    /** Every part, waiting for those still being planned; a part that failed throws its failure. */
    private Part all() {
        Part a = all;
        if (a == null) {
            List<FetchRange> ranges = new ArrayList<>();
            List<FillBox> fills = new ArrayList<>();
            for (CompletableFuture<Part> f : parts) {
                Part p = Futures.await(f, "planning a read failed", "interrupted while planning a read");
                ranges.addAll(p.ranges());
                fills.addAll(p.fills());
            }
            a = new Part(ranges, fills);
            all = a;
        }
        return a;
    }

    /**
     * The store requests, in plan order. Waits for every part still being planned; the result is
     * kept, so later calls do not wait.
     *
     * @return an unmodifiable list of every part's requests
     * @throws dev.zarrdirect.api.StoreException        when a shard's index could not be read
     * @throws dev.zarrdirect.api.CorruptChunkException when a shard's index is corrupt
     * @throws dev.zarrdirect.api.ZarrDirectException   when interrupted while waiting (the thread's
     *                                                  interrupt flag stays set)
     */
    public List<FetchRange> ranges() {
        return all().ranges();
    }

    /**
     * The boxes known, while planning, to hold only the fill value. Waits as {@link #ranges()} does.
     *
     * @return an unmodifiable list of every part's fills; empty for an array without shards
     * @throws dev.zarrdirect.api.ZarrDirectException as {@link #ranges()}
     */
    public List<FillBox> fills() {
        return all().fills();
    }

    /**
     * Chunks read and decoded, each counted once. Waits as {@link #ranges()} does.
     *
     * @return the number of {@link ChunkRead}s over all requests
     * @throws dev.zarrdirect.api.ZarrDirectException as {@link #ranges()}
     */
    public int chunkCount() {
        int n = 0;
        for (FetchRange r : ranges()) {
            n += r.chunks().size();
        }
        return n;
    }

    /**
     * Boxes of decoded chunks placed into the destination; at least {@link #chunkCount()}. Waits as
     * {@link #ranges()} does.
     *
     * @return the number of {@link Placement}s over all chunks
     * @throws dev.zarrdirect.api.ZarrDirectException as {@link #ranges()}
     */
    public int placementCount() {
        int n = 0;
        for (FetchRange r : ranges()) {
            for (ChunkRead c : r.chunks()) {
                n += c.placements().size();
            }
        }
        return n;
    }

    /** Never waits: a plan whose parts are still being planned says so. */
    @Override
    public String toString() {
        for (CompletableFuture<Part> f : parts) {
            if (!f.isDone() || f.isCompletedExceptionally()) {
                return "ReadPlan[" + Shapes.format(destShape) + ": " + parts.size() + " parts, planning]";
            }
        }
        return "ReadPlan[" + Shapes.format(destShape) + ": " + ranges().size() + " requests, " + chunkCount()
                + (innerChunks ? " inner chunks, " : " chunks, ") + placementCount() + " placements, "
                + fills().size() + " fills]";
    }
}
