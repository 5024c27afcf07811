// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.memory;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The pinned pool's free lists: a larger block when its own size has none, room made by age. */
class FreeBlocksTest {

    private static final long MIB = 1L << 20;

    @Test
    void aRequestTakesItsSizeElseTheSmallestUpToTwiceIt() {
        FreeBlocks f = new FreeBlocks(4L << 30);
        assertEquals(List.of(), f.giveBack(0x1000, 512 * MIB));
        assertEquals(List.of(), f.giveBack(0x2000, 1024 * MIB));
        assertEquals(List.of(), f.giveBack(0x3000, 256 * MIB));
        assertEquals(new FreeBlocks.Block(0x3000, 256 * MIB), f.take(256 * MIB));
        assertEquals(new FreeBlocks.Block(0x1000, 512 * MIB), f.take(256 * MIB));
        assertNull(f.take(256 * MIB), "1 GiB is more than twice 256 MiB");
        assertNull(f.take(2048 * MIB));
        assertEquals(new FreeBlocks.Block(0x2000, 1024 * MIB), f.take(512 * MIB));
        assertEquals(0, f.retainedBytes());
    }

    @Test
    void aBlockGivenBackLetsTheOldestGo() {
        FreeBlocks f = new FreeBlocks(1L << 30);
        assertEquals(List.of(), f.giveBack(1, 256 * MIB));
        assertEquals(List.of(), f.giveBack(2, 128 * MIB));
        assertEquals(List.of(), f.giveBack(3, 256 * MIB));
        assertEquals(List.of(), f.giveBack(4, 128 * MIB));
        assertEquals(List.of(1L), f.giveBack(5, 512 * MIB));
        assertEquals(1024 * MIB, f.retainedBytes());
        assertEquals(List.of(2L, 3L, 4L), f.giveBack(6, 512 * MIB));
        assertEquals(List.of(7L), f.giveBack(7, 2048 * MIB), "larger than the lists keep: the caller frees it");
        List<FreeBlocks.Block> left = f.clear();
        assertEquals(List.of(new FreeBlocks.Block(5, 512 * MIB), new FreeBlocks.Block(6, 512 * MIB)), left);
        assertEquals(0, f.retainedBytes());
    }

    @Test
    void randomTakesAndGiveBacksLoseNoBlockAndFreeNoneTwice() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(42);
        FreeBlocks f = new FreeBlocks(64 * MIB);
        java.util.Set<Long> outside = new java.util.HashSet<>(); // made, not yet freed nor kept
        java.util.Set<Long> freed = new java.util.HashSet<>();
        java.util.Map<Long, Long> sizes = new java.util.HashMap<>();
        long next = 1;
        for (int i = 0; i < 20_000; i++) {
            long size = PinnedHostPool.blockSize(r.nextLong(1, 40 * MIB));
            FreeBlocks.Block b = f.take(size);
            long a;
            if (b == null) {
                a = next++;
                sizes.put(a, size);
            } else {
                a = b.address();
                assertEquals(sizes.get(a), b.size());
                assertTrue(b.size() >= size && b.size() <= 2 * size);
            }
            assertTrue(outside.add(a), "handed out twice: " + a);
            if (r.nextBoolean() || outside.size() > 8) {
                long back = outside.iterator().next();
                outside.remove(back);
                for (long x : f.giveBack(back, sizes.get(back))) {
                    assertTrue(freed.add(x), "freed twice: " + x);
                    assertFalse(outside.contains(x));
                }
                assertTrue(f.retainedBytes() <= 64 * MIB);
            }
        }
        for (FreeBlocks.Block b : f.clear()) {
            assertTrue(freed.add(b.address()), "kept and freed: " + b);
        }
        assertEquals(next - 1, freed.size() + outside.size(), "every block made is kept, out or freed once");
    }
}
