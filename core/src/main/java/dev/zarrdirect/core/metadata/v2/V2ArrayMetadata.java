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
 * Immutable.
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
     * Reads a {@code .zarray}.
     *
     * @param key        its store key, named with the field and the value seen in every error
     * @param attributes the array's {@code .zattrs} (empty when there is none)
     * @throws InvalidMetadataException for anything the v2 spec does not allow or this reader does not support
     */
    public static V2ArrayMetadata parse(String json, String key, Map<String, Object> attributes) {
        String what = "array metadata \"" + key + "\"";
        return fromJson(Json.object(Json.parse(json, what), what), key, attributes);
    }

    /** {@link #parse} of a document already read as JSON (from consolidated metadata, say). */
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

    /** A builder for a new array's {@code .zarray}: C order, fill value zero, no compressor, no filters, '.' keys. */
    public static Builder builder(long[] shape, long[] chunks, V2DataType dtype) {
        return new Builder(shape, chunks, dtype);
    }

    /** The {@code .zarray} document as read (or built), unmodifiable. */
    public Map<String, Object> document() {
        return document;
    }

    /** The {@code .zarray} text. */
    public String toZarrayJson() {
        return Json.write(document);
    }

    /** The attributes ({@code .zattrs}), unmodifiable. */
    public Map<String, Object> attributes() {
        return attributes;
    }

    /** The same array with other attributes; the {@code .zarray} document is unchanged. */
    public V2ArrayMetadata withAttributes(Map<String, Object> attributes) {
        return new V2ArrayMetadata(document, attributes, ".zarray");
    }

    /** The translation the engine reads and writes through. */
    public ArrayMetadata arrayMetadata() {
        return arrayMetadata;
    }

    public long[] shape() {
        return shape.clone();
    }

    public long[] chunks() {
        return chunks.clone();
    }

    public V2DataType dtype() {
        return dtype;
    }

    public FillValue fillValue() {
        return fillValue;
    }

    /** True when {@code fill_value} is {@code null}: chunks never written are undefined in v2 and read as zeros here. */
    public boolean hasNoFillValue() {
        return document.get("fill_value") == null;
    }

    /** {@code 'C'} or {@code 'F'}. */
    public char order() {
        return order;
    }

    public char dimensionSeparator() {
        return dimensionSeparator;
    }

    /** The {@code compressor} object, or null. */
    public Map<String, Object> compressor() {
        return compressor;
    }

    /** The {@code filters}, empty when null or absent. */
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

    /** Builds a {@code .zarray} document with zarr-python's member order, then validates it as {@link #parse} does. */
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

        /** {@code 'C'} (row-major, the default) or {@code 'F'} (column-major). */
        public Builder order(char order) {
            this.order = order;
            return this;
        }

        public Builder fillValue(FillValue fill) {
            this.fillValue = V2FillValue.toJson(fill);
            return this;
        }

        /** {@code null} for "no fill value" (chunks never written are undefined to other readers). */
        public Builder noFillValue() {
            this.fillValue = null;
            return this;
        }

        /** A numcodecs compressor configuration such as {@code {"id": "zstd", "level": 3}}, or null. */
        public Builder compressor(Map<String, Object> compressor) {
            this.compressor = compressor;
            return this;
        }

        /** numcodecs filter configurations such as {@code [{"id": "shuffle", "elementsize": 4}]}. */
        public Builder filters(List<Map<String, Object>> filters) {
            this.filters = filters == null ? null : List.copyOf(filters);
            return this;
        }

        /** {@code '.'} (the default) or {@code '/'}. */
        public Builder dimensionSeparator(char separator) {
            this.dimensionSeparator = separator;
            return this;
        }

        public Builder attributes(Map<String, Object> attributes) {
            this.attributes = attributes == null ? Map.of() : attributes;
            return this;
        }

        /** @throws InvalidMetadataException as {@link #parse} would for the same document */
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
