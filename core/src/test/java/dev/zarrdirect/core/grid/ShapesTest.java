// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.grid;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ShapesTest {

    @Test
    void productOfRankZeroIsOneAndOfAZeroExtentIsZero() {
        assertEquals(1, Shapes.product(new long[0]));
        assertEquals(0, Shapes.product(new long[] {5, 0, 7}));
        assertEquals(32L * 16 * 721 * 1440, Shapes.product(new long[] {32, 16, 721, 1440}));
    }

    @Test
    void productThrowsInsteadOfWrappingAround() {
        assertThrows(ArithmeticException.class, () -> Shapes.product(new long[] {1L << 32, 1L << 32}));
        assertThrows(IllegalArgumentException.class, () -> Shapes.product(new long[] {-1}));
    }

    @Test
    void formatWritesShapesAsListsWithCommas() {
        assertEquals("[32, 16, 721, 1440]", Shapes.format(new long[] {32, 16, 721, 1440}));
        assertEquals("[]", Shapes.format(new long[0]));
    }

    @Test
    void cStridesEndInOne() {
        assertArrayEquals(new long[] {12, 4, 1}, Shapes.cStrides(new long[] {2, 3, 4}));
        assertArrayEquals(new long[0], Shapes.cStrides(new long[0]));
    }

    @Test
    void linearIndexAndUnravelAreInverses() {
        long[] shape = {2, 3, 4};
        for (long i = 0; i < 24; i++) {
            assertEquals(i, Shapes.linearIndex(Shapes.unravel(i, shape), shape));
        }
        assertArrayEquals(new long[] {1, 2, 3}, Shapes.unravel(23, shape));
        assertEquals(0, Shapes.linearIndex(new long[0], new long[0]));
        assertArrayEquals(new long[0], Shapes.unravel(0, new long[0]));
    }

    @Test
    void indicesOutsideTheShapeAreRejected() {
        assertThrows(IndexOutOfBoundsException.class, () -> Shapes.linearIndex(new long[] {0, 3}, new long[] {2, 3}));
        assertThrows(IndexOutOfBoundsException.class, () -> Shapes.unravel(6, new long[] {2, 3}));
        assertThrows(IllegalArgumentException.class, () -> Shapes.linearIndex(new long[] {0}, new long[] {2, 3}));
    }
}
