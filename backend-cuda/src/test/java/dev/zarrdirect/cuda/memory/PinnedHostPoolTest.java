// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.memory;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class PinnedHostPoolTest {

    @Test
    void blocksArePowersOfTwoFrom64KiBUpTo1GiB() {
        assertEquals(64 << 10, PinnedHostPool.blockSize(0));
        assertEquals(64 << 10, PinnedHostPool.blockSize(1));
        assertEquals(64 << 10, PinnedHostPool.blockSize(64 << 10));
        assertEquals(128 << 10, PinnedHostPool.blockSize((64 << 10) + 1));
        assertEquals(1L << 30, PinnedHostPool.blockSize((1L << 29) + 1));
        assertEquals((1L << 30) + 5, PinnedHostPool.blockSize((1L << 30) + 5));
    }
}
