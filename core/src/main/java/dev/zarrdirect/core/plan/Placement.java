// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.plan;

import java.util.Arrays;

/**
 * Where one box of a decoded chunk goes: the box {@code [chunkStart, chunkStart+extent)} of the
 * chunk, to {@code at} in the destination. All values are element coordinates of the array's rank.
 *
 * <p>The arrays are kept as given, not copied, so {@code equals} compares them by identity. Do not
 * change them.
 *
 * @param chunkStart first element of the box, in coordinates local to the chunk (or inner chunk)
 * @param extent     the box's extent in each dimension, in elements
 * @param at         where {@code chunkStart} lands in the destination
 */
public record Placement(long[] chunkStart, long[] extent, long[] at) {

    @Override
    public String toString() {
        return "Placement[chunkStart=" + Arrays.toString(chunkStart) + ", extent=" + Arrays.toString(extent)
                + ", at=" + Arrays.toString(at) + "]";
    }
}
