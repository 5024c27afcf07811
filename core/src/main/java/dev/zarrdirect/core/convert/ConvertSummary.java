// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import dev.zarrdirect.api.DataType;

import java.util.List;

/**
 * What a conversion is about to do, once planned: {@link ConvertListener#planned} gets it before
 * anything is written.
 *
 * @param source           the source store
 * @param sourceNode       what the source holds: {@code Zarr v3 array}, {@code Zarr v2 group, 3 arrays}
 * @param destination      where the conversion writes ({@code /out.zip (staged in /out.zip.partial)})
 * @param zarrFormat       the destination's Zarr format
 * @param unitName         what is counted: {@code shards} when any destination array is sharded, else {@code chunks}
 * @param arrays           each array converted, in the order they are written
 * @param memoryBoundBytes the memory the largest array streams in (blocks in flight and codec scratch)
 * @param memoryBound      how {@code memoryBoundBytes} comes about, in words; null when there is no array
 */
public record ConvertSummary(String source, String sourceNode, String destination, int zarrFormat, String unitName,
                             List<ArrayPlan> arrays, long memoryBoundBytes, String memoryBound) {

    /**
     * Copies {@code arrays}.
     *
     * @throws NullPointerException when {@code arrays} is or holds null
     */
    public ConvertSummary {
        arrays = List.copyOf(arrays);
    }

    /**
     * One array's conversion.
     *
     * @param path     its path in both stores ("" for a root array)
     * @param dataType its data type
     * @param shape    its shape, in elements; copied in and out
     * @param source   the source's layout: {@code chunks [10, 4, 19, 36]; bytes, zstd}
     * @param target   the destination's: {@code chunks [1, 4, 19, 36] in shards [4, 4, 19, 36]; bytes {"endian": "little"}, zstd {...}}
     * @param note     a remark ({@code rank 1: --chunks 1,-1 does not apply; layout kept}), or null
     */
    public record ArrayPlan(String path, DataType dataType, long[] shape, String source, String target, String note) {

        /**
         * Copies {@code shape}.
         *
         * @throws NullPointerException when {@code shape} is null
         */
        public ArrayPlan {
            shape = shape.clone();
        }

        /**
         * The array's shape, in elements.
         *
         * @return a fresh copy
         */
        @Override
        public long[] shape() {
            return shape.clone();
        }
    }
}
