// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.plan;

import java.util.Arrays;

/**
 * A box of the destination that no stored chunk covers: it reads as the fill value. Plans list
 * fill boxes only for what planning finds missing (a shard that does not exist, an inner chunk its
 * shard's index marks empty); a missing chunk of an unsharded array is found, and filled, when it
 * is fetched.
 *
 * <p>The arrays are kept as given, not copied, so {@code equals} compares them by identity. Do not
 * change them.
 *
 * @param at     where the box starts in the destination, in elements
 * @param extent the box's extent in each dimension, in elements
 */
public record FillBox(long[] at, long[] extent) {

    @Override
    public String toString() {
        return "FillBox[at=" + Arrays.toString(at) + ", extent=" + Arrays.toString(extent) + "]";
    }
}
