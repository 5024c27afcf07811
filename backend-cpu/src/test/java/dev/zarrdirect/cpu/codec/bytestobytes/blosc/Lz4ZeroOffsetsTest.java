// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Matches of offset 0 in LZ4 blocks (found by the device codec contract: a bit flip in a blosc lz4
 * stream made an offset 0, which lz4-java decoded from the destination's old bytes while the
 * kernels refused it): the CPU path refuses them too.
 */
class Lz4ZeroOffsetsTest {

    /** 4 literals "abcd", a match of 8 at {@code offset}, then 5 last literals: 17 bytes decoded. */
    private static byte[] block(int offset) {
        return new byte[]{(byte) 0x44, 'a', 'b', 'c', 'd', (byte) offset, (byte) (offset >>> 8),
                (byte) 0x50, 'v', 'w', 'x', 'y', 'z'};
    }

    private static long decode(byte[] block, MemorySegment dst) {
        BloscWorkspace ws = BloscWorkspace.take();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(block.length);
            MemorySegment.copy(MemorySegment.ofArray(block), 0, src, 0, block.length);
            ws.decompress(BloscCompressor.LZ4, src, 0, block.length, dst, 0, (int) dst.byteSize(), true, true);
            return dst.byteSize();
        } finally {
            BloscWorkspace.give(ws);
        }
    }

    @Test
    void aSoundBlockDecodesAndItsOffsetsAreNotZero() {
        assertEquals(-1, Lz4ZeroOffsets.find(MemorySegment.ofArray(block(4)), 0, 13));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment dst = a.allocate(17);
            decode(block(4), dst);
            assertEquals("abcdabcdabcdvwxyz", new String(dst.toArray(ValueLayout.JAVA_BYTE), java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aMatchOfOffsetZeroIsRefusedWhereverTheDestinationsOldBytesWouldHaveBeenCopied() {
        assertEquals(5, Lz4ZeroOffsets.find(MemorySegment.ofArray(block(0)), 0, 13));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment dst = a.allocate(17);
            dst.fill((byte) 'Q'); // what an earlier user of the memory left: it must not reach the output
            var e = assertThrows(IllegalArgumentException.class, () -> decode(block(0), dst));
            assertTrue(e.getMessage().contains("offset 0"), e.getMessage());
        }
    }

    @Test
    void lengthExtensionsAreSkippedAndACutStreamIsLeftToLz4() {
        // 15 + 3 literals (an extension byte), a match of 4 + 15 + 1 at offset 0 (an extension byte), last literals
        byte[] b = new byte[1 + 1 + 18 + 2 + 1 + 1 + 5];
        int p = 0;
        b[p++] = (byte) 0xFF;
        b[p++] = 3;
        for (int i = 0; i < 18; i++) {
            b[p++] = (byte) ('a' + i);
        }
        b[p++] = 0;
        b[p++] = 0;
        b[p++] = 1;
        b[p++] = (byte) 0x50;
        assertEquals(20, Lz4ZeroOffsets.find(MemorySegment.ofArray(b), 0, b.length));
        assertEquals(-1, Lz4ZeroOffsets.find(MemorySegment.ofArray(b), 0, 12), "cut inside the literals");
        assertEquals(-1, Lz4ZeroOffsets.find(MemorySegment.ofArray(b), 0, 21), "cut inside the offset");
        assertEquals(-1, Lz4ZeroOffsets.find(MemorySegment.ofArray(b), 0, 1), "cut inside the extension");
    }
}
