// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The device pools' free lists: a larger block when its own size has none, room made by age. */
class FreeBlocksTest {

    private static final long MIB = 1L << 20;

    /** A block as CUDA's pinned pool keeps it: an address and a size. */
    record Block(long address, long size) {
    }

    private static FreeBlocks<Block> lists(long retained) {
        return new FreeBlocks<>(retained, Block::size);
    }

    /** A power of two from 64 KiB, as the pools round sizes. */
    private static long powerOfTwo(long bytes) {
        long b = Math.max(64 << 10, Long.highestOneBit(bytes));
        return b < bytes ? b << 1 : b;
    }

    @Test
    void aRequestTakesItsSizeElseTheSmallestUpToTwiceIt() {
        FreeBlocks<Block> f = lists(4L << 30);
        assertEquals(List.of(), f.giveBack(new Block(0x1000, 512 * MIB)));
        assertEquals(List.of(), f.giveBack(new Block(0x2000, 1024 * MIB)));
        assertEquals(List.of(), f.giveBack(new Block(0x3000, 256 * MIB)));
        assertEquals(new Block(0x3000, 256 * MIB), f.take(256 * MIB));
        assertEquals(new Block(0x1000, 512 * MIB), f.take(256 * MIB));
        assertNull(f.take(256 * MIB), "1 GiB is more than twice 256 MiB");
        assertNull(f.take(2048 * MIB));
        assertEquals(new Block(0x2000, 1024 * MIB), f.take(512 * MIB));
        assertEquals(0, f.retainedBytes());
    }

    @Test
    void aBlockGivenBackLetsTheOldestGo() {
        FreeBlocks<Block> f = lists(1L << 30);
        assertEquals(List.of(), f.giveBack(new Block(1, 256 * MIB)));
        assertEquals(List.of(), f.giveBack(new Block(2, 128 * MIB)));
        assertEquals(List.of(), f.giveBack(new Block(3, 256 * MIB)));
        assertEquals(List.of(), f.giveBack(new Block(4, 128 * MIB)));
        assertEquals(List.of(new Block(1, 256 * MIB)), f.giveBack(new Block(5, 512 * MIB)));
        assertEquals(1024 * MIB, f.retainedBytes());
        assertEquals(List.of(new Block(2, 128 * MIB), new Block(3, 256 * MIB), new Block(4, 128 * MIB)),
                f.giveBack(new Block(6, 512 * MIB)));
        assertEquals(List.of(new Block(7, 2048 * MIB)), f.giveBack(new Block(7, 2048 * MIB)),
                "larger than the lists keep: the caller frees it");
        List<Block> left = f.clear();
        assertEquals(List.of(new Block(5, 512 * MIB), new Block(6, 512 * MIB)), left);
        assertEquals(0, f.retainedBytes());
    }

    @Test
    void randomTakesAndGiveBacksLoseNoBlockAndFreeNoneTwice() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(42);
        FreeBlocks<Block> f = lists(64 * MIB);
        java.util.Set<Long> outside = new java.util.HashSet<>(); // made, not yet freed nor kept
        java.util.Set<Long> freed = new java.util.HashSet<>();
        java.util.Map<Long, Long> sizes = new java.util.HashMap<>();
        long next = 1;
        for (int i = 0; i < 20_000; i++) {
            long size = powerOfTwo(r.nextLong(1, 40 * MIB));
            Block b = f.take(size);
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
                for (Block fb : f.giveBack(new Block(back, sizes.get(back)))) {
                    long x = fb.address();
                    assertTrue(freed.add(x), "freed twice: " + x);
                    assertFalse(outside.contains(x));
                }
                assertTrue(f.retainedBytes() <= 64 * MIB);
            }
        }
        for (Block b : f.clear()) {
            assertTrue(freed.add(b.address()), "kept and freed: " + b);
        }
        assertEquals(next - 1, freed.size() + outside.size(), "every block made is kept, out or freed once");
    }
}
