// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FillValueTest {

    private static final String W = Json.where("fill_value", "t2m/zarr.json");

    private static FillValue parse(String json, DataType t) {
        return FillValue.parse(Json.parse(json), t, W);
    }

    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return out;
    }

    @Test
    void boolFillValuesAreOneByteZeroOrOne() {
        assertArrayEquals(bytes(1), parse("true", DataType.BOOL).toByteArray());
        assertArrayEquals(bytes(0), parse("false", DataType.BOOL).toByteArray());
        assertEquals(true, parse("true", DataType.BOOL).toJson());
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> parse("1", DataType.BOOL));
        assertEquals("\"fill_value\" in \"t2m/zarr.json\" must be true or false for data type bool, got the number 1",
                e.getMessage());
    }

    @Test
    void integersAreLittleEndianAndRangeCheckedPerType() {
        assertArrayEquals(bytes(0x80), parse("-128", DataType.INT8).toByteArray());
        assertArrayEquals(bytes(0xff, 0xff), parse("65535", DataType.UINT16).toByteArray());
        assertArrayEquals(bytes(0x78, 0x56, 0x34, 0x12), parse("305419896", DataType.INT32).toByteArray());
        assertArrayEquals(bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f),
                parse("9223372036854775807", DataType.INT64).toByteArray());
        assertEquals(-1L, parse("-1", DataType.INT16).toJson());
        assertEquals(Long.MIN_VALUE, parse("-9223372036854775808", DataType.INT64).toJson());
    }

    @Test
    void int8OutOfRangeIsRejectedWithTheRange() {
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> parse("128", DataType.INT8));
        assertEquals("\"fill_value\" in \"t2m/zarr.json\" is 128, outside the range of int8 [-128, 127]", e.getMessage());
        assertThrows(InvalidMetadataException.class, () -> parse("-129", DataType.INT8));
        assertThrows(InvalidMetadataException.class, () -> parse("-1", DataType.UINT8));
        assertThrows(InvalidMetadataException.class, () -> parse("256", DataType.UINT8));
        assertThrows(InvalidMetadataException.class, () -> parse("4294967296", DataType.UINT32));
        assertThrows(InvalidMetadataException.class, () -> parse("9223372036854775808", DataType.INT64));
        assertThrows(InvalidMetadataException.class, () -> parse("18446744073709551616", DataType.UINT64));
        assertThrows(InvalidMetadataException.class, () -> parse("1.5", DataType.INT32));
        assertThrows(InvalidMetadataException.class, () -> parse("\"NaN\"", DataType.INT32));
    }

    @Test
    void uint64MaxRoundTripsAsBigInteger() {
        FillValue f = parse("18446744073709551615", DataType.UINT64);
        assertArrayEquals(bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), f.toByteArray());
        assertEquals(new BigInteger("18446744073709551615"), f.toJson());
        assertEquals("18446744073709551615", f.toString());
        assertEquals(f, FillValue.parse(Json.parse(Json.write(f.toJson())), DataType.UINT64, W));
        assertEquals(42L, parse("42", DataType.UINT64).toJson());
    }

    @Test
    void floatsAcceptNumbersAndTheSpecialStrings() {
        assertEquals(1.5f, seg(parse("1.5", DataType.FLOAT32)).get(LE_FLOAT, 0));
        assertEquals(-2.0, seg(parse("-2", DataType.FLOAT64)).get(LE_DOUBLE, 0));
        assertEquals(Float.POSITIVE_INFINITY, seg(parse("\"Infinity\"", DataType.FLOAT32)).get(LE_FLOAT, 0));
        assertEquals(Double.NEGATIVE_INFINITY, seg(parse("\"-Infinity\"", DataType.FLOAT64)).get(LE_DOUBLE, 0));
        assertEquals("Infinity", parse("\"Infinity\"", DataType.FLOAT16).toJson());
        assertEquals("-Infinity", parse("\"-Infinity\"", DataType.FLOAT64).toJson());
        assertEquals(0.1, parse("0.1", DataType.FLOAT32).toJson());
        assertEquals(1.0e-5, parse("1e-5", DataType.FLOAT64).toJson());
    }

    @Test
    void nanIsTheCanonicalQuietNanOfEachWidth() {
        assertArrayEquals(bytes(0x00, 0x7e), parse("\"NaN\"", DataType.FLOAT16).toByteArray());
        assertArrayEquals(bytes(0x00, 0x00, 0xc0, 0x7f), parse("\"NaN\"", DataType.FLOAT32).toByteArray());
        assertArrayEquals(bytes(0, 0, 0, 0, 0, 0, 0xf8, 0x7f), parse("\"NaN\"", DataType.FLOAT64).toByteArray());
        assertEquals("NaN", parse("\"NaN\"", DataType.FLOAT32).toJson());
        assertEquals("NaN", parse("\"0x7fc00000\"", DataType.FLOAT32).toJson());
        assertEquals("NaN", parse("\"NaN\"", DataType.FLOAT32).toString());
    }

    @Test
    void nanPayloadsGivenInHexRoundTripBitForBit() {
        FillValue f32 = parse("\"0x7fc00001\"", DataType.FLOAT32);
        assertArrayEquals(bytes(0x01, 0x00, 0xc0, 0x7f), f32.toByteArray());
        assertEquals("0x7fc00001", f32.toJson());
        FillValue f64 = parse("\"0xfff0000000000001\"", DataType.FLOAT64);
        assertEquals("0xfff0000000000001", f64.toJson());
        FillValue f16 = parse("\"0x7c01\"", DataType.FLOAT16);
        assertEquals("0x7c01", f16.toJson());
        assertNotEquals(f32, parse("\"NaN\"", DataType.FLOAT32));
        for (FillValue f : List.of(f16, f32, f64)) {
            assertEquals(f, FillValue.parse(Json.parse(Json.write(f.toJson())), f.dataType(), W));
        }
    }

    @Test
    void hexOfAnOrdinaryNumberGivesThatNumber() {
        assertEquals(1.0, parse("\"0x3ff0000000000000\"", DataType.FLOAT64).toJson());
        assertEquals(1.0, parse("\"0x3C00\"", DataType.FLOAT16).toJson());
    }

    @Test
    void hexOfTheWrongLengthIsRejected() {
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class,
                () -> parse("\"0x7fc00000\"", DataType.FLOAT64));
        assertEquals("\"fill_value\" in \"t2m/zarr.json\" is the hex string \"0x7fc00000\", but float64 takes exactly 16"
                + " hex digits after 0x (8 bytes, big-endian)", e.getMessage());
        assertThrows(InvalidMetadataException.class, () -> parse("\"0x7e00\"", DataType.FLOAT32));
        assertThrows(InvalidMetadataException.class, () -> parse("\"0x7fc0000g\"", DataType.FLOAT32));
        assertThrows(InvalidMetadataException.class, () -> parse("\"nan\"", DataType.FLOAT32));
        assertThrows(InvalidMetadataException.class, () -> parse("true", DataType.FLOAT32));
    }

    @Test
    void float16UsesHalfPrecisionBits() {
        assertArrayEquals(bytes(0x00, 0x3c), parse("1.0", DataType.FLOAT16).toByteArray());
        assertArrayEquals(bytes(0xff, 0x7b), parse("65504", DataType.FLOAT16).toByteArray());
        // 65500 is the shortest decimal that reads back as the largest float16 (numpy prints it so too).
        assertEquals(65500.0, parse("65504", DataType.FLOAT16).toJson());
        // 0.1 is not a float16; the nearest one is 0.0999755859375, and 0.1 is its shortest spelling.
        assertArrayEquals(bytes(0x66, 0x2e), parse("0.1", DataType.FLOAT16).toByteArray());
        assertEquals(0.1, parse("0.1", DataType.FLOAT16).toJson());
        assertEquals(6.0e-8, parse("\"0x0001\"", DataType.FLOAT16).toJson());
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> parse("70000", DataType.FLOAT16));
        assertTrue(e.getMessage().contains("too large for float16"), e.getMessage());
        assertThrows(InvalidMetadataException.class, () -> parse("1e39", DataType.FLOAT32));
    }

    @Test
    void negativeZeroIsKeptAndDiffersFromZero() {
        FillValue negZero = parse("-0.0", DataType.FLOAT64);
        assertFalse(negZero.isZero());
        assertNotEquals(FillValue.zero(DataType.FLOAT64), negZero);
        assertEquals(negZero, FillValue.parse(Json.parse(Json.write(negZero.toJson())), DataType.FLOAT64, W));
    }

    @Test
    void complexFillValuesAreRealThenImaginaryWithFloatRulesForEachPart() {
        FillValue c64 = parse("[1.5, \"NaN\"]", DataType.COMPLEX64);
        MemorySegment s = c64.bytes();
        assertEquals(1.5f, s.get(LE_FLOAT, 0));
        assertTrue(Float.isNaN(s.get(LE_FLOAT, 4)));
        assertEquals(List.of(1.5, "NaN"), c64.toJson());
        assertEquals("[1.5, NaN]", c64.toString());
        FillValue c128 = parse("[\"-Infinity\", \"0x0000000000000001\"]", DataType.COMPLEX128);
        assertEquals(Double.NEGATIVE_INFINITY, c128.bytes().get(LE_DOUBLE, 0));
        assertEquals(Double.MIN_VALUE, c128.bytes().get(LE_DOUBLE, 8));
        assertEquals(c128, FillValue.parse(Json.parse(Json.write(c128.toJson())), DataType.COMPLEX128, W));
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class,
                () -> parse("[1.0, \"0x7fc00000\"]", DataType.COMPLEX128));
        assertTrue(e.getMessage().startsWith("\"fill_value[1]\" in \"t2m/zarr.json\""), e.getMessage());
        assertThrows(InvalidMetadataException.class, () -> parse("[1.0]", DataType.COMPLEX64));
        assertThrows(InvalidMetadataException.class, () -> parse("1.0", DataType.COMPLEX64));
    }

    @Test
    void rawFillValuesAreArraysOfBytes() {
        DataType r24 = DataType.raw(24);
        FillValue f = parse("[0, 127, 255]", r24);
        assertArrayEquals(bytes(0, 127, 255), f.toByteArray());
        assertEquals(List.of(0L, 127L, 255L), f.toJson());
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> parse("[0, 256, 1]", r24));
        assertTrue(e.getMessage().startsWith("\"fill_value[1]\" in \"t2m/zarr.json\" must be an integer 0..255"),
                e.getMessage());
        assertThrows(InvalidMetadataException.class, () -> parse("[0, 1]", r24));
        assertThrows(InvalidMetadataException.class, () -> parse("0", r24));
    }

    @Test
    void zeroIsAllZeroBytesOfEveryType() {
        for (DataType t : DataType.named()) {
            FillValue z = FillValue.zero(t);
            assertTrue(z.isZero());
            assertEquals(t.byteSize(), z.bytes().byteSize());
            assertEquals(z, FillValue.parse(Json.parse(Json.write(z.toJson())), t, W), t.name());
        }
        assertEquals("0", FillValue.zero(DataType.INT32).toString());
        assertEquals("false", FillValue.zero(DataType.BOOL).toString());
    }

    @Test
    void bytesAreReadOnlyAndEqualityNeedsTheSameType() {
        FillValue f = parse("7", DataType.INT32);
        assertTrue(f.bytes().isReadOnly());
        assertThrows(RuntimeException.class, () -> f.bytes().set(ValueLayout.JAVA_BYTE, 0, (byte) 1));
        assertNotEquals(f, parse("7", DataType.UINT32));
        assertEquals(f, parse("7", DataType.INT32));
        assertEquals(f.hashCode(), parse("7", DataType.INT32).hashCode());
        assertThrows(IllegalArgumentException.class, () -> FillValue.ofBytes(DataType.INT32, new byte[3]));
    }

    private static final ValueLayout.OfFloat LE_FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble LE_DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static MemorySegment seg(FillValue f) {
        return f.bytes();
    }
}
