// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

import dev.zarrdirect.api.buffer.HostBuffer;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TensorTest {

    @Test
    void cOrderTensorHasRowMajorStridesAndIsContiguous() {
        try (Tensor t = Tensor.allocateHost(DataType.INT32, 2, 3, 4)) {
            assertArrayEquals(new long[]{12, 4, 1}, t.strides());
            assertTrue(t.isContiguous());
            assertEquals(24, t.elementCount());
            assertEquals(96, t.byteSize());
            assertEquals(96, t.buffer().byteSize());
            assertTrue(t.ownsBuffer());
        }
    }

    @Test
    void transposedAndSlicedViewsAreNotContiguousButUnitExtentsIgnoreTheirStride() {
        try (HostBuffer b = HostBuffer.allocate(6 * 4)) {
            assertFalse(Tensor.of(b, 0, DataType.INT32, new long[]{3, 2}, new long[]{1, 3}).isContiguous());
            assertFalse(Tensor.of(b, 0, DataType.INT32, new long[]{2, 2}, new long[]{3, 1}).isContiguous());
            assertTrue(Tensor.of(b, 4, DataType.INT32, new long[]{1, 5}, new long[]{99, 1}).isContiguous());
        }
    }

    @Test
    void byteOffsetOfCountsStridesInElementsFromTheTensorsByteOffset() {
        try (HostBuffer b = HostBuffer.allocate(64)) {
            Tensor t = Tensor.of(b, 8, DataType.INT16, new long[]{3, 4}, new long[]{1, 3});
            assertEquals(8, t.byteOffsetOf(0, 0));
            assertEquals(8 + (2 + 3 * 3) * 2, t.byteOffsetOf(2, 3));
            assertThrows(IndexOutOfBoundsException.class, () -> t.byteOffsetOf(3, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> t.byteOffsetOf(0, -1));
            assertThrows(IllegalArgumentException.class, () -> t.byteOffsetOf(1));
        }
    }

    @Test
    void segmentOfAContiguousViewStartsAtItsByteOffset() {
        try (HostBuffer b = HostBuffer.allocate(40)) {
            for (int i = 0; i < 10; i++) {
                b.segment().setAtIndex(JAVA_INT, i, i);
            }
            Tensor t = Tensor.of(b, 12, DataType.INT32, new long[]{2, 2}, new long[]{2, 1});
            MemorySegment s = t.segment();
            assertEquals(16, s.byteSize());
            assertArrayEquals(new int[]{3, 4, 5, 6}, s.toArray(JAVA_INT));
            Tensor strided = Tensor.of(b, 0, DataType.INT32, new long[]{2}, new long[]{2});
            assertThrows(UnsupportedOperationException.class, strided::segment);
        }
    }

    @Test
    void constructorRefusesLayoutsThatReachOutsideTheBuffer() {
        try (HostBuffer b = HostBuffer.allocate(16)) {
            assertThrows(IndexOutOfBoundsException.class, () -> Tensor.of(b, DataType.INT32, 5));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> Tensor.of(b, 4, DataType.INT32, new long[]{4}, new long[]{1}));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> Tensor.of(b, 0, DataType.INT32, new long[]{2}, new long[]{-1}));
            Tensor reversed = Tensor.of(b, 12, DataType.INT32, new long[]{4}, new long[]{-1});
            assertEquals(0, reversed.byteOffsetOf(3));
            assertThrows(IllegalArgumentException.class,
                    () -> Tensor.of(b, -1, DataType.INT32, new long[]{1}, new long[]{1}));
            assertThrows(IllegalArgumentException.class,
                    () -> Tensor.of(b, 0, DataType.INT32, new long[]{-1}, new long[]{1}));
            assertThrows(IllegalArgumentException.class,
                    () -> Tensor.of(b, 0, DataType.INT32, new long[]{1, 1}, new long[]{1}));
        }
    }

    @Test
    void constructorRefusesStridesAndOffsetsWhoseByteArithmeticWouldOverflow() {
        try (HostBuffer b = HostBuffer.allocate(16)) {
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                    () -> Tensor.of(b, 0, DataType.INT32, new long[]{3}, new long[]{Long.MAX_VALUE / 2 + 1}));
            assertTrue(e.getMessage().contains("overflows"), e.getMessage());
            assertThrows(IndexOutOfBoundsException.class,
                    () -> Tensor.of(b, Long.MAX_VALUE - 1, DataType.INT32, new long[]{1}, new long[]{1}));
            // 2^62 elements of 4 bytes wrap to byte offset 0 when multiplied without overflow checks.
            assertThrows(IndexOutOfBoundsException.class,
                    () -> Tensor.of(b, 0, DataType.INT32, new long[]{2}, new long[]{1L << 62}));
        }
    }

    @Test
    void zeroExtentTensorsHoldNothingAndAreContiguous() {
        try (HostBuffer b = HostBuffer.allocate(0)) {
            for (long[] shape : new long[][]{{0}, {3, 0}, {0, 3}, {2, 0, 5}}) {
                Tensor t = Tensor.of(b, DataType.FLOAT64, shape);
                assertEquals(0, t.elementCount());
                assertEquals(0, t.byteSize());
                assertTrue(t.isContiguous(), "shape " + java.util.Arrays.toString(shape));
                assertEquals(0, t.segment().byteSize());
            }
        }
    }

    @Test
    void rankZeroTensorHoldsOneElement() {
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT64)) {
            assertEquals(0, t.rank());
            assertEquals(1, t.elementCount());
            assertEquals(8, t.byteSize());
            assertEquals(0, t.byteOffsetOf());
            assertTrue(t.isContiguous());
        }
    }

    @Test
    void shapeAndStridesAreDefensiveCopies() {
        long[] shape = {2, 2};
        try (Tensor t = Tensor.allocateHost(DataType.UINT8, shape)) {
            shape[0] = 99;
            t.shape()[1] = 99;
            t.strides()[0] = 99;
            assertArrayEquals(new long[]{2, 2}, t.shape());
            assertArrayEquals(new long[]{2, 1}, t.strides());
        }
    }

    @Test
    void onlyOwningTensorsCloseTheirBuffer() {
        HostBuffer b = HostBuffer.allocate(8);
        Tensor.of(b, DataType.UINT8, 8).close();
        assertTrue(b.isOpen());
        Tensor owning = Tensor.owning(b, 0, DataType.UINT8, new long[]{8}, new long[]{1});
        owning.close();
        assertFalse(b.isOpen());
    }
}
