// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

import dev.zarrdirect.api.buffer.ExternalBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TensorTypedAccessTest {

    @Test
    void getFloatReadsTheElementAtAnIndexAndToFloatArrayIsCOrder() {
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, 2, 3)) {
            for (int i = 0; i < 6; i++) {
                t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 1.5f);
            }
            assertEquals(4 * 1.5f, t.getFloat(1, 1));
            assertEquals(5 * 1.5, t.getDouble(1, 2));
            assertArrayEquals(new float[] {0, 1.5f, 3, 4.5f, 6, 7.5f}, t.toFloatArray());
            assertThrows(IndexOutOfBoundsException.class, () -> t.getFloat(2, 0));
            assertThrows(IllegalArgumentException.class, () -> t.getFloat(1));
            assertThrows(IllegalArgumentException.class, t::toLongArray);
        }
    }

    @Test
    void aTransposedViewIsReadThroughItsStrides() {
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT64, 2, 3)) {
            for (int i = 0; i < 6; i++) {
                t.segment().setAtIndex(ValueLayout.JAVA_DOUBLE, i, i);
            }
            Tensor view = Tensor.of(t.buffer(), 0, DataType.FLOAT64, new long[] {3, 2}, new long[] {1, 3});
            assertArrayEquals(new double[] {0, 3, 1, 4, 2, 5}, view.toDoubleArray());
            assertThrows(IllegalArgumentException.class, view::toFloatArray, "float64 does not narrow to float");
        }
    }

    @Test
    void unsignedIntegersWidenWithoutSignAndHalfFloatsConvert() {
        try (Tensor u = Tensor.allocateHost(DataType.UINT16, 2); Tensor h = Tensor.allocateHost(DataType.FLOAT16, 1)) {
            u.segment().setAtIndex(ValueLayout.JAVA_SHORT, 0, (short) 0xFFFF);
            u.segment().setAtIndex(ValueLayout.JAVA_SHORT, 1, (short) 7);
            assertArrayEquals(new long[] {65535, 7}, u.toLongArray());
            h.segment().setAtIndex(ValueLayout.JAVA_SHORT, 0, Float.floatToFloat16(-2.5f));
            assertEquals(-2.5f, h.getFloat(0));
        }
    }

    @Test
    void deviceMemoryIsRefusedWithAPointerToTheHost() {
        Tensor t = Tensor.of(ExternalBuffer.of(0x1000, 16, new Device(DeviceType.CUDA, 0), MemoryKind.DEVICE, () -> { }),
                DataType.FLOAT32, 4);
        var e = assertThrows(UnsupportedOperationException.class, () -> t.getFloat(0));
        assertTrue(e.getMessage().contains("copy it to the host"), e.getMessage());
    }
}
