// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.io.ByteArrayOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;
import static dev.zarrdirect.kernels.InflateTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The writers' chase (zd_inflate.h, ZD_INF_CHASE), run where every item meets at every segment
 * (OpenCL's loop; the host build runs it with the writers' own barrier turned off): a segment may
 * hold up to that many records that read bytes of it, and the writers follow such a byte back that
 * many records at most. Streams made by hand so that each match copies the match before it: chains
 * of any depth. The host build's ZD_TEST_MAX slots say how deep the writers went (0) and whether the
 * bound ever stopped one inside its segment (1), which a decoder that cut one record late would do.
 */
class InflateChaseTest {

    /** ZD_INF_CHASE where the host build compiles the kernels. */
    static final int CHASE = 8;

    /**
     * A raw deflate stream of one fixed-Huffman block: {@code groups} times four literals, then
     * {@code depth} times a literal and a match of 4 bytes at distance 5, which copies the match
     * before it (the first copies the four literals). Its bytes go to {@code want}.
     */
    static byte[] chains(int groups, int depth, Random r, ByteArrayOutputStream want) {
        InflateSplitTest.Bits b = new InflateSplitTest.Bits();
        b.put(1, 1); // final
        b.put(1, 2); // fixed Huffman
        byte[] out = new byte[groups * (4 + 5 * depth)];
        int n = 0;
        for (int g = 0; g < groups; g++) {
            for (int i = 0; i < 4 + depth; i++) {
                int v = 'a' + r.nextInt(26);
                b.code(0x30 + v, 8);                  // literals 0..143: 8-bit codes from 0x30
                out[n++] = (byte) v;
                if (i >= 4) {                         // a match of 4 (symbol 258) at distance 5
                    b.code(258 - 256, 7);
                    b.code(4, 5);                     // distance code 4: 5 and one extra bit
                    b.put(0, 1);
                    System.arraycopy(out, n - 5, out, n, 4);
                    n += 4;
                }
            }
        }
        b.code(0, 7); // end of block
        if (b.n > 0) b.put(0, 8 - b.n);
        want.write(out, 0, n);
        return b.out.toByteArray();
    }

    @Test
    void chainsDeeperThanTheBoundAreCutAndDecodeRight() {
        Random r = new Random(SEED ^ 0xC4A5E);
        HostKernels k = HostKernels.get();
        boolean before = k.setTailBarrier(false);
        try {
            for (int depth : new int[] {1, CHASE - 1, CHASE, CHASE + 1, 3 * CHASE + 2, 100}) {
                ByteArrayOutputStream want = new ByteArrayOutputStream();
                byte[] s = chains(400, depth, r, want);
                byte[] d = want.toByteArray();
                for (int ls : new int[] {1, 5, 64}) {
                    k.testMax(0, true);
                    k.testMax(1, true);
                    String what = "chains of " + depth + ", " + ls + " items";
                    Decoded x = decode(s, d.length, RAW, ls);
                    assertEquals(ZdStatusCodes.OK, x.status(), what);
                    assertTrue(x.guardsIntact(), what);
                    assertArrayEquals(d, x.out(), what);
                    assertEquals(0, k.testMax(1, false), what + ": the bound stopped a chase inside its segment");
                    int deepest = k.testMax(0, false);
                    assertTrue(deepest <= CHASE, what + ": chased " + deepest + " records");
                    if (depth >= CHASE) assertEquals(CHASE, deepest, what + ": chains this deep should reach the bound");
                }
            }
        } finally {
            k.setTailBarrier(before);
        }
    }
}
