// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import java.util.Arrays;
import java.util.Objects;

/**
 * An n-dimensional box inside a buffer: the byte offset of its first element, its extent in
 * elements per dimension and the byte stride of each dimension. Chunks are placed into tensors
 * and gathered from them as regions.
 *
 * <p>A region is a description, not a view: it neither owns nor checks its buffer, which must stay
 * open while the region is copied or filled. The constructor checks ranks and the offset, not that
 * the box lies inside the buffer; {@link dev.zarrdirect.api.backend.Backend#copyRegions} and
 * {@link dev.zarrdirect.api.backend.Backend#fillRegions} (through the segment's bounds checks, on
 * the host) are where an out-of-range box fails. The arrays are copied in and out, so a region is
 * immutable.
 *
 * {@snippet :
 * // rows 2..3, columns 4..7 of a C-order float32 matrix of 10 x 16 in buf
 * Region r = new Region(buf, (2 * 16 + 4) * 4, new long[] {2, 4}, new long[] {16 * 4, 4});
 * }
 *
 * @param buffer      the memory the box lies in; not owned
 * @param offset      the byte offset of the box's first element (index all zeros) from the buffer's start
 * @param extent      the number of elements along each dimension; copied
 * @param byteStrides the step of each dimension, in bytes (not elements, unlike
 *                    {@link dev.zarrdirect.api.Tensor#strides()}); same length as {@code extent}; copied
 */
public record Region(Buffer buffer, long offset, long[] extent, long[] byteStrides) {

    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException     when {@code buffer}, {@code extent} or {@code byteStrides} is null
     * @throws IllegalArgumentException when extent and strides differ in rank, or the offset is negative
     */
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

    /**
     * A packed C-order region of {@code extent} starting at {@code offset}: the last dimension has
     * byte stride {@code elemSize}.
     *
     * @param buffer   the memory; not owned
     * @param offset   the byte offset of the first element
     * @param extent   the number of elements along each dimension
     * @param elemSize the size of one element, in bytes
     * @return the region
     * @throws IllegalArgumentException for a negative offset
     */
    public static Region packed(Buffer buffer, long offset, long[] extent, int elemSize) {
        return new Region(buffer, offset, extent, StridedCopy.cByteStrides(extent, elemSize));
    }

    /**
     * The number of elements along each dimension.
     *
     * @return a copy; changing it does not change the region
     */
    @Override
    public long[] extent() {
        return extent.clone();
    }

    /**
     * The step of each dimension, in bytes.
     *
     * @return a copy; changing it does not change the region
     */
    @Override
    public long[] byteStrides() {
        return byteStrides.clone();
    }

    /**
     * The number of elements in the box: the product of the extent (1 for rank 0). Not checked for
     * overflow.
     *
     * @return the element count
     */
    public long elementCount() {
        long n = 1;
        for (long e : extent) {
            n *= e;
        }
        return n;
    }

    /**
     * One copy of a region into another of the same extent, element for element in index order;
     * the two may have different strides (that is how a chunk is placed into a larger tensor). The
     * element size is given to {@link dev.zarrdirect.api.backend.Backend#copyRegions} with the batch.
     *
     * @param src the region read
     * @param dst the region written; the result is unspecified when it overlaps {@code src}
     */
    public record Copy(Region src, Region dst) {
        /**
         * Checks that the extents match.
         *
         * @throws IllegalArgumentException when the extents differ
         * @throws NullPointerException     when {@code src} or {@code dst} is null
         */
        public Copy {
            if (!Arrays.equals(src.extent, dst.extent)) {
                throw new IllegalArgumentException("region copy from extent " + Arrays.toString(src.extent)
                        + " to extent " + Arrays.toString(dst.extent));
            }
        }
    }
}
