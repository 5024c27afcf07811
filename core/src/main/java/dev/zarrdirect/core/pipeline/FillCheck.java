// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.buffer.StridedCopy;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Whether a chunk holds nothing but its fill value, so that a writer can leave it out. */
public final class FillCheck {
    private static final int BLOCK = 64 * 1024;
    private static final MemorySegment ZEROS = Arena.global().allocate(BLOCK);

    private FillCheck() {
    }

    /** True when every element of {@code data} equals {@code pattern} (one element's bytes). */
    public static boolean isAll(MemorySegment data, MemorySegment pattern) {
        long n = data.byteSize();
        int es = (int) pattern.byteSize();
        MemorySegment ref;
        if (StridedCopy.isZero(pattern)) {
            ref = ZEROS;
        } else {
            // A block that is a whole number of elements long, filled with the pattern.
            long len = Math.min(n, (BLOCK / es) * (long) es);
            ref = Arena.ofAuto().allocate(Math.max(len, 1));
            StridedCopy.fillRun(ref, 0, len / es, pattern, false);
            ref = ref.asSlice(0, len);
        }
        long step = ref.byteSize();
        for (long off = 0; off < n; off += step) {
            long len = Math.min(step, n - off);
            if (MemorySegment.mismatch(data, off, off + len, ref, 0, len) != -1) {
                return false;
            }
        }
        return true;
    }
}
