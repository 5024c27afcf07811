// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import java.util.ArrayList;
import java.util.List;

/**
 * The arithmetic of reading an arbitrary byte range with {@code O_DIRECT}, where the file offset,
 * the length and the memory address of every read must be multiples of the block alignment
 * (4 KiB): a range is read as its aligned superset into an aligned bounce region, in pieces that
 * fit the bounce region, and each piece's payload is then copied from the bounce region to its
 * place. Ranges that are already aligned in all three respects are read straight into the
 * destination. Pure functions; no file, no device.
 */
public final class AlignedReads {

    /**
     * One read of the plan.
     *
     * @param fileOffset where the read starts in the file (aligned for a bounce read)
     * @param readLength bytes to read (aligned for a bounce read)
     * @param skip       bytes at the start of the bounce region before the payload (0 for a direct read)
     * @param payload    bytes of the request this piece delivers
     * @param dstOffset  where the payload goes, relative to the request's destination offset
     * @param direct     true when the read goes straight into the destination
     */
    public record Piece(long fileOffset, long readLength, long skip, long payload, long dstOffset, boolean direct) {
    }

    private AlignedReads() {
    }

    public static long alignDown(long v, long a) {
        return v - Math.floorMod(v, a);
    }

    public static long alignUp(long v, long a) {
        return alignDown(v + a - 1, a);
    }

    /**
     * The reads that deliver {@code length} bytes at {@code fileOffset} to a destination whose
     * address is {@code dstAddress}.
     *
     * @param align  block alignment (a power of two)
     * @param bounce bytes of the bounce region (a multiple of {@code align}, at least 3 × align)
     */
    public static List<Piece> plan(long fileOffset, long length, long dstAddress, long align, long bounce) {
        if (Long.bitCount(align) != 1 || bounce % align != 0 || bounce < 3 * align) {
            throw new IllegalArgumentException("alignment " + align + " must be a power of two and the bounce size "
                    + bounce + " a multiple of it, at least 3 blocks");
        }
        List<Piece> out = new ArrayList<>();
        if (length == 0) {
            return out;
        }
        if (fileOffset % align == 0 && length % align == 0 && dstAddress % align == 0) {
            out.add(new Piece(fileOffset, length, 0, length, 0, true));
            return out;
        }
        long maxPayload = bounce - 2 * align; // head and tail rounding add less than 2 blocks
        long done = 0;
        while (done < length) {
            long n = Math.min(maxPayload, length - done);
            long start = fileOffset + done;
            long aStart = alignDown(start, align);
            long aEnd = alignUp(start + n, align);
            out.add(new Piece(aStart, aEnd - aStart, start - aStart, n, done, false));
            done += n;
        }
        return out;
    }
}
