// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

import dev.zarrdirect.api.DataType;

import java.util.Arrays;
import java.util.Objects;

/**
 * The array representation a codec sees: a data type and a chunk shape. In memory this is C-order,
 * little-endian, packed: {@link #byteSize()} bytes. Immutable: the shape is copied in and out.
 * Two specs are equal when their data types and shapes are.
 *
 * {@snippet :
 * ChunkSpec spec = new ChunkSpec(DataType.FLOAT32, new long[] {256, 256});
 * spec.byteSize();   // 262144 bytes (65536 elements of 4 bytes)
 * }
 *
 * @param dataType the element type
 * @param shape    the chunk's extent along each dimension, in elements; none negative
 */
public record ChunkSpec(DataType dataType, long[] shape) {

    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException     when {@code dataType} or {@code shape} is null
     * @throws IllegalArgumentException for a negative extent
     */
    public ChunkSpec {
        Objects.requireNonNull(dataType, "dataType");
        shape = shape.clone();
        for (long s : shape) {
            if (s < 0) {
                throw new IllegalArgumentException("negative extent in chunk shape " + Arrays.toString(shape));
            }
        }
    }

    /**
     * The chunk's extent along each dimension, in elements.
     *
     * @return a copy; changing it does not change the spec
     */
    @Override
    public long[] shape() {
        return shape.clone();
    }

    /**
     * The number of dimensions.
     *
     * @return the length of the shape; 0 for a single element
     */
    public int rank() {
        return shape.length;
    }

    /**
     * The number of elements: the product of the shape (1 for rank 0).
     *
     * @return the element count
     * @throws ArithmeticException when it overflows a {@code long}
     */
    public long elementCount() {
        long n = 1;
        for (long s : shape) {
            n = Math.multiplyExact(n, s);
        }
        return n;
    }

    /**
     * The packed size in bytes: {@code elementCount() * dataType().byteSize()}.
     *
     * @return the size in bytes
     * @throws ArithmeticException when it overflows a {@code long}
     */
    public long byteSize() {
        return Math.multiplyExact(elementCount(), dataType.byteSize());
    }

    /**
     * Equal when the data types and the shapes (by content) are.
     *
     * @param o the object to compare with
     * @return true for an equal spec
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof ChunkSpec c && c.dataType.equals(dataType) && Arrays.equals(c.shape, shape);
    }

    /**
     * A hash of the data type and the shape's content, consistent with {@link #equals}.
     *
     * @return the hash code
     */
    @Override
    public int hashCode() {
        return dataType.hashCode() * 31 + Arrays.hashCode(shape);
    }

    /**
     * The spec as messages print it: {@code float32[256, 256]}.
     *
     * @return the description
     */
    @Override
    public String toString() {
        return dataType + Arrays.toString(shape);
    }
}
