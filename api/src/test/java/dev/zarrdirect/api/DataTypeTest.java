// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DataTypeTest {

    @Test
    void parseReturnsTheCanonicalInstanceForEveryNamedType() {
        for (DataType t : DataType.named()) {
            assertSame(t, DataType.parse(t.name()));
        }
        assertEquals(14, DataType.named().size());
    }

    @Test
    void rawTypesParseFromRBitsAndCompareByName() {
        DataType r24 = DataType.parse("r24");
        assertEquals(DataType.raw(24), r24);
        assertEquals(DataType.raw(24).hashCode(), r24.hashCode());
        assertEquals(3, r24.byteSize());
        assertEquals(DataType.Kind.RAW, r24.kind());
        assertNotEquals(DataType.raw(8), DataType.UINT8);
    }

    @Test
    void rawRefusesBitCountsThatAreNotPositiveMultiplesOfEight() {
        for (int bits : new int[]{0, -8, 7, 12}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DataType.raw(bits));
            assertTrue(e.getMessage().contains("r" + bits), e.getMessage());
        }
    }

    @Test
    void unknownNamesAreRefusedWithTheKnownNamesListed() {
        for (String name : new String[]{"float128", "r", "rx8", "Float32", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DataType.parse(name));
            assertTrue(e.getMessage().contains("\"" + name + "\""), e.getMessage());
            assertTrue(e.getMessage().contains("float32") && e.getMessage().contains("complex128")
                    && e.getMessage().contains("r<bits>"), e.getMessage());
        }
    }

    @Test
    void swapUnitIsTheElementSizeExceptForComplexHalvesAndUnswappedBoolAndRaw() {
        assertEquals(1, DataType.BOOL.swapUnit());
        assertEquals(1, DataType.raw(32).swapUnit());
        assertEquals(1, DataType.INT8.swapUnit());
        assertEquals(2, DataType.FLOAT16.swapUnit());
        assertEquals(4, DataType.UINT32.swapUnit());
        assertEquals(8, DataType.FLOAT64.swapUnit());
        assertEquals(4, DataType.COMPLEX64.swapUnit());
        assertEquals(8, DataType.COMPLEX128.swapUnit());
    }

    @Test
    void kindsCarryTheirDlpackTypeCodes() {
        assertEquals(0, DataType.Kind.INT.dlpackCode());
        assertEquals(1, DataType.Kind.UINT.dlpackCode());
        assertEquals(2, DataType.Kind.FLOAT.dlpackCode());
        assertEquals(3, DataType.Kind.RAW.dlpackCode());
        assertEquals(5, DataType.Kind.COMPLEX.dlpackCode());
        assertEquals(6, DataType.Kind.BOOL.dlpackCode());
    }
}
