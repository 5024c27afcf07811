// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class NativeBlocksTest {

    @Test
    void largeBlocksComeFromCallocZeroedAlignedAndWritable() {
        assertTrue(NativeBlocks.callocBound(), "tests run with native access: calloc must bind");
        for (long size : new long[]{NativeBlocks.MIN_BYTES, (3L << 20) + 7, 64L << 20}) {
            NativeBlocks.Block b = NativeBlocks.allocate(size, 64);
            try {
                MemorySegment s = b.segment();
                assertEquals(size, s.byteSize());
                assertEquals(0, s.address() % 64, "aligned");
                for (long at = 0; at < size; at += 4093) {
                    assertEquals(0, s.get(ValueLayout.JAVA_BYTE, at), "zero at " + at);
                }
                assertEquals(0, s.get(ValueLayout.JAVA_BYTE, size - 1));
                s.fill((byte) 0x5A); // every byte is ours to write
                assertEquals(0x5A, s.get(ValueLayout.JAVA_BYTE, size - 1));
            } finally {
                b.free().run();
            }
            assertThrows(IllegalStateException.class, () -> b.segment().get(ValueLayout.JAVA_BYTE, 0),
                    "a freed block's segment fails instead of reading freed memory");
        }
    }

    @Test
    void smallBlocksComeFromAnArena() {
        NativeBlocks.Block b = NativeBlocks.allocate(4096, 64);
        assertEquals(4096, b.segment().byteSize());
        assertEquals(-1, b.segment().mismatch(MemorySegment.ofArray(new byte[4096])), "zeroed");
        b.free().run();
        assertThrows(IllegalStateException.class, () -> b.segment().get(ValueLayout.JAVA_BYTE, 0), "the arena is closed");
    }

    @Test
    void aLargeBlockAdvisedToUseHugePagesGetsThemWhereTheKernelGivesThemOnAdvice() throws IOException {
        assumeTrue(thpOnAdviceOnly(), "transparent huge pages on advice only (Linux, THP mode madvise)");
        assertTrue(NativeBlocks.hugePageAdviceBound(), "on Linux madvise must bind");
        long size = 64L << 20;
        long advised = hugeBytesAfterTouching(NativeBlocks.allocate(size, 64, true), size);
        long plain = hugeBytesAfterTouching(NativeBlocks.allocate(size, 64, false), size);
        // the kernel may decline (no free 2 MiB page), so this asks for some, not all, and none without advice
        assertTrue(advised >= 8L << 20, "advised: " + advised + " bytes in huge pages");
        assertEquals(0, plain, "not advised, THP mode madvise: no huge pages");
    }

    /** Touches every page of the block and returns the bytes of its mapping that lie in huge pages. */
    private static long hugeBytesAfterTouching(NativeBlocks.Block b, long size) throws IOException {
        try {
            MemorySegment s = b.segment();
            for (long at = 0; at < size; at += 4096) {
                s.set(ValueLayout.JAVA_BYTE, at, (byte) 1);
            }
            return anonHugeBytes(s.address() + size / 2);
        } finally {
            b.free().run();
        }
    }

    /** Whether this machine gives huge pages on advice only (Linux, THP mode madvise): where the advice shows. */
    static boolean thpOnAdviceOnly() throws IOException {
        Path mode = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
        return Files.isReadable(mode) && Files.readString(mode).contains("[madvise]");
    }

    /** AnonHugePages of the mapping of /proc/self/smaps that holds {@code address}. */
    static long anonHugeBytes(long address) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
        boolean in = false;
        for (String line : lines) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                String[] range = line.substring(0, line.indexOf(' ')).split("-");
                in = Long.parseUnsignedLong(range[0], 16) <= address && address < Long.parseUnsignedLong(range[1], 16);
            } else if (in && line.startsWith("AnonHugePages:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
            }
        }
        fail("no mapping holds " + Long.toHexString(address));
        return -1;
    }
}
