// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.v2;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.metadata.V2ChunkKeyEncoding;
import dev.zarrdirect.core.metadata.v2.V2ArrayMetadata;
import dev.zarrdirect.core.metadata.v2.V2DataType;
import dev.zarrdirect.core.metadata.v2.V2FillValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** .zarray documents as zarr-python 2 writes them (sorted keys, 4-space indent), read and written back. */
class V2ArrayMetadataTest {

    static final String BLOSC_F8 = """
            {
                "chunks": [
                    1000,
                    1000
                ],
                "compressor": {
                    "blocksize": 0,
                    "clevel": 5,
                    "cname": "lz4",
                    "id": "blosc",
                    "shuffle": 1
                },
                "dimension_separator": ".",
                "dtype": "<f8",
                "fill_value": "NaN",
                "filters": null,
                "order": "C",
                "shape": [
                    10000,
                    10000
                ],
                "zarr_format": 2
            }""";

    static String zarray(String dtype, String order, String fill, String compressor, String filters, String extra) {
        return """
                {"chunks": [2, 3], "compressor": %s, "dtype": "%s", "fill_value": %s, "filters": %s,
                 "order": "%s", "shape": [4, 5], "zarr_format": 2%s}""".formatted(compressor, dtype, fill, filters, order,
                extra);
    }

    static CodecMetadata codec(String name, Map<String, Object> cfg) {
        return CodecMetadata.of(name, cfg);
    }

    @Test
    void aBloscCompressedFloat64ArrayOfZarrPythonTranslatesToBytesAndV3Blosc() {
        V2ArrayMetadata md = V2ArrayMetadata.parse(BLOSC_F8, "t2m/.zarray", Map.of());
        ArrayMetadata v3 = md.arrayMetadata();
        assertArrayEquals(new long[]{10000, 10000}, v3.shape());
        assertArrayEquals(new long[]{1000, 1000}, v3.chunkShape());
        assertEquals(DataType.FLOAT64, v3.dataType());
        assertEquals(new V2ChunkKeyEncoding('.'), v3.chunkKeyEncoding());
        assertEquals("1.2", v3.chunkKey(new long[]{1, 2}));
        assertEquals(FillValue.parse("NaN", DataType.FLOAT64, "test"), v3.fillValue());
        assertEquals(List.of(
                codec("bytes", Map.of("endian", "little")),
                codec("blosc", Map.of("cname", "lz4", "clevel", 5L, "shuffle", "shuffle", "typesize", 8L,
                        "blocksize", 0L))), v3.codecs());
    }

    @Test
    void fortranOrderBigEndianWithDeltaAndZlibBecomesTransposeDeltaBytesBigZlib() {
        String json = zarray(">i4", "F", "0", "{\"id\": \"zlib\", \"level\": 1}",
                "[{\"id\": \"delta\", \"dtype\": \">i4\", \"astype\": \">i2\"}]", ", \"dimension_separator\": \"/\"");
        ArrayMetadata v3 = V2ArrayMetadata.parse(json, "a/.zarray", Map.of()).arrayMetadata();
        assertEquals(List.of(
                codec("transpose", Map.of("order", List.of(1L, 0L))),
                codec("numcodecs.delta", Map.of("dtype", ">i4", "astype", ">i2")),
                codec("bytes", Map.of("endian", "big")),
                codec("numcodecs.zlib", Map.of("level", 1L))), v3.codecs());
        assertEquals("1/2", v3.chunkKey(new long[]{1, 2}));
        assertEquals(DataType.INT32, v3.dataType());
    }

    @Test
    void shuffleFilterAndZstdWithoutChecksumMapInFilterOrder() {
        String json = zarray("<u2", "C", "7", "{\"id\": \"zstd\", \"level\": 3}",
                "[{\"id\": \"shuffle\", \"elementsize\": 2}]", "");
        assertEquals(List.of(
                codec("bytes", Map.of("endian", "little")),
                codec("numcodecs.shuffle", Map.of("elementsize", 2L)),
                codec("zstd", Map.of("level", 3L, "checksum", false))),
                V2ArrayMetadata.parse(json, "a/.zarray", Map.of()).arrayMetadata().codecs());
    }

    @Test
    void gzipAndZstdWithChecksumMapToTheV3CoreCodecs() {
        assertEquals(codec("gzip", Map.of("level", 5L)), V2ArrayMetadata.parse(zarray("<i8", "C", "0",
                "{\"id\": \"gzip\", \"level\": 5}", "null", ""), "k", Map.of()).arrayMetadata().codecs().get(1));
        assertEquals(codec("zstd", Map.of("level", 0L, "checksum", true)), V2ArrayMetadata.parse(zarray("<i8", "C",
                "0", "{\"id\": \"zstd\", \"level\": 0, \"checksum\": true}", "null", ""), "k", Map.of())
                .arrayMetadata().codecs().get(1));
    }

    @Test
    void bloscIntegerShufflesBecomeV3WordsWithTheTypesizeOfTheElementsThatReachIt() {
        String[][] cases = {{"0", "|u1", "noshuffle"}, {"1", "<i4", "shuffle"}, {"2", "<f4", "bitshuffle"},
                {"-1", "|u1", "bitshuffle"}, {"-1", "<i2", "shuffle"}};
        for (String[] c : cases) {
            String json = zarray(c[1], "C", "0", "{\"id\": \"blosc\", \"cname\": \"zstd\", \"clevel\": 3, \"shuffle\": "
                    + c[0] + ", \"blocksize\": 0}", "null", "");
            Map<String, Object> cfg = V2ArrayMetadata.parse(json, "k", Map.of()).arrayMetadata().codecs().get(1)
                    .configuration();
            assertEquals(c[2], cfg.get("shuffle"), "shuffle " + c[0] + " of " + c[1]);
            assertEquals((long) V2DataType.parse(c[1], "t").dataType().byteSize(), cfg.get("typesize"));
        }
        String delta = zarray("<i8", "C", "0", "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1,"
                + " \"blocksize\": 0}", "[{\"id\": \"delta\", \"dtype\": \"<i8\", \"astype\": \"<i2\"}]", "");
        assertEquals(2L, V2ArrayMetadata.parse(delta, "k", Map.of()).arrayMetadata().codecs().get(2).configuration()
                .get("typesize"), "typesize follows delta's astype");
    }

    @Test
    void nullFillValueReadsAsZeroAndIsReported() {
        V2ArrayMetadata md = V2ArrayMetadata.parse(zarray("|u1", "C", "null", "null", "null", ""), "k", Map.of());
        assertTrue(md.hasNoFillValue());
        assertEquals(FillValue.zero(DataType.UINT8), md.fillValue());
        assertEquals(List.of(codec("bytes", Map.of("endian", "little"))), md.arrayMetadata().codecs());
    }

    @Test
    void fillValuesOfEveryFormReadAsTheirBytes() {
        assertEquals(FillValue.parse(true, DataType.BOOL, "t"), parseFill("|b1", "true"));
        assertEquals(FillValue.parse(true, DataType.BOOL, "t"), parseFill("|b1", "1"));
        assertEquals(FillValue.parse(-5L, DataType.INT16, "t"), parseFill(">i2", "-5"));
        assertEquals(FillValue.parse(3L, DataType.INT32, "t"), parseFill("<i4", "3.0"));
        assertEquals(FillValue.parse("Infinity", DataType.FLOAT32, "t"), parseFill("<f4", "\"Infinity\""));
        assertEquals(FillValue.parse("-Infinity", DataType.FLOAT64, "t"), parseFill("<f8", "\"-Infinity\""));
        assertEquals(FillValue.parse(0.5, DataType.FLOAT16, "t"), parseFill("<f2", "0.5"));
        assertEquals(FillValue.parse(List.of(1.0, -2.0), DataType.COMPLEX128, "t"), parseFill("<c16", "[1.0, -2.0]"));
        assertEquals(FillValue.parse(List.of("NaN", 0.0), DataType.COMPLEX64, "t"), parseFill("<c8", "[\"NaN\", 0.0]"));
        assertEquals(FillValue.ofBytes(DataType.raw(32), new byte[]{1, 2, 3, 4}), parseFill("|V4", "\"AQIDBA==\""));
    }

    private static FillValue parseFill(String dtype, String fill) {
        return V2ArrayMetadata.parse(zarray(dtype, "C", fill, "null", "null", ""), "k", Map.of()).fillValue();
    }

    @Test
    void fillValuesAreWrittenInTheFormsZarrPythonWrites() {
        assertEquals("NaN", V2FillValue.toJson(FillValue.parse("0x7fc00001", DataType.FLOAT32, "t")));
        assertEquals("Infinity", V2FillValue.toJson(FillValue.parse("Infinity", DataType.FLOAT64, "t")));
        assertEquals("AQIDBA==", V2FillValue.toJson(FillValue.ofBytes(DataType.raw(32), new byte[]{1, 2, 3, 4})));
        assertEquals(List.of(1.0, "NaN"), V2FillValue.toJson(FillValue.parse(List.of(1.0, "NaN"), DataType.COMPLEX64, "t")));
        assertEquals(false, V2FillValue.toJson(FillValue.zero(DataType.BOOL)));
        assertEquals(-3L, V2FillValue.toJson(FillValue.parse(-3L, DataType.INT8, "t")));
    }

    @ParameterizedTest(name = "dtype {0} reads and writes back the same string")
    @ValueSource(strings = {"|b1", "|i1", "|u1", "<i2", ">i2", "<i4", ">i4", "<i8", ">u8", "<u2", ">u4", "<f2", ">f2",
            "<f4", ">f4", "<f8", ">f8", "<c8", ">c8", "<c16", ">c16", "|V1", "|V3", "|V16"})
    void numpyTypeStringsReadAndWriteBack(String typestr) {
        V2DataType t = V2DataType.parse(typestr, "test");
        assertEquals(typestr, t.typestr());
        assertEquals(typestr.charAt(0) == '>' ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN, t.byteOrder());
    }

    @Test
    void oneByteTypesWithAByteOrderCharacterReadAsUnordered() {
        assertEquals(V2DataType.little(DataType.INT8), V2DataType.parse(">i1", "t"));
        assertEquals("|i1", V2DataType.parse("<i1", "t").typestr());
    }

    @Test
    void datetimeStringAndStructuredTypesAreRefusedWithTheFieldAndValue() {
        assertMessage(zarray("<M8[ns]", "C", "0", "null", "null", ""), "\"dtype\" in \"t/.zarray\"", "<M8[ns]",
                "datetime64");
        assertMessage(zarray("<m8[s]", "C", "0", "null", "null", ""), "\"dtype\" in \"t/.zarray\"", "timedelta64");
        assertMessage(zarray("<U5", "C", "0", "null", "null", ""), "\"dtype\" in \"t/.zarray\"", "<U5", "string");
        assertMessage("""
                {"chunks": [2], "compressor": null, "dtype": [["a", "<i4"], ["b", "<f8"]], "fill_value": null,
                 "filters": null, "order": "C", "shape": [4], "zarr_format": 2}""", "\"dtype\" in \"t/.zarray\"",
                "structured");
        assertMessage(zarray("|f4", "C", "0", "null", "null", ""), "\"|f4\"", "needs '<' or '>'");
        assertMessage(zarray("<f3", "C", "0", "null", "null", ""), "\"<f3\"", "3-byte");
    }

    @Test
    void unsupportedFiltersAndCompressorsAreNamedWithTheSupportedOnes() {
        assertMessage(zarray("<i4", "C", "0", "null", "[{\"id\": \"fixedscaleoffset\", \"scale\": 10}]", ""),
                "\"filters[0]\" in \"t/.zarray\"", "\"fixedscaleoffset\"", "[delta, shuffle]");
        assertMessage(zarray("<i4", "C", "0", "{\"id\": \"lz4\", \"acceleration\": 1}", "null", ""),
                "\"compressor\" in \"t/.zarray\"", "\"lz4\"", "[blosc, gzip, zlib, zstd]");
        assertMessage(zarray("<i4", "C", "0", "{\"id\": \"blosc\", \"cname\": \"brotli\"}", "null", ""),
                "\"compressor.cname\" in \"t/.zarray\"", "brotli");
        assertMessage(zarray("<i4", "C", "0", "{\"id\": \"gzip\", \"level\": 12}", "null", ""),
                "\"compressor.level\" in \"t/.zarray\"", "12");
        assertMessage(zarray("<i4", "C", "0", "{\"id\": \"zlib\", \"level\": 1, \"wbits\": 15}", "null", ""),
                "\"compressor\" in \"t/.zarray\"", "\"wbits\"");
    }

    @Test
    void deltaAfterShuffleAndDeltaOfAnotherTypeAreRefused() {
        assertMessage(zarray("<i4", "C", "0", "null",
                "[{\"id\": \"shuffle\", \"elementsize\": 4}, {\"id\": \"delta\", \"dtype\": \"<i4\"}]", ""),
                "\"filters[1]\" in \"t/.zarray\"", "after a shuffle");
        assertMessage(zarray("<i4", "C", "0", "null", "[{\"id\": \"delta\", \"dtype\": \">i4\"}]", ""),
                "\"filters[0].dtype\" in \"t/.zarray\"", "\">i4\"", "\"<i4\"");
    }

    @Test
    void malformedDocumentsNameTheKeyTheFieldAndTheValueSeen() {
        assertMessage("{\"chunks\": [2], \"compressor\": null, \"fill_value\": 0, \"filters\": null, \"order\": \"C\","
                + " \"shape\": [4], \"zarr_format\": 2}", "\"t/.zarray\"", "\"dtype\"");
        assertMessage(zarray("<i4", "C", "0", "null", "null", "").replace("\"chunks\": [2, 3]", "\"chunks\": [2]"),
                "\"chunks\" in \"t/.zarray\"", "[2]", "rank");
        assertMessage(zarray("<i4", "X", "0", "null", "null", ""), "\"order\" in \"t/.zarray\"", "\"X\"");
        assertMessage(zarray("<i4", "C", "0", "null", "null", "").replace("\"zarr_format\": 2", "\"zarr_format\": 3"),
                "\"zarr_format\" in \"t/.zarray\"", "3");
        assertMessage(zarray("<i4", "C", "0", "null", "null", ", \"dimension_separator\": \"-\""),
                "\"dimension_separator\" in \"t/.zarray\"", "\"-\"");
        assertMessage(zarray("<i4", "C", "\"NaN\"", "null", "null", ""), "\"fill_value\" in \"t/.zarray\"", "NaN");
        assertMessage(zarray("|V4", "C", "\"AQID\"", "null", "null", ""), "\"fill_value\" in \"t/.zarray\"", "AQID",
                "3 bytes");
        assertMessage(zarray("<i4", "C", "0", "null", "null", "").replace("[4, 5]", "[4, -5]"),
                "\"shape\" in \"t/.zarray\"", "-5");
        assertMessage("{\"chunks\": [2], ", "t/.zarray");
    }

    private static void assertMessage(String json, String... parts) {
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class,
                () -> V2ArrayMetadata.parse(json, "t/.zarray", Map.of()));
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "message lacks [" + p + "]: " + e.getMessage());
        }
    }

    @Test
    void writingBackKeepsTheDocumentAsReadAndChangesOnlyTheAttributes() {
        String json = BLOSC_F8.replace("\"zarr_format\": 2", "\"zarr_format\": 2, \"x_extension\": {\"a\": 1}");
        V2ArrayMetadata md = V2ArrayMetadata.parse(json, "t2m/.zarray", Map.of("units", "K"));
        V2ArrayMetadata changed = md.withAttributes(Map.of("units", "degC"));
        assertEquals(Json.parse(json), Json.parse(changed.toZarrayJson()));
        assertEquals(Map.of("units", "degC"), changed.attributes());
        assertEquals(Map.of("units", "degC"), changed.arrayMetadata().attributes());
    }

    @Test
    void theBuilderWritesZarrPythonsMemberOrderAndReadsBackEqual() {
        V2ArrayMetadata md = V2ArrayMetadata.builder(new long[]{10, 20}, new long[]{5, 5}, V2DataType.big(DataType.FLOAT32))
                .order('F').fillValue(FillValue.parse("NaN", DataType.FLOAT32, "t"))
                .compressor(Map.of("id", "zstd", "level", 3, "checksum", false))
                .filters(List.of(Map.of("id", "shuffle", "elementsize", 4)))
                .dimensionSeparator('/').build();
        assertEquals(List.of("chunks", "compressor", "dimension_separator", "dtype", "fill_value", "filters", "order",
                "shape", "zarr_format"), List.copyOf(md.document().keySet()));
        assertEquals(">f4", md.document().get("dtype"));
        assertEquals("NaN", md.document().get("fill_value"));
        V2ArrayMetadata back = V2ArrayMetadata.parse(md.toZarrayJson(), "k", Map.of());
        assertEquals(md, back);
        assertEquals(md.arrayMetadata(), back.arrayMetadata());
    }
}
