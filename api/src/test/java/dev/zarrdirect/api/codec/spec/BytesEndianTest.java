// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import dev.zarrdirect.api.DataType;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BytesEndianTest {

    private static BytesEndian parse(Map<String, Object> configuration) {
        return BytesEndian.parse("bytes", configuration);
    }

    @Test
    void parsesLittleBigAndNone() {
        assertEquals(ByteOrder.LITTLE_ENDIAN, parse(Map.of("endian", "little")).order());
        assertEquals(ByteOrder.BIG_ENDIAN, parse(Map.of("endian", "big")).order());
        assertNull(parse(Map.of()).order());
        assertNull(parse(null).name());
        assertEquals("big", parse(Map.of("endian", "big")).name());
        assertEquals("little", parse(Map.of("endian", "little")).toString());
        assertEquals("null", parse(Map.of()).toString());
    }

    @Test
    void rejectsOtherValuesAndOtherFields() {
        assertEquals("codec \"bytes\": configuration field \"endian\" is \"middle\", must be one of [big, little]",
                assertThrows(IllegalArgumentException.class, () -> parse(Map.of("endian", "middle"))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse(Map.of("endian", "big", "order", "C")))
                .getMessage().startsWith("codec \"bytes\": unknown configuration field \"order\""));
    }

    @Test
    void endianIsRequiredExactlyForTypesWithAMultiByteSwapUnit() {
        for (DataType t : DataType.named()) {
            assertEquals(t.swapUnit() != 1, BytesEndian.required(t), t.toString());
        }
        assertFalse(BytesEndian.required(DataType.raw(24)));
        BytesEndian none = parse(Map.of());
        assertFalse(none.needsSwap(DataType.UINT8));
        assertFalse(none.needsSwap(DataType.BOOL));
        assertFalse(none.needsSwap(DataType.raw(64)));
        assertEquals("codec \"bytes\": configuration field \"endian\" is required for data type complex64"
                        + " (swap unit 4 bytes)",
                assertThrows(IllegalArgumentException.class, () -> none.needsSwap(DataType.COMPLEX64)).getMessage());
    }

    @Test
    void onlyBigEndianMultiByteUnitsSwap() {
        BytesEndian big = parse(Map.of("endian", "big"));
        BytesEndian little = parse(Map.of("endian", "little"));
        assertTrue(big.needsSwap(DataType.FLOAT64));
        assertTrue(big.needsSwap(DataType.COMPLEX128));
        assertFalse(big.needsSwap(DataType.INT8));
        assertFalse(little.needsSwap(DataType.FLOAT64));
        assertEquals(big, parse(Map.of("endian", "big")));
    }
}
