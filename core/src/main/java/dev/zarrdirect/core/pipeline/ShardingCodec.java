// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.core.codec.ShardingConfig;
import dev.zarrdirect.core.grid.RegularChunkGrid;
import dev.zarrdirect.core.grid.Shapes;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * {@code sharding_indexed}: a shard holds inner chunks, each encoded with the inner chain, and an
 * index of (offset, length) pairs, uint64, {@code 2^64-1} twice for an inner chunk never written.
 *
 * <p>A read of part of a shard fetches the index (one range read), then only the inner chunks the
 * selection touches, with nearby ranges coalesced into one read ({@link ShardIndex#COALESCE_GAP}). A read of
 * a whole shard fetches it in one go. Each shard decode uses one confined arena, freed at its end.
 */
final class ShardingCodec {

    /** Two inner-chunk ranges closer than this are read as one, trading a few wasted bytes for a request. */

    private final ChunkSpec shardSpec;
    private final long[] shardShape;
    private final long[] innerShape;
    private final long[] innerGrid;
    private final long innerCount;
    private final CodecChain inner;
    private final CodecChain index;
    private final boolean indexAtEnd;
    private final long indexBytes;
    private final MemorySegment fill;
    private final ShardingConfig config;

    ShardingCodec(ChunkSpec shardSpec, ShardingConfig cfg, MemorySegment fill, CodecStages.Context ctx, String where) {
        this.shardSpec = shardSpec;
        this.config = cfg;
        this.shardShape = shardSpec.shape();
        this.innerShape = cfg.chunkShape();
        this.innerGrid = new long[shardShape.length];
        for (int i = 0; i < shardShape.length; i++) {
            innerGrid[i] = shardShape[i] / innerShape[i];
        }
        this.innerCount = Shapes.product(innerGrid);
        this.fill = fill;
        this.inner = CodecChain.build(cfg.codecs(), new ChunkSpec(shardSpec.dataType(), innerShape), fill, ctx,
                where + " (inner chunks of its shards)");
        long[] indexShape = Arrays.copyOf(innerGrid, innerGrid.length + 1);
        indexShape[innerGrid.length] = 2;
        MemorySegment zero = Arena.ofAuto().allocate(8);
        this.index = CodecChain.build(cfg.indexCodecs(), new ChunkSpec(DataType.UINT64, indexShape), zero, ctx,
                where + " (shard index)");
        this.indexBytes = index.encodedSize();
        if (indexBytes < 0) {
            throw new InvalidMetadataException("the index_codecs of " + where + " do not have a fixed encoded size; "
                    + "use [bytes, crc32c] or other codecs without compression");
        }
        this.indexAtEnd = cfg.indexAtEnd();
    }

    CodecChain inner() {
        return inner;
    }

    /** The largest shard: its index and every inner chunk at its largest ({@link CodecChain#maxEncodedBytes}). */
    long maxEncodedBytes() {
        long each = inner.maxEncodedBytes();
        if (each == Long.MAX_VALUE || (innerCount > 0 && each > (Long.MAX_VALUE - indexBytes) / innerCount)) {
            return Long.MAX_VALUE;
        }
        return indexBytes + innerCount * each;
    }

    ShardingConfig config() {
        return config;
    }

    /** One inner chunk the selection needs. */
    private record Need(long offset, long length, long[] chunkIndex, long[] boxStart, long[] boxExtent, long[] at) {
    }

    void decodeRegion(ChunkSource src, long[] boxStart, long[] boxExtent, HostRegion target, long[] at, String label,
                      HostScratch scratch) {
        int rank = shardShape.length;
        boolean full = true;
        for (int i = 0; i < rank; i++) {
            full &= boxStart[i] == 0 && boxExtent[i] == shardShape[i];
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment whole = null;
            MemorySegment indexEnc;
            if (full) {
                whole = src.read(ByteRange.ALL, arena);
                if (whole == null) {
                    target.fill(at, boxExtent, fill);
                    return;
                }
                if (whole.byteSize() < indexBytes) {
                    throw corrupt(label, src, "has " + whole.byteSize() + " bytes, fewer than its " + indexBytes + "-byte index");
                }
                indexEnc = indexAtEnd ? whole.asSlice(whole.byteSize() - indexBytes, indexBytes) : whole.asSlice(0, indexBytes);
            } else {
                try {
                    indexEnc = src.read(indexAtEnd ? ByteRange.suffix(indexBytes) : ByteRange.of(0, indexBytes), arena);
                } catch (StoreException | IndexOutOfBoundsException e) {
                    throw new CorruptChunkException("sharding_indexed", "shard " + label + " (" + src.describe()
                            + ") is shorter than its " + indexBytes + "-byte index", e);
                }
                if (indexEnc == null) {
                    target.fill(at, boxExtent, fill);
                    return;
                }
            }
            MemorySegment idx = arena.allocate(innerCount * 16, 8);
            index.decode(indexEnc, idx, "index of shard " + label, scratch);

            MemorySegment shardBytes = whole;
            List<Need> needs = locate(idx, boxStart, boxExtent, at, shardBytes == null ? -1 : shardBytes.byteSize(),
                    (pos, ext) -> target.fill(pos, ext, fill), src, label);
            if (shardBytes != null) {
                for (Need n : needs) {
                    decodeInner(ChunkSource.ofMemory(shardBytes.asSlice(n.offset, n.length), "bytes " + n.offset + "-"
                            + (n.offset + n.length) + " of " + src.describe()), n, target, label, scratch);
                }
                return;
            }
            needs.sort(Comparator.comparingLong(Need::offset));
            int i = 0;
            while (i < needs.size()) {
                int j = i;
                long start = needs.get(i).offset;
                long end = start + needs.get(i).length;
                while (j + 1 < needs.size() && needs.get(j + 1).offset - end <= ShardIndex.COALESCE_GAP) {
                    j++;
                    end = Math.max(end, needs.get(j).offset + needs.get(j).length);
                }
                MemorySegment group;
                try {
                    group = src.read(ByteRange.of(start, end - start), arena);
                } catch (StoreException | IndexOutOfBoundsException e) {
                    throw new CorruptChunkException("sharding_indexed", "shard " + label + " (" + src.describe()
                            + ") index points at bytes " + start + "-" + end + ", which cannot be read: " + e.getMessage(), e);
                }
                if (group == null) {
                    throw new CorruptChunkException("sharding_indexed", "shard " + label + " (" + src.describe()
                            + ") disappeared while it was being read");
                }
                for (int k = i; k <= j; k++) {
                    Need n = needs.get(k);
                    decodeInner(ChunkSource.ofMemory(group.asSlice(n.offset - start, n.length), "bytes " + n.offset
                            + "-" + (n.offset + n.length) + " of " + src.describe()), n, target, label, scratch);
                }
                i = j + 1;
            }
        }
    }

    /** Receives the boxes of inner chunks that were never written. */
    @FunctionalInterface
    interface MissingBox {
        void accept(long[] at, long[] extent);
    }

    /**
     * The inner chunks of {@code [boxStart, boxStart+boxExtent)} that were written, from the decoded
     * index {@code idx}; those never written go to {@code missing}. {@code shardSize} (or -1 when not
     * known) bounds the entries.
     */
    private List<Need> locate(MemorySegment idx, long[] boxStart, long[] boxExtent, long[] at, long shardSize,
                              MissingBox missing, ChunkSource src, String label) {
        ShardIndex index = shardIndex(idx, shardSize, src, label);
        int rank = shardShape.length;
        List<Need> needs = new ArrayList<>();
        long[] boxStop = new long[rank];
        for (int i = 0; i < rank; i++) {
            boxStop[i] = boxStart[i] + boxExtent[i];
        }
        new RegularChunkGrid(innerShape).forEachChunk(shardShape, boxStart, boxStop, (ci, cs, ce, out) -> {
            long[] ext = new long[rank];
            long[] pos = new long[rank];
            for (int i = 0; i < rank; i++) {
                ext[i] = ce[i] - cs[i];
                pos[i] = at[i] + out[i];
            }
            ShardIndex.Entry e = index.entry(ci);
            if (e == null) {
                missing.accept(pos, ext);
            } else {
                // Before anything is read: an index may claim any length for an inner chunk.
                long innerMax = inner.maxEncodedBytes();
                if (e.length() > innerMax) {
                    throw corrupt(label, src, "index gives inner chunk " + Arrays.toString(ci) + " " + e.length()
                            + " bytes (at " + e.offset() + "), more than the " + innerMax + " bytes its codecs can"
                            + " produce at most");
                }
                needs.add(new Need(e.offset(), e.length(), ci, cs, ext, pos));
            }
        });
        return needs;
    }

    private ShardIndex shardIndex(MemorySegment idx, long shardSize, ChunkSource src, String label) {
        long dataStart = indexAtEnd ? 0 : indexBytes;
        long dataEnd = shardSize < 0 ? -1 : indexAtEnd ? shardSize - indexBytes : shardSize;
        return new ShardIndex(shardShape, innerShape, innerGrid, idx, dataStart, dataEnd, shardSize,
                "shard " + label + " (" + src.describe() + ")");
    }

    /**
     * Reads and decodes the index of the shard {@code src} ({@code shardSize} bytes, -1 when not
     * known); null when the shard was never written. Lets a planner list the inner chunks a read
     * needs, by byte range, without decoding any.
     */
    ShardIndex readIndex(ChunkSource src, long shardSize, String label) {
        MemorySegment indexEnc;
        try (Arena arena = Arena.ofConfined()) {
            try {
                indexEnc = src.read(indexAtEnd ? ByteRange.suffix(indexBytes) : ByteRange.of(0, indexBytes), arena);
            } catch (StoreException | IndexOutOfBoundsException e) {
                throw new CorruptChunkException("sharding_indexed", "shard " + label + " (" + src.describe()
                        + ") is shorter than its " + indexBytes + "-byte index", e);
            }
            if (indexEnc == null) {
                return null;
            }
            MemorySegment idx = arena.allocate(innerCount * 16, 8);
            index.decode(indexEnc, idx, "index of shard " + label, HostScratch.in(arena));
            // the index outlives this arena: its entries move to the heap (no native memory to free later)
            long[] entries = idx.toArray(ValueLayout.JAVA_LONG);
            return shardIndex(MemorySegment.ofArray(entries), shardSize, src, label);
        }
    }

    private void decodeInner(ChunkSource src, Need n, HostRegion target, String label, HostScratch scratch) {
        inner.decodeRegion(src, n.boxStart, n.boxExtent, target, n.at,
                label + " inner chunk " + Arrays.toString(n.chunkIndex) + " (" + src.describe() + ")", scratch);
    }

    private static CorruptChunkException corrupt(String label, ChunkSource src, String what) {
        return new CorruptChunkException("sharding_indexed", "shard " + label + " (" + src.describe() + ") " + what);
    }

    /**
     * Encodes a whole shard (C-order, {@code shardSpec}) into memory from {@code arena}; inner chunks
     * equal to the fill value are left out. Null when every inner chunk is left out.
     */
    MemorySegment encode(MemorySegment shard, Arena arena, String label, HostScratch scratch) {
        int rank = shardShape.length;
        int es = shardSpec.dataType().byteSize();
        ChunkSpec innerSpec = inner.spec();
        MemorySegment idx = arena.allocate(innerCount * 16, 8);
        idx.fill((byte) 0xFF);
        List<MemorySegment> parts = new ArrayList<>();
        long[] partOf = new long[(int) innerCount];
        Arrays.fill(partOf, -1);
        HostRegion shardRegion = HostRegion.cOrder(shard, shardShape, es);
        try (Arena stageArena = Arena.ofConfined()) {
            MemorySegment stage = stageArena.allocate(Math.max(innerSpec.byteSize(), 1), 64).asSlice(0, innerSpec.byteSize());
            long[] zero = new long[rank];
            for (long lin = 0; lin < innerCount; lin++) {
                long[] ci = Shapes.unravel(lin, innerGrid);
                long[] origin = new long[rank];
                for (int i = 0; i < rank; i++) {
                    origin[i] = ci[i] * innerShape[i];
                }
                shardRegion.gatherInto(stage, innerShape, zero, innerShape, origin);
                if (FillCheck.isAll(stage, fill)) {
                    continue;
                }
                MemorySegment enc = inner.encode(stage, arena, label + " inner chunk " + Arrays.toString(ci), scratch);
                if (enc == null) {
                    continue;
                }
                MemorySegment kept = arena.allocate(Math.max(enc.byteSize(), 1), 8).asSlice(0, enc.byteSize()).copyFrom(enc);
                partOf[(int) lin] = parts.size();
                parts.add(kept);
            }
        }
        if (parts.isEmpty()) {
            return null;
        }
        long dataBytes = 0;
        for (MemorySegment p : parts) {
            dataBytes += p.byteSize();
        }
        long pos = indexAtEnd ? 0 : indexBytes;
        for (long lin = 0; lin < innerCount; lin++) {
            int p = (int) partOf[(int) lin];
            if (p < 0) {
                continue;
            }
            idx.set(ValueLayout.JAVA_LONG_UNALIGNED, lin * 16, pos);
            idx.set(ValueLayout.JAVA_LONG_UNALIGNED, lin * 16 + 8, parts.get(p).byteSize());
            pos += parts.get(p).byteSize();
        }
        MemorySegment out = arena.allocate(indexBytes + dataBytes, 8);
        MemorySegment idxEnc = index.encode(idx, arena, "index of shard " + label, scratch);
        if (idxEnc.byteSize() != indexBytes) {
            throw new IllegalStateException("index codecs wrote " + idxEnc.byteSize() + " bytes, expected " + indexBytes);
        }
        long w = indexAtEnd ? 0 : indexBytes;
        for (long lin = 0; lin < innerCount; lin++) {
            int p = (int) partOf[(int) lin];
            if (p >= 0) {
                MemorySegment.copy(parts.get(p), 0, out, w, parts.get(p).byteSize());
                w += parts.get(p).byteSize();
            }
        }
        MemorySegment.copy(idxEnc, 0, out, indexAtEnd ? dataBytes : 0, indexBytes);
        return out;
    }
}
