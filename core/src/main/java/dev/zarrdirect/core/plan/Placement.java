// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.plan;

import java.util.Arrays;

/**
 * Where one box of a decoded chunk goes: the box {@code [chunkStart, chunkStart+extent)} of the
 * chunk, to {@code at} in the destination.
 */
public record Placement(long[] chunkStart, long[] extent, long[] at) {

    @Override
    public String toString() {
        return "Placement[chunkStart=" + Arrays.toString(chunkStart) + ", extent=" + Arrays.toString(extent)
                + ", at=" + Arrays.toString(at) + "]";
    }
}
