// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.*;

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
}
