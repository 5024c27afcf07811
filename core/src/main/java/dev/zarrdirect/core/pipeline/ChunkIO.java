// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.store.Store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Writing one chunk of an array through its codec chain (reads go through the read engine, {@code core.exec}). */
public final class ChunkIO {
    private ChunkIO() {
    }

    /**
     * Writes the box of {@code extent} at {@code at} of {@code source} into the chunk at {@code key}, at
     * {@code chunkStart} within the chunk. A partly covered chunk is read, patched and written back; a
     * chunk that ends up holding only the fill value is deleted instead of stored.
     */
    public static void write(CodecChain chain, Store store, String key, long[] chunkStart, long[] extent,
                             HostRegion source, long[] at, String label, HostScratch scratch) {
        long[] shape = chain.spec().shape();
        int es = chain.spec().dataType().byteSize();
        MemorySegment chunk = scratch.get(HostScratch.GATHER, chain.spec().byteSize());
        boolean whole = true;
        for (int i = 0; i < shape.length; i++) {
            whole &= chunkStart[i] == 0 && extent[i] == shape[i];
        }
        HostRegion chunkRegion = HostRegion.cOrder(chunk, shape, es);
        if (!whole) {
            chain.decodeRegion(new StoreChunkSource(store, key, chain.maxEncodedBytes()), new long[shape.length], shape, chunkRegion,
                    new long[shape.length], label, scratch);
        }
        source.gatherInto(chunk, shape, chunkStart, extent, at);
        if (FillCheck.isAll(chunk, chain.fill())) {
            store.delete(key);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment enc = chain.encode(chunk, arena, label, scratch);
            if (enc == null) {
                store.delete(key);
            } else {
                store.set(key, enc);
            }
        }
    }
}
