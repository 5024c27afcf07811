// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.buffer.StridedCopy;
import dev.zarrdirect.api.Tensor;

import java.lang.foreign.MemorySegment;

/**
 * A host-memory n-dimensional area that chunks are placed into (a read) or gathered from (a write):
 * a segment, the byte offset of element [0,...,0], the shape and byte strides.
 */
public record HostRegion(MemorySegment segment, long offset, long[] shape, long[] byteStrides, int elemSize) {

    public static HostRegion of(Tensor t) {
        long[] st = t.strides();
        int es = t.dataType().byteSize();
        for (int i = 0; i < st.length; i++) {
            st[i] *= es;
        }
        return new HostRegion(t.buffer().segment(), t.byteOffset(), t.shape(), st, es);
    }

    /** A packed C-order chunk of {@code shape}. */
    public static HostRegion cOrder(MemorySegment seg, long[] shape, int elemSize) {
        return new HostRegion(seg, 0, shape, StridedCopy.cByteStrides(shape, elemSize), elemSize);
    }

    public long offsetOf(long[] pos) {
        long o = offset;
        for (int i = 0; i < pos.length; i++) {
            o += pos[i] * byteStrides[i];
        }
        return o;
    }

    /**
     * The byte offset of the box at {@code start} of {@code extent} when that box is one packed C-order
     * run in this region, else -1. This is what lets a whole chunk decode straight into the output.
     */
    public long contiguousBoxOffset(long[] start, long[] extent) {
        long expect = elemSize;
        boolean seenPartial = false;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (extent[i] == 1) {
                continue;
            }
            if (seenPartial || byteStrides[i] != expect) {
                return -1;
            }
            if (extent[i] != shape[i]) {
                seenPartial = true;
            }
            expect *= extent[i];
        }
        return offsetOf(start);
    }

    /** Copies the box of {@code extent} at {@code chunkStart} of a packed C-order chunk into this region at {@code at}. */
    public void placeFrom(MemorySegment chunk, long[] chunkShape, long[] chunkStart, long[] extent, long[] at) {
        long[] cs = StridedCopy.cByteStrides(chunkShape, elemSize);
        long so = 0;
        for (int i = 0; i < chunkStart.length; i++) {
            so += chunkStart[i] * cs[i];
        }
        StridedCopy.copy(chunk, so, cs, segment, offsetOf(at), byteStrides, extent, elemSize);
    }

    /** Copies the box of {@code extent} at {@code at} of this region into a packed C-order chunk at {@code chunkStart}. */
    public void gatherInto(MemorySegment chunk, long[] chunkShape, long[] chunkStart, long[] extent, long[] at) {
        long[] cs = StridedCopy.cByteStrides(chunkShape, elemSize);
        long dof = 0;
        for (int i = 0; i < chunkStart.length; i++) {
            dof += chunkStart[i] * cs[i];
        }
        StridedCopy.copy(segment, offsetOf(at), byteStrides, chunk, dof, cs, extent, elemSize);
    }

    /** Fills the box of {@code extent} at {@code at} with one element's bytes. */
    public void fill(long[] at, long[] extent, MemorySegment pattern) {
        StridedCopy.fill(segment, offsetOf(at), byteStrides, extent, pattern);
    }
}
