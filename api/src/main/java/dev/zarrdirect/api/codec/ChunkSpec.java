// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

import dev.zarrdirect.api.DataType;

import java.util.Arrays;
import java.util.Objects;

/**
 * The array representation a codec sees: a data type and a chunk shape. In memory this is C-order,
 * little-endian, packed: {@link #byteSize()} bytes.
 */
public record ChunkSpec(DataType dataType, long[] shape) {

    public ChunkSpec {
        Objects.requireNonNull(dataType, "dataType");
        shape = shape.clone();
        for (long s : shape) {
            if (s < 0) {
                throw new IllegalArgumentException("negative extent in chunk shape " + Arrays.toString(shape));
            }
        }
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    public int rank() {
        return shape.length;
    }

    public long elementCount() {
        long n = 1;
        for (long s : shape) {
            n = Math.multiplyExact(n, s);
        }
        return n;
    }

    public long byteSize() {
        return Math.multiplyExact(elementCount(), dataType.byteSize());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChunkSpec c && c.dataType.equals(dataType) && Arrays.equals(c.shape, shape);
    }

    @Override
    public int hashCode() {
        return dataType.hashCode() * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return dataType + Arrays.toString(shape);
    }
}
