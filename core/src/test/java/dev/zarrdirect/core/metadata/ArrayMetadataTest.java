// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.json.JsonException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArrayMetadataTest {

    private static final String KEY = "t2m/zarr.json";

    /** An ERA5-like array as our writer lays it out: parsing and writing it back must give the same text. */
    private static final String CANONICAL = """
            {
              "zarr_format": 3,
              "node_type": "array",
              "shape": [32, 16, 721, 1440],
              "data_type": "float32",
              "chunk_grid": {
                "name": "regular",
                "configuration": {
                  "chunk_shape": [1, 16, 721, 1440]
                }
              },
              "chunk_key_encoding": {
                "name": "default",
                "configuration": {
                  "separator": "/"
                }
              },
              "fill_value": "NaN",
              "codecs": [
                {
                  "name": "bytes",
                  "configuration": {
                    "endian": "little"
                  }
                },
                {
                  "name": "zstd",
                  "configuration": {
                    "level": 3,
                    "checksum": false
                  }
                }
              ],
              "attributes": {
                "units": "K",
                "long_name": "2 metre temperature",
                "scale": [0.5, 1.0E-5]
              },
              "dimension_names": ["time", "channel", "lat", "lon"]
            }
            """;

    /** Sharding as in the sharding_indexed spec: codecs nested in the configuration, and the v2 key encoding. */
    private static final String SHARDED = """
            {
                "zarr_format": 3,
                "node_type": "array",
                "shape": [16384, 16384],
                "dimension_names": ["y", null],
                "data_type": "uint16",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4096, 4096]}},
                "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "."}},
                "codecs": [{
                    "name": "sharding_indexed",
                    "configuration": {
                        "chunk_shape": [64, 64],
                        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                   {"name": "gzip", "configuration": {"level": 1}}],
                        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                         {"name": "crc32c"}],
                        "index_location": "end"
                    }
                }],
                "fill_value": 65535,
                "storage_transformers": []
            }
            """;

    @Test
    void aCanonicalDocumentWritesBackByteForByte() {
        ArrayMetadata m = ArrayMetadata.parse(CANONICAL, KEY);
        assertArrayEquals(new long[] {32, 16, 721, 1440}, m.shape());
        assertEquals(4, m.rank());
        assertEquals(DataType.FLOAT32, m.dataType());
        assertArrayEquals(new long[] {1, 16, 721, 1440}, m.chunkShape());
        assertArrayEquals(new long[] {32, 1, 1, 1}, m.gridShape());
        assertEquals("c/3/0/0/0", m.chunkKey(new long[] {3, 0, 0, 0}));
        assertEquals("NaN", m.fillValue().toString());
        assertEquals(List.of("bytes", "zstd"), m.codecs().stream().map(CodecMetadata::name).toList());
        assertEquals("K", m.attributes().get("units"));
        assertEquals(List.of("time", "channel", "lat", "lon"), m.dimensionNames());
        assertEquals(CANONICAL, m.toJson());
    }

    @Test
    void shardingWithNestedCodecsRoundTrips() {
        ArrayMetadata m = ArrayMetadata.parse(SHARDED, "images/raw/zarr.json");
        CodecMetadata sharding = m.codecs().get(0);
        assertEquals("sharding_indexed", sharding.name());
        List<?> inner = assertInstanceOf(List.class, sharding.configuration().get("codecs"));
        assertEquals(Map.of("name", "gzip", "configuration", Map.of("level", 1L)), inner.get(1));
        assertEquals(new V2ChunkKeyEncoding('.'), m.chunkKeyEncoding());
        assertEquals("3.1", m.chunkKey(new long[] {3, 1}));
        assertEquals(Arrays.asList("y", null), m.dimensionNames());
        assertEquals(65535L, m.fillValue().toJson());
        assertEquals(Map.of(), m.attributes());
        ArrayMetadata back = ArrayMetadata.parse(m.toJson(), "images/raw/zarr.json");
        assertEquals(m, back);
        assertEquals(m.hashCode(), back.hashCode());
        assertEquals(m.toJson(), back.toJson());
    }

    @Test
    void everyDataTypeAndFillValueFormRoundTripsThroughADocument() {
        List<String[]> cases = List.of(
                new String[] {"bool", "true"}, new String[] {"int8", "-128"}, new String[] {"int16", "-2"},
                new String[] {"int32", "7"}, new String[] {"int64", "-9223372036854775808"},
                new String[] {"uint8", "255"}, new String[] {"uint16", "0"}, new String[] {"uint32", "4294967295"},
                new String[] {"uint64", "18446744073709551615"}, new String[] {"float16", "\"0x7e01\""},
                new String[] {"float32", "\"-Infinity\""}, new String[] {"float64", "\"0x7ff8000000000001\""},
                new String[] {"complex64", "[1.5, \"NaN\"]"}, new String[] {"complex128", "[0.0, -0.0]"},
                new String[] {"r16", "[0, 255]"});
        for (String[] c : cases) {
            String doc = "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [3], \"data_type\": \"" + c[0] + "\","
                    + " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}},"
                    + " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": " + c[1] + ","
                    + " \"codecs\": [\"bytes\"]}";
            ArrayMetadata m = ArrayMetadata.parse(doc, KEY);
            assertEquals(DataType.parse(c[0]), m.dataType());
            assertEquals(Json.parse(c[1]), m.fillValue().toJson(), c[0]);
            assertEquals(m, ArrayMetadata.parse(m.toJson(), KEY), c[0]);
        }
    }

    @Test
    void rankZeroAndZeroExtentArraysAreValid() {
        ArrayMetadata scalar = ArrayMetadata.create(new long[0], DataType.INT32, new long[0], FillValue.zero(DataType.INT32),
                List.of(CodecMetadata.of("bytes", Map.of("endian", "little"))));
        assertEquals(0, scalar.rank());
        assertEquals("c", scalar.chunkKey(new long[0]));
        assertEquals(scalar, ArrayMetadata.parse(scalar.toJson(), KEY));
        ArrayMetadata empty = ArrayMetadata.create(new long[] {0, 5}, DataType.UINT8, new long[] {2, 2},
                FillValue.zero(DataType.UINT8), List.of(CodecMetadata.of("bytes", Map.of())));
        assertArrayEquals(new long[] {0, 3}, empty.gridShape());
        assertEquals(empty, ArrayMetadata.parse(empty.toJson(), KEY));
    }

    @Test
    void createAndWithersBuildMetadataThatRoundTrips() {
        ArrayMetadata m = ArrayMetadata.create(new long[] {10, 20}, DataType.FLOAT64, new long[] {5, 5},
                        FillValue.parse("NaN", DataType.FLOAT64, "test"), List.of(CodecMetadata.of("bytes", Map.of())))
                .withAttributes(Map.of("title", "t"))
                .withDimensionNames(Arrays.asList("y", null))
                .withChunkKeyEncoding(new DefaultChunkKeyEncoding('.'))
                .withCodecs(List.of(CodecMetadata.of("bytes", Map.of("endian", "big")), CodecMetadata.of("crc32c", null)));
        assertEquals("c.1.3", m.chunkKey(new long[] {1, 3}));
        assertEquals(m, ArrayMetadata.parse(m.toJson(), KEY));
        assertNull(ArrayMetadata.create(new long[] {1}, DataType.INT8, new long[] {1}, FillValue.zero(DataType.INT8),
                List.of(CodecMetadata.of("bytes", Map.of()))).dimensionNames());
    }

    @Test
    void theRecordCopiesArraysInAndOut() {
        long[] shape = {4, 4};
        ArrayMetadata m = ArrayMetadata.create(shape, DataType.INT8, new long[] {2, 2}, FillValue.zero(DataType.INT8),
                List.of(CodecMetadata.of("bytes", Map.of())));
        shape[0] = 99;
        m.shape()[1] = 99;
        assertArrayEquals(new long[] {4, 4}, m.shape());
        List<CodecMetadata> codecs = new ArrayList<>(m.codecs());
        assertThrows(UnsupportedOperationException.class, () -> m.codecs().add(codecs.get(0)));
    }

    @Test
    void theConstructorRefusesInconsistentParts() {
        List<CodecMetadata> bytes = List.of(CodecMetadata.of("bytes", Map.of()));
        assertThrows(IllegalArgumentException.class, () -> ArrayMetadata.create(new long[] {4}, DataType.INT8,
                new long[] {2, 2}, FillValue.zero(DataType.INT8), bytes));
        assertThrows(IllegalArgumentException.class, () -> ArrayMetadata.create(new long[] {4}, DataType.INT8,
                new long[] {2}, FillValue.zero(DataType.INT16), bytes));
        assertThrows(IllegalArgumentException.class, () -> ArrayMetadata.create(new long[] {4}, DataType.INT8,
                new long[] {2}, FillValue.zero(DataType.INT8), List.of()));
        assertThrows(IllegalArgumentException.class, () -> ArrayMetadata.create(new long[] {-1}, DataType.INT8,
                new long[] {2}, FillValue.zero(DataType.INT8), bytes));
        ArrayMetadata ok = ArrayMetadata.create(new long[] {4}, DataType.INT8, new long[] {2}, FillValue.zero(DataType.INT8), bytes);
        assertThrows(IllegalArgumentException.class, () -> ok.withDimensionNames(List.of("a", "b")));
    }

    @Test
    void unknownFieldsWithMustUnderstandFalseAreKeptAndWrittenBack() {
        String doc = SHARDED.replace("\"fill_value\": 65535,",
                "\"fill_value\": 65535, \"x_provenance\": {\"must_understand\": false, \"tool\": \"era5-prep\"},");
        ArrayMetadata m = ArrayMetadata.parse(doc, KEY);
        assertEquals(Map.of("x_provenance", Map.of("must_understand", false, "tool", "era5-prep")), m.extraFields());
        ArrayMetadata back = ArrayMetadata.parse(m.toJson(), KEY);
        assertEquals(m.extraFields(), back.extraFields());
        assertTrue(m.toJson().contains("\"tool\": \"era5-prep\""));
    }

    @Test
    void unknownFieldsThatMustBeUnderstoodAreRejectedNamingFieldAndKey() {
        for (String value : List.of("{\"must_understand\": true}", "{}", "1", "\"x\"", "{\"must_understand\": \"false\"}")) {
            String doc = SHARDED.replace("\"fill_value\": 65535,", "\"fill_value\": 65535, \"foo\": " + value + ",");
            InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> ArrayMetadata.parse(doc, KEY));
            assertEquals("array metadata \"t2m/zarr.json\" has the extension field \"foo\" that this reader does not"
                    + " understand (its must_understand is not false)", e.getMessage());
        }
    }

    @Test
    void nonEmptyStorageTransformersAreUnsupported() {
        String doc = SHARDED.replace("\"storage_transformers\": []", "\"storage_transformers\": [{\"name\": \"x\"}]");
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> ArrayMetadata.parse(doc, KEY));
        assertTrue(e.getMessage().contains("t2m/zarr.json") && e.getMessage().contains("not supported"), e.getMessage());
    }

    @Test
    void dimensionNamesNullMeansAbsent() {
        String doc = SHARDED.replace("\"dimension_names\": [\"y\", null]", "\"dimension_names\": null");
        assertNull(ArrayMetadata.parse(doc, KEY).dimensionNames());
        assertTrue(!ArrayMetadata.parse(doc, KEY).toJson().contains("dimension_names"));
    }

    /** Each malformed variant of {@link #SHARDED}, with what its message must contain besides the key. */
    @Test
    void malformedDocumentsNameTheKeyAndTheField() {
        String[][] cases = {
                {"\"zarr_format\": 3,", "\"zarr_format\": \"3\",", "\"zarr_format\""},
                {"\"zarr_format\": 3,", "", "\"zarr_format\""},
                {"\"node_type\": \"array\"", "\"node_type\": \"group\"", "\"node_type\""},
                {"\"shape\": [16384, 16384]", "\"shape\": [16384, -1]", "\"shape\""},
                {"\"shape\": [16384, 16384]", "\"shape\": \"16384\"", "\"shape\""},
                {"\"shape\": [16384, 16384]", "\"shape\": [16384]", "chunk_grid.configuration.chunk_shape"},
                {"\"shape\": [16384, 16384],", "", "\"shape\""},
                {"\"data_type\": \"uint16\"", "\"data_type\": \"uint128\"", "\"data_type\""},
                {"\"data_type\": \"uint16\"", "\"data_type\": 16", "\"data_type\""},
                {"[4096, 4096]", "[4096, 0]", "chunk_grid.configuration.chunk_shape"},
                {"[4096, 4096]", "[4096, -4096]", "chunk_grid.configuration.chunk_shape"},
                {"\"chunk_grid\": {\"name\": \"regular\"", "\"chunk_grid\": {\"name\": \"irregular\"", "\"chunk_grid\""},
                {"\"chunk_key_encoding\": {\"name\": \"v2\", \"configuration\": {\"separator\": \".\"}},", "",
                        "\"chunk_key_encoding\""},
                {"\"fill_value\": 65535", "\"fill_value\": 65536", "\"fill_value\""},
                {"\"fill_value\": 65535", "\"fill_value\": \"NaN\"", "\"fill_value\""},
                {"\"fill_value\": 65535,", "", "\"fill_value\""},
                {"\"dimension_names\": [\"y\", null]", "\"dimension_names\": [\"y\"]", "\"dimension_names\""},
                {"\"dimension_names\": [\"y\", null]", "\"dimension_names\": [\"y\", 3]", "\"dimension_names[1]\""},
                {"\"storage_transformers\": []", "\"storage_transformers\": {}", "\"storage_transformers\""},
                {"\"name\": \"sharding_indexed\",", "", "\"codecs[0]\""},
        };
        for (String[] c : cases) {
            String doc = SHARDED.replace(c[0], c[1]);
            assertTrue(!doc.equals(SHARDED), "test case does not change the document: " + c[0]);
            InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> ArrayMetadata.parse(doc, KEY),
                    () -> "accepted: " + c[1]);
            assertTrue(e.getMessage().contains("\"" + KEY + "\""), e.getMessage());
            assertTrue(e.getMessage().contains(c[2]), () -> "expected " + c[2] + " in: " + e.getMessage());
        }
    }

    @Test
    void missingAndEmptyCodecsAreRejected() {
        String base = "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [3], \"data_type\": \"int8\","
                + " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}},"
                + " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0";
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> ArrayMetadata.parse(base + "}", KEY));
        assertEquals("array metadata \"t2m/zarr.json\" has no \"codecs\", which is required", e.getMessage());
        e = assertThrows(InvalidMetadataException.class, () -> ArrayMetadata.parse(base + ", \"codecs\": []}", KEY));
        assertTrue(e.getMessage().startsWith("\"codecs\" in \"t2m/zarr.json\" is empty"), e.getMessage());
    }

    @Test
    void textThatIsNotJsonOrNotAnObjectIsRejected() {
        JsonException e = assertThrows(JsonException.class, () -> ArrayMetadata.parse("{\"zarr_format\": 3,", KEY));
        assertTrue(e.getMessage().contains(KEY), e.getMessage());
        InvalidMetadataException e2 = assertThrows(InvalidMetadataException.class, () -> ArrayMetadata.parse("[3]", KEY));
        assertTrue(e2.getMessage().contains(KEY), e2.getMessage());
    }

    @Test
    void zarrV2DocumentsAreReportedAsV2() {
        String v2 = "{\"zarr_format\": 2, \"shape\": [10], \"chunks\": [5], \"dtype\": \"<f8\", \"compressor\": null,"
                + " \"fill_value\": \"NaN\", \"order\": \"C\", \"filters\": null}";
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> ArrayMetadata.parse(v2, "a/.zarray"));
        assertEquals("metadata \"a/.zarray\" is Zarr v2 metadata, which this v3 parser does not read; open the node with Zarr.open, which reads both versions", e.getMessage());
    }
}
