package dev.zarrdirect.core.plan;

import dev.zarrdirect.core.grid.Shapes;

import java.util.List;

/**
 * What one read does, computed once before anything is fetched: the store requests
 * ({@link FetchRange}s, nearby ranges of one key coalesced), the chunks each request holds (each
 * read and decoded once, however many places of the destination need it), and the boxes of the
 * destination that read as the fill value. Immutable; built by {@link ReadPlanner}.
 *
 * <p>When {@link #innerChunks()} is true the chunks are inner chunks of shards (their shards'
 * indexes were read while planning) and decode with the shard's inner chain.
 */
public final class ReadPlan {

    private final long[] destShape;
    private final boolean innerChunks;
    private final List<FetchRange> ranges;
    private final List<FillBox> fills;
    private final int chunkCount;
    private final int placementCount;

    ReadPlan(long[] destShape, boolean innerChunks, List<FetchRange> ranges, List<FillBox> fills) {
        this.destShape = destShape.clone();
        this.innerChunks = innerChunks;
        this.ranges = List.copyOf(ranges);
        this.fills = List.copyOf(fills);
        int chunks = 0;
        int places = 0;
        for (FetchRange r : ranges) {
            chunks += r.chunks().size();
            for (ChunkRead c : r.chunks()) {
                places += c.placements().size();
            }
        }
        this.chunkCount = chunks;
        this.placementCount = places;
    }

    /** The shape of the destination the placements and fills address. */
    public long[] destShape() {
        return destShape.clone();
    }

    /** True when the chunks are inner chunks of shards. */
    public boolean innerChunks() {
        return innerChunks;
    }

    /** The store requests, in plan order. */
    public List<FetchRange> ranges() {
        return ranges;
    }

    /** The boxes known, while planning, to hold only the fill value. */
    public List<FillBox> fills() {
        return fills;
    }

    /** Chunks read and decoded. */
    public int chunkCount() {
        return chunkCount;
    }

    /** Boxes of decoded chunks placed into the destination. */
    public int placementCount() {
        return placementCount;
    }

    @Override
    public String toString() {
        return "ReadPlan[" + Shapes.format(destShape) + ": " + ranges.size() + " requests, " + chunkCount
                + (innerChunks ? " inner chunks, " : " chunks, ") + placementCount + " placements, " + fills.size()
                + " fills]";
    }
}
