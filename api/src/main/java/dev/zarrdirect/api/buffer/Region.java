// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import java.util.Arrays;
import java.util.Objects;

/**
 * An n-dimensional box inside a buffer: the byte offset of its first element, its extent in
 * elements per dimension and the byte stride of each dimension. Chunks are placed into tensors
 * and gathered from them as regions.
 */
public record Region(Buffer buffer, long offset, long[] extent, long[] byteStrides) {

    public Region {
        Objects.requireNonNull(buffer, "buffer");
        extent = extent.clone();
        byteStrides = byteStrides.clone();
        if (extent.length != byteStrides.length) {
            throw new IllegalArgumentException("extent " + Arrays.toString(extent) + " and strides "
                    + Arrays.toString(byteStrides) + " differ in rank");
        }
        if (offset < 0) {
            throw new IllegalArgumentException("negative region offset " + offset);
        }
    }

    /** A packed C-order region of {@code extent} starting at {@code offset}. */
    public static Region packed(Buffer buffer, long offset, long[] extent, int elemSize) {
        return new Region(buffer, offset, extent, StridedCopy.cByteStrides(extent, elemSize));
    }

    @Override
    public long[] extent() {
        return extent.clone();
    }

    @Override
    public long[] byteStrides() {
        return byteStrides.clone();
    }

    public long elementCount() {
        long n = 1;
        for (long e : extent) {
            n *= e;
        }
        return n;
    }

    /** One copy of a region into another of the same extent. */
    public record Copy(Region src, Region dst) {
        public Copy {
            if (!Arrays.equals(src.extent, dst.extent)) {
                throw new IllegalArgumentException("region copy from extent " + Arrays.toString(src.extent)
                        + " to extent " + Arrays.toString(dst.extent));
            }
        }
    }
}
