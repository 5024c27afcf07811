// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.write;

import dev.zarrdirect.api.DataType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;

/**
 * The values of one chunk gathered from rows, one dense C-order segment per variable (starting as
 * the fill value) and which elements were given. Owns its memory: {@link #close()} frees it.
 */
final class ChunkBuffer implements AutoCloseable {

    private final Arena arena = Arena.ofShared();
    final long[] chunk;
    final long[] extent;
    final MemorySegment[] values;
    final BitSet present;
    private final long elements;
    private final long[] strides;
    private long count;

    ChunkBuffer(WriteSpec spec, long[] chunk) {
        this.chunk = chunk.clone();
        this.extent = spec.chunkExtent(chunk);
        long n = 1;
        strides = new long[extent.length];
        for (int d = extent.length - 1; d >= 0; d--) {
            strides[d] = n;
            n *= extent[d];
        }
        this.elements = n;
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a chunk of " + n + " elements is too large to gather from rows;"
                    + " choose chunks of fewer than 2^31 elements");
        }
        this.present = new BitSet((int) n);
        this.values = new MemorySegment[spec.variables().size()];
        for (int i = 0; i < values.length; i++) {
            DataType t = spec.type(i);
            values[i] = arena.allocate(n * t.byteSize(), 8);
            if (t.equals(DataType.FLOAT32)) {
                for (long e = 0; e < n; e++) {
                    values[i].setAtIndex(ValueLayout.JAVA_FLOAT, e, Float.NaN);
                }
            } else if (t.equals(DataType.FLOAT64)) {
                for (long e = 0; e < n; e++) {
                    values[i].setAtIndex(ValueLayout.JAVA_DOUBLE, e, Double.NaN);
                }
            }
        }
    }

    /** The element of the array index {@code index} within this chunk, counting it as given. */
    int element(long[] index, long[] chunkShape) {
        long e = 0;
        for (int d = 0; d < index.length; d++) {
            e += (index[d] - chunk[d] * chunkShape[d]) * strides[d];
        }
        int at = (int) e;
        if (!present.get(at)) {
            present.set(at);
            count++;
        }
        return at;
    }

    /** Marks the elements given by another part of this chunk. */
    void given(BitSet other) {
        present.or(other);
        count = present.cardinality();
    }

    boolean complete() {
        return count == elements;
    }

    long elements() {
        return elements;
    }

    @Override
    public void close() {
        arena.close();
    }
}
