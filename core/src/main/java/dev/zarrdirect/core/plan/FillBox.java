// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.plan;

import java.util.Arrays;

/** A box of the destination that no stored chunk covers: it reads as the fill value. */
public record FillBox(long[] at, long[] extent) {

    @Override
    public String toString() {
        return "FillBox[at=" + Arrays.toString(at) + ", extent=" + Arrays.toString(extent) + "]";
    }
}
