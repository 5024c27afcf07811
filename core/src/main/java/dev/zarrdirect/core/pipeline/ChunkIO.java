package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.store.Store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Reading and writing one chunk of an array through its codec chain. */
public final class ChunkIO {
    private ChunkIO() {
    }

    /**
     * Decodes the box {@code [chunkStart, chunkStart+extent)} of the chunk at {@code key} into {@code target}
     * at {@code at}; a missing chunk becomes the fill value.
     */
    public static void read(CodecChain chain, Store store, String key, long[] chunkStart, long[] extent,
                            HostRegion target, long[] at, String label) {
        chain.decodeRegion(new StoreChunkSource(store, key), chunkStart, extent, target, at, label);
    }

    /**
     * Writes the box of {@code extent} at {@code at} of {@code source} into the chunk at {@code key}, at
     * {@code chunkStart} within the chunk. A partly covered chunk is read, patched and written back; a
     * chunk that ends up holding only the fill value is deleted instead of stored.
     */
    public static void write(CodecChain chain, Store store, String key, long[] chunkStart, long[] extent,
                             HostRegion source, long[] at, String label) {
        long[] shape = chain.spec().shape();
        int es = chain.spec().dataType().byteSize();
        MemorySegment chunk = Scratch.get(Scratch.GATHER, chain.spec().byteSize());
        boolean whole = true;
        for (int i = 0; i < shape.length; i++) {
            whole &= chunkStart[i] == 0 && extent[i] == shape[i];
        }
        HostRegion chunkRegion = HostRegion.cOrder(chunk, shape, es);
        if (!whole) {
            chain.decodeRegion(new StoreChunkSource(store, key), new long[shape.length], shape, chunkRegion,
                    new long[shape.length], label);
        }
        source.gatherInto(chunk, shape, chunkStart, extent, at);
        if (FillCheck.isAll(chunk, chain.fill())) {
            store.delete(key);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment enc = chain.encode(chunk, arena, label);
            if (enc == null) {
                store.delete(key);
            } else {
                store.set(key, enc);
            }
        }
    }
}
