// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/** The shuffles against plain references written from their definitions, bit by bit and byte by byte. */
class ShuffleTest {

    private final long seed = new Random().nextLong();
    private final Random random = new Random(seed);

    private static byte[] referenceByteShuffle(byte[] in, int typesize) {
        byte[] out = in.clone();
        int n = in.length / typesize;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < typesize; j++) {
                out[j * n + i] = in[i * typesize + j];
            }
        }
        return out;
    }

    /** Bit k of byte j of element i goes to bit (8j + k) * n + i; bits LSB first. */
    private static byte[] referenceBitShuffle(byte[] in, int typesize, int n) {
        byte[] out = new byte[n * typesize];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < typesize; j++) {
                for (int k = 0; k < 8; k++) {
                    int bit = (in[i * typesize + j] >>> k) & 1;
                    long to = (long) (8 * j + k) * n + i;
                    out[(int) (to / 8)] |= (byte) (bit << (to % 8));
                }
            }
        }
        return out;
    }

    private static MemorySegment native_(Arena arena, byte[] b) {
        MemorySegment s = arena.allocate(Math.max(1, b.length));
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s.asSlice(0, b.length);
    }

    private static byte[] array(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void transposeOfAnEightByEightBitMatrixMovesRowRColumnCToRowCColumnR() {
        for (int t = 0; t < 1000; t++) {
            long x = random.nextLong();
            long y = BitShuffle.transpose8x8(x);
            for (int r = 0; r < 8; r++) {
                for (int c = 0; c < 8; c++) {
                    assertEquals((x >>> (8 * r + c)) & 1, (y >>> (8 * c + r)) & 1, "seed " + seed);
                }
            }
            assertEquals(x, BitShuffle.transpose8x8(y));
        }
    }

    @Test
    void transposeOfAnEightByEightByteMatrixMovesRowRColumnCToRowCColumnR() {
        for (int t = 0; t < 1000; t++) {
            long[] m = new long[8];
            for (int r = 0; r < 8; r++) {
                m[r] = random.nextLong();
            }
            long[] y = m.clone();
            ByteShuffle.transposeBytes(y);
            for (int r = 0; r < 8; r++) {
                for (int c = 0; c < 8; c++) {
                    assertEquals((m[r] >>> (8 * c)) & 0xFF, (y[c] >>> (8 * r)) & 0xFF, "seed " + seed);
                }
            }
        }
    }

    @Test
    void byteShuffleMatchesTheReferenceAndUnshuffleInvertsItForEveryTypesizeAndTail() {
        try (Arena arena = Arena.ofConfined()) {
            // 300,000-byte elements: tiles of fewer elements than TILE
            for (int typesize : new int[] {1, 2, 3, 4, 5, 8, 16, 17, 300_000}) {
                // bytes: short tails, and more than a tile: one and a half, two whole, two and 8 elements and a byte
                int tile = (typesize == 2 || typesize == 4 || typesize == 8 ? ByteShuffle.TILE
                        : ByteShuffle.genericTile(typesize)) * typesize;
                for (int n : new int[] {0, 1, 7, 8, 9, 63, 64, 1000, 4099, tile + tile / 2, 2 * tile,
                        2 * tile + 8 * typesize + 1}) {
                    byte[] in = new byte[n];
                    random.nextBytes(in);
                    MemorySegment src = native_(arena, in);
                    MemorySegment mid = arena.allocate(Math.max(1, n)).asSlice(0, n);
                    MemorySegment back = arena.allocate(Math.max(1, n)).asSlice(0, n);
                    ByteShuffle.shuffle(src, 0, mid, 0, n, typesize);
                    assertArrayEquals(referenceByteShuffle(in, typesize), array(mid),
                            "typesize " + typesize + " n " + n + " seed " + seed);
                    ByteShuffle.unshuffle(mid, 0, back, 0, n, typesize);
                    assertArrayEquals(in, array(back), "typesize " + typesize + " n " + n + " seed " + seed);
                    // at offsets, as a blosc block inside a frame is
                    MemorySegment at = arena.allocate(n + 8);
                    MemorySegment.copy(mid, 0, at, 3, n);
                    MemorySegment out = arena.allocate(n + 8);
                    ByteShuffle.unshuffle(at, 3, out, 5, n, typesize);
                    assertArrayEquals(in, array(out.asSlice(5, n)), "offsets, typesize " + typesize + " n " + n);
                }
            }
        }
    }

    @Test
    void bitShuffleMatchesTheBitMatrixTransposeAndUnshuffleInvertsIt() {
        try (Arena arena = Arena.ofConfined()) {
            for (int typesize : new int[] {1, 2, 3, 4, 8, 16}) {
                // elements: whole words of bit rows from 64 on; more than a tile, and two whole tiles
                for (int n : new int[] {8, 16, 56, 64, 72, 512, 1032, 1088, BitShuffle.TILE + 192, 2 * BitShuffle.TILE}) {
                    byte[] in = new byte[n * typesize];
                    random.nextBytes(in);
                    MemorySegment src = native_(arena, in);
                    MemorySegment mid = arena.allocate(in.length);
                    MemorySegment back = arena.allocate(in.length);
                    BitShuffle.shuffle(src, 0, mid, 0, n, typesize);
                    assertArrayEquals(referenceBitShuffle(in, typesize, n), array(mid),
                            "typesize " + typesize + " n " + n + " seed " + seed);
                    BitShuffle.unshuffle(mid, 0, back, 0, n, typesize);
                    assertArrayEquals(in, array(back), "typesize " + typesize + " n " + n + " seed " + seed);
                    // at offsets, as a blosc block inside a chunk is
                    MemorySegment at = arena.allocate(in.length + 8);
                    MemorySegment.copy(mid, 0, at, 3, in.length);
                    MemorySegment out = arena.allocate(in.length + 8);
                    BitShuffle.unshuffle(at, 3, out, 5, n, typesize);
                    assertArrayEquals(in, array(out.asSlice(5, in.length)), "offsets, typesize " + typesize + " n " + n);
                    // and the shuffle at offsets
                    MemorySegment.copy(src, 0, at, 6, in.length);
                    BitShuffle.shuffle(at, 6, out, 1, n, typesize);
                    assertArrayEquals(array(mid), array(out.asSlice(1, in.length)),
                            "shuffle at offsets, typesize " + typesize + " n " + n);
                }
            }
        }
    }

    @Test
    void bitShuffleOfABlockCopiesItWhenItsElementsAreNotAMultipleOfEightAndKeepsTrailingBytes() {
        try (Arena arena = Arena.ofConfined()) {
            byte[] odd = new byte[4 * 13 + 2];
            random.nextBytes(odd);
            MemorySegment out = arena.allocate(odd.length);
            BitShuffle.shuffleBlock(native_(arena, odd), 0, out, 0, odd.length, 4);
            assertArrayEquals(odd, array(out), "13 elements are copied as they are");

            byte[] even = new byte[4 * 16 + 3];
            random.nextBytes(even);
            MemorySegment shuffled = arena.allocate(even.length);
            BitShuffle.shuffleBlock(native_(arena, even), 0, shuffled, 0, even.length, 4);
            byte[] expected = new byte[even.length];
            System.arraycopy(referenceBitShuffle(even, 4, 16), 0, expected, 0, 64);
            System.arraycopy(even, 64, expected, 64, 3);
            assertArrayEquals(expected, array(shuffled));
            MemorySegment back = arena.allocate(even.length);
            BitShuffle.unshuffleBlock(shuffled, 0, back, 0, even.length, 4);
            assertArrayEquals(even, array(back));
        }
    }
}
