// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.json;

import dev.zarrdirect.api.InvalidMetadataException;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JsonTest {

    private static final String W = Json.where("shape", "t2m/zarr.json");

    @Test
    void parseGivesPlainJavaValuesWithKeysInDocumentOrder() {
        Object v = Json.parse("{\"z\": 1, \"a\": [true, null, \"s\", 1.5], \"m\": {}}");
        LinkedHashMap<?, ?> map = assertInstanceOf(LinkedHashMap.class, v);
        assertEquals(List.of("z", "a", "m"), new ArrayList<>(map.keySet()));
        assertEquals(1L, map.get("z"));
        ArrayList<?> a = assertInstanceOf(ArrayList.class, map.get("a"));
        assertEquals(Boolean.TRUE, a.get(0));
        assertNull(a.get(1));
        assertEquals("s", a.get(2));
        assertEquals(1.5, a.get(3));
        assertEquals(Map.of(), map.get("m"));
    }

    @Test
    void aNullWhereAnIntegerBelongsIsAMetadataErrorNamingTheField() {
        // found by ParserFuzzTest: "shape": [6, null] gave a NullPointerException
        var e = assertThrows(InvalidMetadataException.class,
                () -> Json.longArray(Json.parse("[6, null]"), "\"shape\" of zarr.json"));
        assertTrue(e.getMessage().contains("shape") && e.getMessage().contains("null"), e.getMessage());
    }

    @Test
    void integersBeyondLongBecomeBigIntegerAndOthersStayLong() {
        assertEquals(new BigInteger("18446744073709551615"), Json.parse("18446744073709551615"));
        assertEquals(Long.MAX_VALUE, Json.parse("9223372036854775807"));
        assertEquals(Long.MIN_VALUE, Json.parse("-9223372036854775808"));
        assertEquals(new BigInteger("-9223372036854775809"), Json.parse("-9223372036854775809"));
        assertEquals(7L, Json.parse("7"));
        assertEquals(1.0e-5, Json.parse("1e-5"));
    }

    @Test
    void malformedJsonNamesTheDocumentLineAndColumn() {
        JsonException e = assertThrows(JsonException.class, () -> Json.parse("{\n  \"a\": 1,\n  \"b\": }", "x/zarr.json"));
        assertEquals(3, e.line());
        assertTrue(e.getMessage().contains("x/zarr.json"), e.getMessage());
        assertTrue(e.getMessage().contains("line 3"), e.getMessage());
        assertInstanceOf(InvalidMetadataException.class, e);
    }

    @Test
    void duplicateKeysAreRejected() {
        JsonException e = assertThrows(JsonException.class, () -> Json.parse("{\"a\": 1, \"a\": 2}", "d/zarr.json"));
        assertTrue(e.getMessage().contains("d/zarr.json") && e.getMessage().contains("Duplicate field 'a'"), e.getMessage());
        assertEquals(1, e.line());
    }

    @Test
    void contentAfterTheValueAndEmptyInputAreRejected() {
        assertThrows(JsonException.class, () -> Json.parse("{} {}"));
        assertThrows(JsonException.class, () -> Json.parse("[1] x"));
        assertThrows(JsonException.class, () -> Json.parse("   "));
        assertThrows(JsonException.class, () -> Json.parse("not json"));
    }

    @Test
    void bareNanIsReadBecausePythonWritesItButNeverWritten() {
        List<?> a = assertInstanceOf(List.class, Json.parse("[NaN, Infinity, -Infinity]"));
        assertTrue(Double.isNaN((Double) a.get(0)));
        assertEquals(Double.NEGATIVE_INFINITY, a.get(2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Json.write(Map.of("attrs", List.of(1.0, Double.NaN))));
        assertTrue(e.getMessage().contains("$.attrs[1]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Json.write(Double.POSITIVE_INFINITY));
        assertThrows(IllegalArgumentException.class, () -> Json.write(Float.NaN));
    }

    @Test
    void writeIndentsObjectsByTwoSpacesKeepsScalarArraysOnOneLineAndEndsWithNewline() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("zarr_format", 3L);
        m.put("shape", List.of(32L, 16L));
        m.put("codecs", List.of(Map.of("name", "bytes")));
        m.put("attributes", Map.of());
        m.put("empty", List.of());
        String expected = """
                {
                  "zarr_format": 3,
                  "shape": [32, 16],
                  "codecs": [
                    {
                      "name": "bytes"
                    }
                  ],
                  "attributes": {},
                  "empty": []
                }
                """;
        assertEquals(expected, Json.write(m));
    }

    @Test
    void writeEscapesStringsAndRoundTripsThem() {
        String nasty = "quote\" back\\ nl\n tab\t ctl\u0001 unicode \u00e9\u4e2d \ud83d\ude00";
        String text = Json.write(nasty);
        assertEquals(nasty, Json.parse(text));
        assertTrue(text.contains("\\u0001"), text);
    }

    @Test
    void writeThenParseGivesAnEqualValue() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("big", new BigInteger("18446744073709551615"));
        m.put("neg", -0.0);
        m.put("tiny", Double.MIN_VALUE);
        m.put("nested", List.of(List.of(1L, 2L), Map.of("k", List.of()), "s"));
        m.put("null", null);
        Object back = Json.parse(Json.write(m));
        assertEquals(m, back);
        assertEquals(Double.doubleToRawLongBits(-0.0),
                Double.doubleToRawLongBits((Double) ((Map<?, ?>) back).get("neg")));
    }

    @Test
    void writeRejectsValuesOutsideTheModel() {
        assertThrows(IllegalArgumentException.class, () -> Json.write(new Object()));
        assertThrows(IllegalArgumentException.class, () -> Json.write(Map.of(1, 2)));
    }

    @Test
    void fieldHelpersNameTheFieldAndTheValueSeen() {
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> Json.longArray(List.of(1L, "x"), W));
        assertEquals("\"shape[1]\" in \"t2m/zarr.json\" must be an integer, got the string \"x\"", e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> Json.object(List.of(), W));
        assertEquals("\"shape\" in \"t2m/zarr.json\" must be an object, got an array of 0 elements", e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> Json.string(3L, W));
        assertTrue(e.getMessage().endsWith("must be a string, got the number 3"), e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> Json.bool(null, W));
        assertTrue(e.getMessage().endsWith("must be true or false, got null"), e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> Json.array(Map.of(), W));
        assertTrue(e.getMessage().endsWith("must be an array, got an empty object"), e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> Json.longValue(2.0, W));
        assertTrue(e.getMessage().endsWith("must be an integer, got the number 2.0"), e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> Json.longValue(new BigInteger("99999999999999999999"), W));
        assertTrue(e.getMessage().contains("99999999999999999999"), e.getMessage());
    }

    @Test
    void fieldHelpersReturnWellTypedValues() {
        assertArrayEquals(new long[] {1, -2, 3}, Json.longArray(List.of(1L, -2L, 3L), W));
        assertEquals(5L, Json.longValue(5L, W));
        assertEquals("s", Json.string("s", W));
        assertTrue(Json.bool(true, W));
    }

    @Test
    void whereStringsNestMembersAndElements() {
        String w = Json.where("chunk_grid", "a/zarr.json");
        assertEquals("\"chunk_grid\" in \"a/zarr.json\"", w);
        assertEquals("\"chunk_grid.configuration\" in \"a/zarr.json\"", Json.child(w, "configuration"));
        assertEquals("\"chunk_grid[2]\" in \"a/zarr.json\"", Json.element(w, 2));
    }

    @Test
    void freezeMakesDeepUnmodifiableCopiesThatEqualParsedValues() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("level", 3);
        List<Object> list = new ArrayList<>(List.of(inner));
        Object frozen = Json.freeze(Map.of("codecs", list));
        inner.put("level", 4);
        assertEquals(Json.parse("{\"codecs\": [{\"level\": 3}]}"), frozen);
        Map<?, ?> fm = (Map<?, ?>) frozen;
        assertThrows(UnsupportedOperationException.class, () -> ((List<?>) fm.get("codecs")).clear());
    }
}
