// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

class BloscLzTest {

    private final long seed = new Random().nextLong();
    private final Random random = new Random(seed);

    private static MemorySegment native_(Arena arena, byte[] b) {
        MemorySegment s = arena.allocate(Math.max(1, b.length));
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s.asSlice(0, b.length);
    }

    private byte[] roundTrip(Arena arena, byte[] data) {
        MemorySegment in = native_(arena, data);
        MemorySegment packed = arena.allocate(data.length + 16);
        int n = BloscLz.compress(in, 0, data.length, packed, 0, data.length - 1, new int[BloscLz.tableSize()]);
        if (n == 0) {
            return null;
        }
        assertTrue(n < data.length, "compressed " + n + " of " + data.length);
        MemorySegment out = arena.allocate(data.length);
        assertEquals(data.length, BloscLz.decompress(packed, 0, n, out, 0, data.length));
        assertArrayEquals(data, out.toArray(ValueLayout.JAVA_BYTE), "seed " + seed);
        return packed.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void encoderOutputDecodesBackForRunsPatternsLongMatchesAndFarDistances() {
        try (Arena arena = Arena.ofConfined()) {
            assertNotNull(roundTrip(arena, new byte[100_000]), "zeros compress");
            byte[] pattern = new byte[50_000];
            for (int i = 0; i < pattern.length; i++) {
                pattern[i] = (byte) (i % 7 * 31 + i % 3);
            }
            assertNotNull(roundTrip(arena, pattern));
            // A random block repeated 20 000 and 70 000 bytes later: short and far (16-bit) distances.
            byte[] far = new byte[120_000];
            random.nextBytes(far);
            System.arraycopy(far, 0, far, 20_000, 5_000);
            System.arraycopy(far, 0, far, 70_000, 40_000);
            assertNotNull(roundTrip(arena, far));
            byte[] smooth = new byte[65_536];
            for (int i = 0; i < smooth.length; i++) {
                smooth[i] = (byte) ((i / 64) + (random.nextInt(8) == 0 ? 1 : 0));
            }
            assertNotNull(roundTrip(arena, smooth));
            byte[] noise = new byte[10_000];
            random.nextBytes(noise);
            assertNull(roundTrip(arena, noise), "random data does not compress");
        }
    }

    @Test
    void decoderReadsHandWrittenInstructionsOfEveryKind() {
        try (Arena arena = Arena.ofConfined()) {
            // literal "abc", match len 3 distance 3 ("abc"), match len 9+2 (extension) distance 1,
            // then a literal "Z".
            byte[] stream = {
                    2, 'a', 'b', 'c',
                    (byte) (1 << 5), 2,
                    (byte) (7 << 5), 2, 0,
                    0, 'Z'};
            MemorySegment out = arena.allocate(3 + 3 + 11 + 1);
            assertEquals(18, BloscLz.decompress(native_(arena, stream), 0, stream.length, out, 0, 18));
            assertEquals("abcabc" + "c".repeat(11) + "Z", new String(out.toArray(ValueLayout.JAVA_BYTE)));
        }
    }

    @Test
    void decoderRejectsMalformedStreamsWithTheirPosition() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(64);
            byte[][] bad = {
                    {},                                        // empty
                    {5, 'a', 'b'},                             // literal past the end
                    {0, 'a', (byte) (1 << 5), 5, 0, 'x'},      // distance 6 before the start
                    {0, 'a', (byte) (1 << 5)},                 // match cut off
                    {0, 'a', (byte) (1 << 5), 0},              // ends with a match
                    {0, 'a', (byte) (7 << 5), (byte) 255, (byte) 255, 0, 0, 'x'}, // overflows 64 bytes
            };
            for (byte[] b : bad) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> BloscLz.decompress(native_(arena, b), 0, b.length, out, 0, 64));
                assertFalse(e.getMessage().isBlank());
            }
        }
    }
}
