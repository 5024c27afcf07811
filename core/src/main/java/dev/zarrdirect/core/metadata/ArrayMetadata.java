// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.grid.RegularChunkGrid;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.json.Json;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code zarr.json} of a Zarr v3 array. Immutable: arrays are copied in and out, maps and lists
 * are deep unmodifiable copies. Extension fields marked {@code "must_understand": false} are kept in
 * {@link #extraFields()} and written back unchanged; every other unknown field is an error.
 *
 * <p>The constructor checks only what this record can see (ranks agree, extents are not negative,
 * the fill value's type is the array's, there is a codec); whether the codecs exist and form a valid
 * chain is checked when an array is opened or created ({@link dev.zarrdirect.core.Zarr#createArray}).
 *
 * {@snippet :
 * ArrayMetadata md = ArrayMetadata.create(new long[]{4, 721, 1440}, DataType.FLOAT32,
 *         new long[]{1, 721, 1440}, FillValue.zero(DataType.FLOAT32),
 *         List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
 *                 CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false))));
 * }
 *
 * @param shape            the array's extent per dimension, in elements, each 0 or more; copied in
 *                         and out
 * @param dataType         the type of the elements
 * @param chunkGrid        the regular chunk grid: the shape of a chunk (of a shard, for a sharded
 *                         array), of the array's rank
 * @param chunkKeyEncoding how a chunk's grid index becomes its key below the array's path
 * @param fillValue        the value of elements never written, of {@code dataType}
 * @param codecs           the codec chain as written in metadata, at least one entry; an
 *                         unmodifiable copy
 * @param attributes       the user attributes, values of the plain JSON model; null reads as empty;
 *                         a deep unmodifiable copy
 * @param dimensionNames   one name (or {@code null}) per dimension, or {@code null} when absent
 * @param extraFields      extension fields marked {@code "must_understand": false}, kept to be
 *                         written back; null reads as empty; a deep unmodifiable copy
 */
public record ArrayMetadata(long[] shape, DataType dataType, RegularChunkGrid chunkGrid,
                            ChunkKeyEncoding chunkKeyEncoding, FillValue fillValue, List<CodecMetadata> codecs,
                            Map<String, Object> attributes, List<String> dimensionNames,
                            Map<String, Object> extraFields) {

    static final Set<String> KNOWN_FIELDS = Set.of("zarr_format", "node_type", "shape", "data_type", "chunk_grid",
            "chunk_key_encoding", "fill_value", "codecs", "attributes", "storage_transformers", "dimension_names");

    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException when {@code shape}, {@code dataType}, {@code chunkGrid},
     *         {@code chunkKeyEncoding}, {@code fillValue} or {@code codecs} is null
     * @throws IllegalArgumentException when an extent is negative, a size overflows (see
     *         {@link #checkSizes}), the chunk grid or the dimension
     *         names have another rank, the fill value is of another type, {@code codecs} is empty,
     *         a map has a non-string key, or an extra field is a field of array metadata itself
     */
    public ArrayMetadata {
        Objects.requireNonNull(shape, "shape");
        Objects.requireNonNull(dataType, "dataType");
        Objects.requireNonNull(chunkGrid, "chunkGrid");
        Objects.requireNonNull(chunkKeyEncoding, "chunkKeyEncoding");
        Objects.requireNonNull(fillValue, "fillValue");
        Objects.requireNonNull(codecs, "codecs");
        shape = shape.clone();
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) {
                throw new IllegalArgumentException("shape " + Shapes.format(shape) + " has the negative extent "
                        + shape[i] + " in dimension " + i);
            }
        }
        if (chunkGrid.rank() != shape.length) {
            throw new IllegalArgumentException("chunk shape " + Shapes.format(chunkGrid.chunkShape()) + " has rank "
                    + chunkGrid.rank() + " but shape " + Shapes.format(shape) + " has rank " + shape.length);
        }
        try {
            checkSizes(shape, chunkGrid.chunkShape(), dataType, "shape", "chunk shape");
        } catch (InvalidMetadataException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (!fillValue.dataType().equals(dataType)) {
            throw new IllegalArgumentException("fill value " + fillValue + " is of " + fillValue.dataType()
                    + " but the array is of " + dataType);
        }
        codecs = List.copyOf(codecs);
        if (codecs.isEmpty()) {
            throw new IllegalArgumentException("an array needs at least one codec (an array-to-bytes codec such as bytes)");
        }
        attributes = attributes == null ? Map.of() : Json.freezeObject(attributes, "attributes");
        if (dimensionNames != null) {
            if (dimensionNames.size() != shape.length) {
                throw new IllegalArgumentException("dimension names " + dimensionNames + " are " + dimensionNames.size()
                        + " for shape " + Shapes.format(shape) + " of rank " + shape.length);
            }
            // Not List.copyOf: a dimension may be unnamed (null).
            dimensionNames = Collections.unmodifiableList(new ArrayList<>(dimensionNames));
        }
        extraFields = extraFields == null ? Map.of() : Json.freezeObject(extraFields, "extra fields");
        for (String k : extraFields.keySet()) {
            if (KNOWN_FIELDS.contains(k)) {
                throw new IllegalArgumentException("extra field \"" + k + "\" is a field of array metadata itself");
            }
        }
    }

    /**
     * New metadata with the default chunk key encoding (separator {@code /}), no attributes and no
     * dimension names.
     *
     * @param shape      the array's extent per dimension, in elements
     * @param dt         the type of the elements
     * @param chunkShape the shape of a chunk, in elements, each extent positive
     * @param fill       the fill value, of type {@code dt}
     * @param codecs     the codec chain, at least an array-to-bytes codec such as {@code bytes}
     * @return the metadata
     * @throws IllegalArgumentException as the canonical constructor, or when a chunk extent is not positive
     */
    public static ArrayMetadata create(long[] shape, DataType dt, long[] chunkShape, FillValue fill,
                                       List<CodecMetadata> codecs) {
        return new ArrayMetadata(shape, dt, new RegularChunkGrid(chunkShape), new DefaultChunkKeyEncoding('/'), fill,
                codecs, Map.of(), null, Map.of());
    }

    /**
     * Starts the metadata of a new array of {@code shape} and {@code dataType}: set at least the
     * chunk shape, then {@link ArrayMetadataBuilder#build()}.
     *
     * {@snippet :
     * ArrayMetadata md = ArrayMetadata.builder(new long[] {8760, 721, 1440}, DataType.FLOAT32)
     *         .chunks(24, 721, 1440).compressors(Codecs.zstd(3)).build();
     * }
     *
     * @param shape    the array's extent per dimension, in elements; copied (extents are checked by
     *                 {@code build()})
     * @param dataType the type of the elements
     * @return a new builder: no chunk shape yet, {@code bytes} little-endian, no filters or
     *         compressors, fill value zero, separator {@code /}
     * @throws NullPointerException when {@code shape} or {@code dataType} is null
     */
    public static ArrayMetadataBuilder builder(long[] shape, DataType dataType) {
        return new ArrayMetadataBuilder(shape, dataType);
    }

    /**
     * The array's extent per dimension, in elements.
     *
     * @return a fresh copy
     */
    @Override
    public long[] shape() {
        return shape.clone();
    }

    /**
     * The number of dimensions.
     *
     * @return the rank, 0 for a scalar array
     */
    public int rank() {
        return shape.length;
    }

    /**
     * The chunk grid's chunk shape, in elements.
     *
     * @return a fresh copy
     */
    public long[] chunkShape() {
        return chunkGrid.chunkShape();
    }

    /**
     * Chunks per dimension: each extent divided by the chunk's, rounded up.
     *
     * @return a new array, of the array's rank
     */
    public long[] gridShape() {
        return chunkGrid.gridShape(shape);
    }

    /**
     * The key of a chunk relative to the array's path, such as {@code c/0/3/1}.
     *
     * @param chunkIndex the chunk's position in the grid, one entry per dimension
     * @return the relative key; prefix it with the array's path and {@code /} for the store key
     * @throws IllegalArgumentException when an index is negative
     */
    public String chunkKey(long[] chunkIndex) {
        return chunkKeyEncoding.encode(chunkIndex);
    }

    /**
     * This metadata with other {@code attributes}; the other components stay.
     *
     * @param attributes the new user attributes, values of the plain JSON model; null for none
     * @return new metadata; this one is unchanged
     * @throws IllegalArgumentException as the canonical constructor
     */
    public ArrayMetadata withAttributes(Map<String, Object> attributes) {
        return new ArrayMetadata(shape, dataType, chunkGrid, chunkKeyEncoding, fillValue, codecs, attributes,
                dimensionNames, extraFields);
    }

    /**
     * This metadata with other {@code dimensionNames}; the other components stay.
     *
     * @param dimensionNames one name (or null) per dimension, or null for none
     * @return new metadata; this one is unchanged
     * @throws IllegalArgumentException as the canonical constructor
     */
    public ArrayMetadata withDimensionNames(List<String> dimensionNames) {
        return new ArrayMetadata(shape, dataType, chunkGrid, chunkKeyEncoding, fillValue, codecs, attributes,
                dimensionNames, extraFields);
    }

    /**
     * This metadata with other {@code codecs}; the other components stay.
     *
     * @param codecs the new codec chain, at least one entry
     * @return new metadata; this one is unchanged
     * @throws IllegalArgumentException as the canonical constructor
     */
    public ArrayMetadata withCodecs(List<CodecMetadata> codecs) {
        return new ArrayMetadata(shape, dataType, chunkGrid, chunkKeyEncoding, fillValue, codecs, attributes,
                dimensionNames, extraFields);
    }

    /**
     * This metadata with other {@code chunkKeyEncoding}; the other components stay.
     *
     * @param chunkKeyEncoding the new chunk key encoding
     * @return new metadata; this one is unchanged
     * @throws IllegalArgumentException as the canonical constructor
     */
    public ArrayMetadata withChunkKeyEncoding(ChunkKeyEncoding chunkKeyEncoding) {
        return new ArrayMetadata(shape, dataType, chunkGrid, chunkKeyEncoding, fillValue, codecs, attributes,
                dimensionNames, extraFields);
    }

    /**
     * This metadata with other {@code shape}; the other components stay.
     *
     * @param shape the new extent per dimension, in elements, of the same rank
     * @return new metadata; this one is unchanged
     * @throws IllegalArgumentException as the canonical constructor
     */
    public ArrayMetadata withShape(long[] shape) {
        return new ArrayMetadata(shape, dataType, chunkGrid, chunkKeyEncoding, fillValue, codecs, attributes,
                dimensionNames, extraFields);
    }

    /**
     * This metadata with other {@code fillValue}; the other components stay.
     *
     * @param fillValue the new fill value, of the array's type
     * @return new metadata; this one is unchanged
     * @throws IllegalArgumentException as the canonical constructor
     */
    public ArrayMetadata withFillValue(FillValue fillValue) {
        return new ArrayMetadata(shape, dataType, chunkGrid, chunkKeyEncoding, fillValue, codecs, attributes,
                dimensionNames, extraFields);
    }

    /**
     * Reads and validates an array's {@code zarr.json}.
     *
     * @param json the document's text
     * @param key  the store key of the document, named in every error
     * @return the metadata
     * @throws InvalidMetadataException naming key and field for anything the spec does not allow
     *         (including a group's document, a Zarr v2 one, or storage transformers)
     */
    public static ArrayMetadata parse(String json, String key) {
        Map<String, Object> doc = Json.object(Json.parse(json, "array metadata \"" + key + "\""),
                "array metadata \"" + key + "\"");
        return fromJson(doc, key);
    }

    static ArrayMetadata fromJson(Map<String, Object> doc, String key) {
        Metadata.checkFormat(doc, key, "array");
        Map<String, Object> extra = Metadata.extensionFields(doc, key, KNOWN_FIELDS, "array");

        long[] shape = Json.longArray(Metadata.required(doc, "shape", key), Json.where("shape", key));
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) {
                throw new InvalidMetadataException(Json.where("shape", key) + " is " + Shapes.format(shape)
                        + ": extents must be 0 or more, dimension " + i + " is " + shape[i]);
            }
        }
        DataType dataType = dataType(Metadata.required(doc, "data_type", key), Json.where("data_type", key));
        RegularChunkGrid grid = RegularChunkGrid.parse(Metadata.required(doc, "chunk_grid", key), shape.length,
                Json.where("chunk_grid", key));
        checkSizes(shape, grid.chunkShape(), dataType, Json.where("shape", key),
                Json.child(Json.child(Json.where("chunk_grid", key), "configuration"), "chunk_shape"));
        ChunkKeyEncoding cke = ChunkKeyEncoding.parse(Metadata.required(doc, "chunk_key_encoding", key),
                Json.where("chunk_key_encoding", key));
        FillValue fill = FillValue.parse(Metadata.required(doc, "fill_value", key), dataType,
                Json.where("fill_value", key));

        String codecsWhere = Json.where("codecs", key);
        List<Object> codecList = Json.array(Metadata.required(doc, "codecs", key), codecsWhere);
        if (codecList.isEmpty()) {
            throw new InvalidMetadataException(codecsWhere + " is empty; an array needs at least an array-to-bytes"
                    + " codec such as {\"name\": \"bytes\"}");
        }
        List<CodecMetadata> codecs = new ArrayList<>(codecList.size());
        for (int i = 0; i < codecList.size(); i++) {
            codecs.add(CodecMetadata.parse(codecList.get(i), Json.element(codecsWhere, i)));
        }

        Map<String, Object> attributes = doc.containsKey("attributes")
                ? Json.object(doc.get("attributes"), Json.where("attributes", key)) : Map.of();

        Object st = doc.get("storage_transformers");
        if (st != null) {
            List<Object> transformers = Json.array(st, Json.where("storage_transformers", key));
            if (!transformers.isEmpty()) {
                throw new InvalidMetadataException("array metadata \"" + key + "\" uses the storage transformers "
                        + transformers + "; storage transformers are not supported");
            }
        }

        List<String> dimensionNames = null;
        // zarr-python writes "dimension_names": null for unnamed dimensions; read it as absent.
        Object dn = doc.get("dimension_names");
        if (dn != null) {
            String dnWhere = Json.where("dimension_names", key);
            List<Object> names = Json.array(dn, dnWhere);
            if (names.size() != shape.length) {
                throw new InvalidMetadataException(dnWhere + " has " + names.size() + " entries, but shape "
                        + Shapes.format(shape) + " has rank " + shape.length);
            }
            dimensionNames = new ArrayList<>(names.size());
            for (int i = 0; i < names.size(); i++) {
                Object n = names.get(i);
                dimensionNames.add(n == null ? null : Json.string(n, Json.element(dnWhere, i)));
            }
        }
        return new ArrayMetadata(shape, dataType, grid, cke, fill, codecs, attributes, dimensionNames, extra);
    }

    /**
     * Checks that the sizes a shape, a chunk shape and a data type imply fit in a {@code long}: the
     * array's element count and byte size, a chunk's element count and byte size, and the number of
     * chunks. Metadata parsing (v3 and v2) calls it, so that a hostile or careless document fails
     * there, naming the field, instead of later with an overflow or an out-of-memory error. An array
     * with an extent of 0 has no elements whatever its other extents.
     *
     * {@snippet :
     * // InvalidMetadataException: "shape" in "t2m/zarr.json" is [4611686018427387904, 4]: 18446744073709551616
     * // elements, more than 9223372036854775807 (the most a long holds)
     * ArrayMetadata.checkSizes(new long[] {1L << 62, 4}, new long[] {1, 4}, DataType.FLOAT32,
     *         Json.where("shape", "t2m/zarr.json"), Json.where("chunk_grid", "t2m/zarr.json"));
     * }
     *
     * @param shape       the array's extents, each 0 or more
     * @param chunkShape  a chunk's extents, each positive, of the same rank
     * @param dataType    the element type
     * @param shapeWhere  the shape's field and document, named in the error, such as
     *                    {@code "shape" in "t2m/zarr.json"}
     * @param chunksWhere the chunk shape's field and document, named in the error
     * @throws InvalidMetadataException naming the field, the values and the size that does not fit
     * @throws NullPointerException     when an argument is null
     */
    public static void checkSizes(long[] shape, long[] chunkShape, DataType dataType, String shapeWhere,
                                  String chunksWhere) {
        Objects.requireNonNull(dataType, "dataType");
        checkSize(shape, dataType, shapeWhere, "the array");
        checkSize(chunkShape, dataType, chunksWhere, "a chunk");
        // Fewer chunks than elements when every chunk extent is at least 1, so this holds once the
        // array's count does; checked anyway, so that the grid's size never overflows unseen.
        BigInteger chunks = BigInteger.ONE;
        for (int i = 0; i < Math.min(shape.length, chunkShape.length); i++) {
            if (chunkShape[i] > 0) {
                chunks = chunks.multiply(BigInteger.valueOf(shape[i]).add(BigInteger.valueOf(chunkShape[i] - 1))
                        .divide(BigInteger.valueOf(chunkShape[i])));
            }
        }
        if (chunks.bitLength() > 63) {
            throw new InvalidMetadataException(shapeWhere + " is " + Shapes.format(shape) + " in chunks of "
                    + Shapes.format(chunkShape) + ": " + chunks + " chunks, more than " + Long.MAX_VALUE
                    + " (the most a long holds)");
        }
    }

    private static void checkSize(long[] extents, DataType dataType, String where, String what) {
        BigInteger n = BigInteger.ONE;
        for (long e : extents) {
            n = n.multiply(BigInteger.valueOf(e));
        }
        if (n.signum() <= 0) {
            return;
        }
        if (n.bitLength() > 63) {
            throw new InvalidMetadataException(where + " is " + Shapes.format(extents) + ": " + n + " elements in "
                    + what + ", more than " + Long.MAX_VALUE + " (the most a long holds)");
        }
        BigInteger bytes = n.multiply(BigInteger.valueOf(dataType.byteSize()));
        if (bytes.bitLength() > 63) {
            throw new InvalidMetadataException(where + " is " + Shapes.format(extents) + ": " + n + " elements of "
                    + dataType.name() + " make " + bytes + " bytes in " + what + ", more than " + Long.MAX_VALUE
                    + " (the most a long holds)");
        }
    }

    private static DataType dataType(Object json, String where) {
        String name;
        if (json instanceof Map<?, ?>) {
            // An extension data type written as an object; we know only those whose name alone says all.
            Map<String, Object> obj = Json.object(json, where);
            name = Json.string(obj.get("name"), Json.child(where, "name"));
            Object cfg = obj.get("configuration");
            if (cfg != null && !(cfg instanceof Map<?, ?> m && m.isEmpty())) {
                throw new InvalidMetadataException(where + " is the data type \"" + name
                        + "\" with a configuration, which this reader does not support");
            }
        } else {
            name = Json.string(json, where);
        }
        try {
            return DataType.parse(name);
        } catch (IllegalArgumentException e) {
            throw new InvalidMetadataException(where + ": " + e.getMessage(), e);
        }
    }

    /**
     * The document as a JSON object of the plain value model, fields in the spec's order.
     *
     * @return a new, modifiable map
     */
    public Map<String, Object> toJsonObject() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("zarr_format", 3L);
        doc.put("node_type", "array");
        List<Object> shapeJson = new ArrayList<>(shape.length);
        for (long s : shape) {
            shapeJson.add(s);
        }
        doc.put("shape", shapeJson);
        doc.put("data_type", dataType.name());
        doc.put("chunk_grid", chunkGrid.toJson());
        doc.put("chunk_key_encoding", chunkKeyEncoding.toJson());
        doc.put("fill_value", fillValue.toJson());
        doc.put("codecs", codecs.stream().map(CodecMetadata::toJson).toList());
        doc.put("attributes", attributes);
        if (dimensionNames != null) {
            doc.put("dimension_names", dimensionNames);
        }
        doc.putAll(extraFields);
        return doc;
    }

    /**
     * The {@code zarr.json} text, which {@link #parse} reads back to equal metadata.
     *
     * @return the document
     */
    public String toJson() {
        return Json.write(toJsonObject());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArrayMetadata m && Arrays.equals(m.shape, shape) && m.dataType.equals(dataType)
                && m.chunkGrid.equals(chunkGrid) && m.chunkKeyEncoding.equals(chunkKeyEncoding)
                && m.fillValue.equals(fillValue) && m.codecs.equals(codecs) && m.attributes.equals(attributes)
                && Objects.equals(m.dimensionNames, dimensionNames) && m.extraFields.equals(extraFields);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(shape), dataType, chunkGrid, chunkKeyEncoding, fillValue, codecs,
                attributes, dimensionNames, extraFields);
    }

    @Override
    public String toString() {
        return "ArrayMetadata[shape=" + Shapes.format(shape) + ", dataType=" + dataType + ", chunkShape="
                + Shapes.format(chunkGrid.chunkShape()) + ", chunkKeyEncoding=" + chunkKeyEncoding + ", fillValue="
                + fillValue + ", codecs=" + codecs + ", attributes=" + attributes + ", dimensionNames="
                + dimensionNames + (extraFields.isEmpty() ? "" : ", extraFields=" + extraFields) + "]";
    }
}
