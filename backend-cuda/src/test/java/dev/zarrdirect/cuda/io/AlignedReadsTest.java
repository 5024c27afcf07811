// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The O_DIRECT read plans: executed against a byte array standing for the file (reads of aligned
 * offsets and lengths only, into an aligned bounce), they deliver exactly the requested bytes.
 */
class AlignedReadsTest {

    static final long A = 4096;

    /** Executes a plan the way CuFileReader does, checking O_DIRECT's rules on every bounce read. */
    static byte[] execute(byte[] file, long offset, long length, long dstAddress, long bounce) {
        byte[] dst = new byte[(int) length];
        for (AlignedReads.Piece p : AlignedReads.plan(offset, length, dstAddress, A, bounce)) {
            if (p.direct()) {
                assertEquals(0, p.fileOffset() % A);
                assertEquals(0, p.readLength() % A);
                assertEquals(0, (dstAddress + p.dstOffset()) % A);
                System.arraycopy(file, (int) p.fileOffset(), dst, (int) p.dstOffset(), (int) p.payload());
                continue;
            }
            assertEquals(0, p.fileOffset() % A, "bounce reads start aligned");
            assertEquals(0, p.readLength() % A, "bounce reads are whole blocks");
            assertTrue(p.readLength() <= bounce, "a bounce read fits the bounce region");
            assertTrue(p.skip() + p.payload() <= p.readLength());
            byte[] b = new byte[(int) p.readLength()];
            int avail = (int) Math.max(0, Math.min(p.readLength(), file.length - p.fileOffset())); // short read at EOF
            System.arraycopy(file, (int) p.fileOffset(), b, 0, avail);
            assertTrue(avail >= p.skip() + p.payload(), "the payload is inside the file");
            System.arraycopy(b, (int) p.skip(), dst, (int) p.dstOffset(), (int) p.payload());
        }
        return dst;
    }

    @Property(tries = 300)
    void plansDeliverExactlyTheRange(@ForAll @LongRange(min = 0, max = 200_000) long offset,
                                     @ForAll @LongRange(min = 0, max = 100_000) long length,
                                     @ForAll @LongRange(min = 0, max = 3) long dstBlocks,
                                     @ForAll @LongRange(min = 0, max = 4095) long dstMisalign,
                                     @ForAll @LongRange(min = 3, max = 10) long bounceBlocks) {
        byte[] file = new byte[(int) (offset + length + new Random(offset).nextInt(5000))];
        new Random(offset * 31 + length).nextBytes(file);
        long dst = (1L << 32) + dstBlocks * A + dstMisalign;
        byte[] got = execute(file, offset, length, dst, bounceBlocks * A);
        byte[] want = java.util.Arrays.copyOfRange(file, (int) offset, (int) (offset + length));
        assertArrayEquals(want, got);
    }

    @Test
    void alignedRangesGoStraightIntoTheDestination() {
        List<AlignedReads.Piece> p = AlignedReads.plan(8192, 3 * A, 1L << 20, A, 16 * A);
        assertEquals(List.of(new AlignedReads.Piece(8192, 3 * A, 0, 3 * A, 0, true)), p);
    }

    @Test
    void anUnalignedRangeReadsItsAlignedSuperset() {
        List<AlignedReads.Piece> p = AlignedReads.plan(5000, 100, 1L << 20, A, 16 * A);
        assertEquals(List.of(new AlignedReads.Piece(4096, 4096, 904, 100, 0, false)), p);
        List<AlignedReads.Piece> q = AlignedReads.plan(4000, 200, 1L << 20, A, 16 * A);
        assertEquals(List.of(new AlignedReads.Piece(0, 8192, 4000, 200, 0, false)), q);
    }

    @Test
    void anAlignedRangeIntoAnUnalignedAddressIsBounced() {
        assertFalse(AlignedReads.plan(0, A, (1L << 20) + 256, A, 16 * A).getFirst().direct());
    }

    @Test
    void badAlignmentOrBounceSizesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> AlignedReads.plan(0, 1, 0, 3000, 9000));
        assertThrows(IllegalArgumentException.class, () -> AlignedReads.plan(0, 1, 0, A, 2 * A));
    }
}
