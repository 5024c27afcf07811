// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The free lists of OpenCL blocks: classes, taking a larger block, making room by age. */
class BlockPoolTest {

    private static final long MIB = 1L << 20;
    private long nextMem = 1;

    private BlockPool.Block block(BlockPool pool, long bytes) {
        return new BlockPool.Block(nextMem++, 0, pool.blockSize(bytes));
    }

    @Test
    void sizesRoundUpToTheirClass() {
        BlockPool pow2 = new BlockPool(1L << 30);
        assertEquals(BlockPool.MIN_CLASS, pow2.blockSize(1));
        assertEquals(256 * MIB, pow2.blockSize(241 * MIB));
        assertEquals(512 * MIB, pow2.blockSize(274 * MIB));
        BlockPool eighths = new BlockPool(1L << 30, 8);
        assertEquals(288 * MIB, eighths.blockSize(274 * MIB));
        assertEquals(2L << 30, pow2.blockSize(2L << 30), "over the largest class: its own size");
        assertThrows(IllegalArgumentException.class, () -> new BlockPool(1, 3));
    }

    @Test
    void aRequestTakesItsClassElseTheSmallestUpToTwiceIt() {
        BlockPool pool = new BlockPool(4L << 30);
        BlockPool.Block b512 = block(pool, 512 * MIB);
        BlockPool.Block b1g = block(pool, 1024 * MIB);
        BlockPool.Block b256 = block(pool, 256 * MIB);
        for (BlockPool.Block b : List.of(b512, b1g, b256)) {
            assertEquals(List.of(), pool.giveBack(b));
        }
        assertSame(b256, pool.take(241 * MIB), "its own class first");
        assertSame(b512, pool.take(241 * MIB), "then the smallest larger one");
        assertNull(pool.take(241 * MIB), "1 GiB is more than twice its class: not taken");
        assertSame(b1g, pool.take(600 * MIB));
        assertEquals(0, pool.retainedBytes());
    }

    @Test
    void aBlockGivenBackMakesRoomByLettingTheOldestGo() {
        // 1 GiB kept: 256 + 128 + 256 + 128 MiB, then a 512 MiB block comes back (a larger host part)
        BlockPool pool = new BlockPool(1L << 30);
        BlockPool.Block a = block(pool, 256 * MIB);
        BlockPool.Block b = block(pool, 128 * MIB);
        BlockPool.Block c = block(pool, 256 * MIB);
        BlockPool.Block d = block(pool, 128 * MIB);
        for (BlockPool.Block x : List.of(a, b, c, d)) {
            assertEquals(List.of(), pool.giveBack(x));
        }
        assertEquals(768 * MIB, pool.retainedBytes());
        BlockPool.Block big = block(pool, 300 * MIB);
        assertEquals(512 * MIB, big.size());
        assertEquals(List.of(a), pool.giveBack(big), "the one given back first makes room");
        assertEquals(1024 * MIB, pool.retainedBytes());
        assertSame(big, pool.take(274 * MIB), "the next host part of its size finds it");
        // taking a block refreshes nothing: what is given back again is the newest
        assertEquals(List.of(), pool.giveBack(big));
        assertEquals(List.of(b, c, d), pool.giveBack(block(pool, 512 * MIB)));
        assertEquals(1024 * MIB, pool.retainedBytes());
    }

    @Test
    void blocksThePoolCannotKeepGoBackToTheCaller() {
        BlockPool pool = new BlockPool(256 * MIB);
        BlockPool.Block odd = new BlockPool.Block(nextMem++, 0, 3 * MIB + 1);
        assertEquals(List.of(odd), pool.giveBack(odd), "not a class size");
        BlockPool.Block huge = block(pool, 2L << 30);
        assertEquals(List.of(huge), pool.giveBack(huge), "over the largest class");
        BlockPool.Block tooBig = block(pool, 512 * MIB);
        assertEquals(List.of(tooBig), pool.giveBack(tooBig), "larger than all the pool keeps");
        assertEquals(0, pool.retainedBytes());
        BlockPool.Block kept = block(pool, 64 * MIB);
        assertEquals(List.of(), pool.giveBack(kept));
        assertEquals(List.of(kept), pool.close());
        BlockPool.Block late = block(pool, 64 * MIB);
        assertEquals(List.of(late), pool.giveBack(late), "closed: nothing kept");
        assertNull(pool.take(64 * MIB));
    }

    @Test
    void manyThreadsTakeAndGiveBackWithoutLosingABlock() throws Exception {
        BlockPool pool = new BlockPool(64 * MIB);
        java.util.Set<Long> freed = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicLong made = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong ids = new java.util.concurrent.atomic.AtomicLong(1);
        List<Thread> threads = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int seed = t;
            threads.add(Thread.ofPlatform().start(() -> {
                java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
                for (int i = 0; i < 2000; i++) {
                    long bytes = r.nextLong(1, 24 * MIB);
                    BlockPool.Block b = pool.take(bytes);
                    if (b == null) {
                        b = new BlockPool.Block(ids.getAndIncrement(), 0, pool.blockSize(bytes));
                        made.incrementAndGet();
                    }
                    assertTrue(b.size() >= bytes && b.size() <= 2 * pool.blockSize(bytes), b + " for " + bytes);
                    for (BlockPool.Block f : pool.giveBack(b)) {
                        assertTrue(freed.add(f.mem()), "freed twice: " + f);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(pool.retainedBytes() <= 64 * MIB);
        List<BlockPool.Block> left = pool.close();
        for (BlockPool.Block f : left) {
            assertTrue(freed.add(f.mem()), "kept and freed: " + f);
        }
        assertEquals(made.get(), freed.size(), "every block made is freed once");
        assertEquals(left.stream().mapToLong(BlockPool.Block::size).sum() <= 64 * MIB, true);
    }
}
