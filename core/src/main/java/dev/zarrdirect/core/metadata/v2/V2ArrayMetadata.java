// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata.v2;

import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.grid.RegularChunkGrid;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.metadata.V2ChunkKeyEncoding;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code .zarray} of a Zarr v2 array (with its {@code .zattrs}), and its translation into the v3
 * {@link ArrayMetadata} the engine runs: the same shape, chunk shape and element type, the
 * {@code v2} chunk key encoding with the array's {@code dimension_separator}, the fill value, and
 * the codec chain {@link V2Codecs} builds from {@code order}, {@code filters} and {@code compressor}.
 *
 * <p>The document is kept as read: {@link #toZarrayJson()} writes it back with unknown members
 * intact, so that changing attributes (which live in {@code .zattrs}) leaves {@code .zarray} alone.
 * Unknown members are allowed and kept. Immutable and safe for use by many threads; two values are
 * equal when their documents and attributes are.
 *
 * {@snippet :
 * V2ArrayMetadata md = V2ArrayMetadata.builder(new long[]{100, 200}, new long[]{10, 50}, V2DataType.big(DataType.INT32))
 *         .order('F').compressor(Map.of("id", "zstd", "level", 3L)).dimensionSeparator('/').build();
 * ZarrArray a = Zarr.createArrayV2(ctx, store, "counts", md);
 * }
 */
public final class V2ArrayMetadata {

    /** The members of a {@code .zarray} in the order zarr-python writes them (sorted). */
    static final List<String> FIELDS = List.of("chunks", "compressor", "dimension_separator", "dtype", "fill_value",
            "filters", "order", "shape", "zarr_format");

    private final Map<String, Object> document;
    private final Map<String, Object> attributes;
    private final long[] shape;
    private final long[] chunks;
    private final V2DataType dtype;
    private final FillValue fillValue;
    private final char order;
    private final char dimensionSeparator;
    private final Map<String, Object> compressor;
    private final List<Object> filters;
    private final ArrayMetadata arrayMetadata;

    private V2ArrayMetadata(Map<String, Object> document, Map<String, Object> attributes, String key) {
        this.document = Json.freezeObject(document, "\"" + key + "\"");
        this.attributes = attributes == null ? Map.of() : Json.freezeObject(attributes, "attributes of \"" + key + "\"");
        Map<String, Object> doc = this.document;
        Object format = required(doc, "zarr_format", key);
        if (!(format instanceof Long l && l == 2)) {
            throw new InvalidMetadataException(Json.where("zarr_format", key) + " must be 2 in a .zarray, got "
                    + Json.describe(format));
        }
        this.shape = Json.longArray(required(doc, "shape", key), Json.where("shape", key));
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) {
                throw new InvalidMetadataException(Json.where("shape", key) + " is " + Shapes.format(shape)
                        + ": extents must be 0 or more, dimension " + i + " is " + shape[i]);
            }
        }
        this.chunks = Json.longArray(required(doc, "chunks", key), Json.where("chunks", key));
        if (chunks.length != shape.length) {
            throw new InvalidMetadataException(Json.where("chunks", key) + " is " + Shapes.format(chunks) + " of rank "
                    + chunks.length + ", but \"shape\" " + Shapes.format(shape) + " has rank " + shape.length);
        }
        for (int i = 0; i < chunks.length; i++) {
            if (chunks[i] < 1) {
                throw new InvalidMetadataException(Json.where("chunks", key) + " is " + Shapes.format(chunks)
                        + ": chunk extents must be 1 or more, dimension " + i + " is " + chunks[i]);
            }
        }
        this.dtype = V2DataType.parse(required(doc, "dtype", key), Json.where("dtype", key));
        ArrayMetadata.checkSizes(shape, chunks, dtype.dataType(), Json.where("shape", key), Json.where("chunks", key));
        this.fillValue = V2FillValue.parse(required(doc, "fill_value", key), dtype, Json.where("fill_value", key));
        String o = Json.string(required(doc, "order", key), Json.where("order", key));
        if (!o.equals("C") && !o.equals("F")) {
            throw new InvalidMetadataException(Json.where("order", key) + " is \"" + o + "\"; it must be \"C\" or \"F\"");
        }
        this.order = o.charAt(0);
        Object sep = doc.get("dimension_separator");
        if (sep == null) {
            this.dimensionSeparator = '.';
        } else {
            String s = Json.string(sep, Json.where("dimension_separator", key));
            if (!s.equals(".") && !s.equals("/")) {
                throw new InvalidMetadataException(Json.where("dimension_separator", key) + " is \"" + s
                        + "\"; it must be \".\" or \"/\"");
            }
            this.dimensionSeparator = s.charAt(0);
        }
        Object c = required(doc, "compressor", key);
        this.compressor = c == null ? null : Json.object(c, Json.where("compressor", key));
        Object f = doc.get("filters");
        List<Object> fl = f == null ? null : Json.array(f, Json.where("filters", key));
        this.filters = fl == null || fl.isEmpty() ? null : fl;
        List<CodecMetadata> codecs = V2Codecs.toCodecs(dtype, order, shape.length, compressor, filters, key);
        this.arrayMetadata = new ArrayMetadata(shape, dtype.dataType(), new RegularChunkGrid(chunks),
                new V2ChunkKeyEncoding(dimensionSeparator), fillValue, codecs, this.attributes, null, Map.of());
    }

    /**
     * Reads a {@code .zarray}. Required: {@code zarr_format} (2), {@code shape}, {@code chunks},
     * {@code dtype}, {@code fill_value}, {@code order} and {@code compressor} (which may be null);
     * optional: {@code filters} and {@code dimension_separator} ({@code "."} when absent).
     *
     * @param json       the document's text
     * @param key        its store key, named with the field and the value seen in every error
     * @param attributes the array's {@code .zattrs} (empty, or null, when there is none); deep-copied
     * @return the metadata and its v3 translation
     * @throws InvalidMetadataException for anything the v2 spec does not allow or this reader does not support
     */
    public static V2ArrayMetadata parse(String json, String key, Map<String, Object> attributes) {
        String what = "array metadata \"" + key + "\"";
        return fromJson(Json.object(Json.parse(json, what), what), key, attributes);
    }

    /**
     * {@link #parse} of a document already read as JSON (from consolidated metadata, say).
     *
     * @param document   the {@code .zarray} object, in the metadata value model; deep-copied
     * @param key        the document's key (or where it came from), named in every error
     * @param attributes the array's {@code .zattrs} (empty, or null, when there is none); deep-copied
     * @return the metadata and its v3 translation
     * @throws InvalidMetadataException as {@link #parse}
     */
    public static V2ArrayMetadata fromJson(Map<String, Object> document, String key, Map<String, Object> attributes) {
        return new V2ArrayMetadata(document, attributes, key);
    }

    private static Object required(Map<String, Object> doc, String field, String key) {
        if (!doc.containsKey(field)) {
            throw new InvalidMetadataException("array metadata \"" + key + "\" has no \"" + field
                    + "\", which Zarr v2 requires (members seen: " + doc.keySet() + ")");
        }
        return doc.get(field);
    }

    /**
     * A builder for a new array's {@code .zarray}: C order, fill value zero, no compressor, no filters,
     * '.' keys, no attributes. Nothing is checked until {@link Builder#build()}.
     *
     * @param shape  the array's extent in each dimension, in elements; copied
     * @param chunks the chunk's extent in each dimension, in elements; copied
     * @param dtype  the element type and byte order
     * @return a new builder
     * @throws NullPointerException if an argument is null
     */
    public static Builder builder(long[] shape, long[] chunks, V2DataType dtype) {
        return new Builder(shape, chunks, dtype);
    }

    /**
     * The {@code .zarray} document as read (or built), unmodifiable.
     *
     * @return the document in the metadata value model, unknown members included
     */
    public Map<String, Object> document() {
        return document;
    }

    /**
     * The {@code .zarray} text.
     *
     * @return {@link #document()} as JSON, members in their order, two-space indented, a newline at
     *         the end
     */
    public String toZarrayJson() {
        return Json.write(document);
    }

    /**
     * The attributes ({@code .zattrs}), unmodifiable.
     *
     * @return the attributes in the metadata value model; empty when there are none
     */
    public Map<String, Object> attributes() {
        return attributes;
    }

    /**
     * The same array with other attributes; the {@code .zarray} document is unchanged.
     *
     * @param attributes the new attributes, or null for none; deep-copied
     * @return a new value
     * @throws IllegalArgumentException if a map in {@code attributes} has a key that is not a string
     */
    public V2ArrayMetadata withAttributes(Map<String, Object> attributes) {
        return new V2ArrayMetadata(document, attributes, ".zarray");
    }

    /**
     * The translation the engine reads and writes through: same shape, chunk grid, data type and fill
     * value, the {@code v2} chunk key encoding and the codecs {@link V2Codecs} builds, the attributes,
     * no dimension names.
     *
     * @return the v3 metadata, made once
     */
    public ArrayMetadata arrayMetadata() {
        return arrayMetadata;
    }

    /**
     * The {@code shape}.
     *
     * @return a fresh copy: the array's extent in each dimension, in elements
     */
    public long[] shape() {
        return shape.clone();
    }

    /**
     * The {@code chunks}.
     *
     * @return a fresh copy: the chunk's extent in each dimension, in elements
     */
    public long[] chunks() {
        return chunks.clone();
    }

    /**
     * The {@code dtype}.
     *
     * @return the element type and the byte order of stored chunks
     */
    public V2DataType dtype() {
        return dtype;
    }

    /**
     * The {@code fill_value}.
     *
     * @return the fill value; zero of the type when {@code fill_value} is {@code null}
     *         (see {@link #hasNoFillValue()})
     */
    public FillValue fillValue() {
        return fillValue;
    }

    /**
     * Whether {@code fill_value} is {@code null}: chunks never written are undefined in v2 and read as
     * zeros here.
     *
     * @return true when the document's {@code fill_value} is {@code null}
     */
    public boolean hasNoFillValue() {
        return document.get("fill_value") == null;
    }

    /**
     * The {@code order} of elements in a chunk.
     *
     * @return {@code 'C'} (row-major) or {@code 'F'} (column-major)
     */
    public char order() {
        return order;
    }

    /**
     * The {@code dimension_separator} of chunk keys.
     *
     * @return {@code '.'} ({@code t2m/0.3}; also when the document has none) or {@code '/'}
     *         ({@code t2m/0/3})
     */
    public char dimensionSeparator() {
        return dimensionSeparator;
    }

    /**
     * The {@code compressor} object, such as {@code {"id": "zstd", "level": 3}}.
     *
     * @return the object, unmodifiable, or null when chunks are not compressed
     */
    public Map<String, Object> compressor() {
        return compressor;
    }

    /**
     * The {@code filters}, empty when null or absent.
     *
     * @return an unmodifiable list of the filter objects, in document order
     */
    public List<Object> filters() {
        return filters == null ? List.of() : filters;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof V2ArrayMetadata m && m.document.equals(document) && m.attributes.equals(attributes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(document, attributes);
    }

    @Override
    public String toString() {
        return "V2ArrayMetadata[shape=" + Shapes.format(shape) + ", chunks=" + Shapes.format(chunks) + ", dtype="
                + dtype + ", order=" + order + ", fill_value=" + document.get("fill_value") + ", compressor="
                + compressor + ", filters=" + filters + ", dimension_separator=" + dimensionSeparator + "]";
    }

    /**
     * Builds a {@code .zarray} document with zarr-python's member order, then validates it as
     * {@link #parse} does. Setters store what they are given and check nothing; {@link #build()}
     * checks everything. Not thread-safe; a builder can build more than once.
     */
    public static final class Builder {
        private final long[] shape;
        private final long[] chunks;
        private final V2DataType dtype;
        private char order = 'C';
        private Object fillValue;
        private Map<String, Object> compressor;
        private List<Map<String, Object>> filters;
        private char dimensionSeparator = '.';
        private Map<String, Object> attributes = Map.of();

        private Builder(long[] shape, long[] chunks, V2DataType dtype) {
            this.shape = shape.clone();
            this.chunks = chunks.clone();
            this.dtype = Objects.requireNonNull(dtype, "dtype");
            this.fillValue = V2FillValue.toJson(FillValue.zero(dtype.dataType()));
        }

        /**
         * Sets the order of elements in a chunk.
         *
         * @param order {@code 'C'} (row-major, the default) or {@code 'F'} (column-major); another
         *              value fails {@link #build()}
         * @return this builder
         */
        public Builder order(char order) {
            this.order = order;
            return this;
        }

        /**
         * Sets the fill value, written in its v2 form ({@link V2FillValue#toJson}).
         *
         * @param fill the fill value, which should be of the builder's type: {@link #build()} reads
         *             its JSON form back as the {@code dtype} and fails if that type does not take it
         * @return this builder
         * @throws NullPointerException if {@code fill} is null (use {@link #noFillValue()})
         */
        public Builder fillValue(FillValue fill) {
            this.fillValue = V2FillValue.toJson(fill);
            return this;
        }

        /**
         * Writes {@code "fill_value": null}, "no fill value": chunks never written are undefined to
         * other readers, and read as zeros here.
         *
         * @return this builder
         */
        public Builder noFillValue() {
            this.fillValue = null;
            return this;
        }

        /**
         * Sets the compressor.
         *
         * @param compressor a numcodecs compressor configuration such as
         *                   {@code {"id": "zstd", "level": 3}} (ids {@link V2Codecs#COMPRESSOR_IDS}),
         *                   or null for none; kept until {@link #build()} copies it
         * @return this builder
         */
        public Builder compressor(Map<String, Object> compressor) {
            this.compressor = compressor;
            return this;
        }

        /**
         * Sets the filters, applied in list order when writing.
         *
         * @param filters numcodecs filter configurations such as
         *                {@code [{"id": "shuffle", "elementsize": 4}]} (ids {@link V2Codecs#FILTER_IDS});
         *                null or empty for none (written as {@code null})
         * @return this builder
         * @throws NullPointerException if an element is null
         */
        public Builder filters(List<Map<String, Object>> filters) {
            this.filters = filters == null ? null : List.copyOf(filters);
            return this;
        }

        /**
         * Sets the separator of chunk key parts.
         *
         * @param separator {@code '.'} (the default: {@code t2m/0.3}) or {@code '/'} ({@code t2m/0/3});
         *                  another value fails {@link #build()}
         * @return this builder
         */
        public Builder dimensionSeparator(char separator) {
            this.dimensionSeparator = separator;
            return this;
        }

        /**
         * Sets the attributes, written to {@code .zattrs}.
         *
         * @param attributes the attributes in the metadata value model, or null for none; kept until
         *                   {@link #build()} copies them
         * @return this builder
         */
        public Builder attributes(Map<String, Object> attributes) {
            this.attributes = attributes == null ? Map.of() : attributes;
            return this;
        }

        /**
         * Builds and validates the document; error messages name the key
         * {@code .zarray (being built)}.
         *
         * @return the metadata
         * @throws InvalidMetadataException as {@link #parse} would for the same document
         * @throws IllegalArgumentException if a map given has a key that is not a string
         */
        public V2ArrayMetadata build() {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("chunks", boxed(chunks));
            doc.put("compressor", compressor);
            doc.put("dimension_separator", String.valueOf(dimensionSeparator));
            doc.put("dtype", dtype.typestr());
            doc.put("fill_value", fillValue);
            doc.put("filters", filters == null || filters.isEmpty() ? null : filters);
            doc.put("order", String.valueOf(order));
            doc.put("shape", boxed(shape));
            doc.put("zarr_format", 2L);
            return new V2ArrayMetadata(doc, attributes, ".zarray (being built)");
        }

        private static List<Object> boxed(long[] a) {
            List<Object> out = new ArrayList<>(a.length);
            for (long x : a) {
                out.add(x);
            }
            return out;
        }
    }
}
