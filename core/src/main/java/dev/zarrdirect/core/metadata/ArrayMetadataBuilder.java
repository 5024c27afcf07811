// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.core.grid.RegularChunkGrid;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Builds the metadata of a new Zarr v3 array step by step; get one from
 * {@link ArrayMetadata#builder(long[], DataType)}:
 *
 * {@snippet :
 * ArrayMetadata md = ArrayMetadata.builder(new long[] {96, 8, 721, 1440}, DataType.FLOAT32)
 *         .chunks(1, 8, 721, 1440)          // what one read decodes
 *         .shards(24, 8, 721, 1440)         // optional: 24 chunks stored in one object
 *         .compressors(Codecs.zstd(3))
 *         .fillValue(Double.NaN)
 *         .dimensionNames("time", "channel", "latitude", "longitude")
 *         .attribute("units", "K")
 *         .build();
 * try (ZarrArray a = Zarr.createArray("/data/t2m.zarr", md)) {
 *     a.write(tensor);
 * }
 * }
 *
 * The codec chain is {@code filters} (array to array), the serializer ({@code bytes}, little-endian,
 * unless {@link #serializer} says otherwise), then {@code compressors} (bytes to bytes). With
 * {@link #shards}, that chain is applied to each chunk inside a {@code sharding_indexed} codec whose
 * index is checksummed. A builder is not thread-safe; {@link #build()} may be called more than once.
 *
 * <p>Setters store what they are given; the shapes and the fill value are checked by
 * {@link #build()}, which throws {@link IllegalArgumentException}, and the codecs' configurations
 * when the array is created ({@code Zarr.createArray}). All shapes count elements.
 */
public final class ArrayMetadataBuilder {

    private final long[] shape;
    private final DataType dataType;
    private long[] chunks;
    private long[] shards;
    private final List<CodecMetadata> filters = new ArrayList<>();
    private CodecMetadata serializer = Codecs.bytes();
    private final List<CodecMetadata> compressors = new ArrayList<>();
    private Object fillValue;
    private List<String> dimensionNames;
    private final Map<String, Object> attributes = new LinkedHashMap<>();
    private char separator = '/';

    ArrayMetadataBuilder(long[] shape, DataType dataType) {
        this.shape = Objects.requireNonNull(shape, "shape").clone();
        this.dataType = Objects.requireNonNull(dataType, "dataType");
    }

    /**
     * Sets the chunk shape: the unit a read decodes (without {@link #shards}, also the unit stored
     * as one object). Required.
     *
     * @param chunkShape one extent per dimension, in elements, each at least 1; copied
     * @return this builder
     * @throws NullPointerException when {@code chunkShape} is null
     */
    public ArrayMetadataBuilder chunks(long... chunkShape) {
        this.chunks = chunkShape.clone();
        return this;
    }

    /**
     * Stores chunks together: each shard of {@code shardShape} (a multiple of the chunk shape in every
     * dimension) is one object in the store, with an index of its chunks at the end. The array's
     * chunk grid then has the shard shape, and its chain is one {@code sharding_indexed} codec
     * ({@link Codecs#sharding}) holding the chain of this builder.
     *
     * @param shardShape one extent per dimension, in elements; copied
     * @return this builder
     * @throws NullPointerException when {@code shardShape} is null
     */
    public ArrayMetadataBuilder shards(long... shardShape) {
        this.shards = shardShape.clone();
        return this;
    }

    /**
     * Sets the array-to-array codecs applied first when writing, in order (e.g.
     * {@link Codecs#transpose}). Replaces earlier ones.
     *
     * @param codecs the codecs; none for no filters
     * @return this builder
     * @throws NullPointerException when {@code codecs} or one of them is null
     */
    public ArrayMetadataBuilder filters(CodecMetadata... codecs) {
        filters.clear();
        filters.addAll(List.of(codecs));
        return this;
    }

    /**
     * Sets the array-to-bytes codec; {@link Codecs#bytes()} unless set.
     *
     * @param codec the codec, such as {@code Codecs.bytes(ByteOrder.BIG_ENDIAN)}
     * @return this builder
     * @throws NullPointerException when {@code codec} is null
     */
    public ArrayMetadataBuilder serializer(CodecMetadata codec) {
        this.serializer = Objects.requireNonNull(codec, "codec");
        return this;
    }

    /**
     * Sets the bytes-to-bytes codecs applied last when writing, in order (e.g. {@link Codecs#zstd},
     * then {@link Codecs#crc32c}). Replaces earlier ones.
     *
     * @param codecs the codecs; none to store chunks uncompressed
     * @return this builder
     * @throws NullPointerException when {@code codecs} or one of them is null
     */
    public ArrayMetadataBuilder compressors(CodecMetadata... codecs) {
        compressors.clear();
        compressors.addAll(List.of(codecs));
        return this;
    }

    /**
     * The value of elements never written, as JSON would give it: a number, {@code Double.NaN},
     * a boolean, or a string the specification allows ({@code "NaN"}, {@code "Infinity"}, hex
     * {@code "0x7fc00000"}). Zero unless set. Checked against the data type by {@link #build()}.
     *
     * @param value a {@code Long}, {@code Integer} or {@code BigInteger} for integer types; one of
     *              those, a {@code Double} (NaN and infinities included) or a string as above for
     *              float types; a {@code Boolean} for bool; a {@code List} of two such numbers for
     *              complex types, of byte values ({@code Long} 0..255) for raw types; null for zero
     * @return this builder
     */
    public ArrayMetadataBuilder fillValue(Object value) {
        this.fillValue = value;
        return this;
    }

    /**
     * Sets the dimension names; readers such as xarray use them. Unset: the metadata has none.
     *
     * @param names one name per dimension ({@code null} for an unnamed one); copied; another count
     *              than the array's rank fails {@link #build()}
     * @return this builder
     * @throws NullPointerException when the array {@code names} is null
     */
    public ArrayMetadataBuilder dimensionNames(String... names) {
        this.dimensionNames = Arrays.asList(names.clone());
        return this;
    }

    /**
     * Adds one user attribute, replacing one of the same name.
     *
     * @param name  the attribute's name
     * @param value any JSON value: String, Number, Boolean, List, Map (with string keys) or null;
     *              deep-copied by {@link #build()}
     * @return this builder
     * @throws NullPointerException when {@code name} is null
     */
    public ArrayMetadataBuilder attribute(String name, Object value) {
        attributes.put(Objects.requireNonNull(name, "name"), value);
        return this;
    }

    /**
     * Adds every entry of {@code values} to the user attributes, replacing those of the same names.
     *
     * @param values attributes as for {@link #attribute}
     * @return this builder
     * @throws NullPointerException when {@code values} or one of its keys is null
     */
    public ArrayMetadataBuilder attributes(Map<String, ?> values) {
        attributes.putAll(values);
        return this;
    }

    /**
     * Sets the separator of the {@code default} chunk key encoding.
     *
     * @param separator {@code '/'} (the default, {@code c/0/1}) or {@code '.'} ({@code c.0.1})
     * @return this builder
     * @throws IllegalArgumentException for any other character
     */
    public ArrayMetadataBuilder chunkKeySeparator(char separator) {
        if (separator != '/' && separator != '.') {
            throw new IllegalArgumentException("chunk key separator '" + separator + "' is neither '/' nor '.'");
        }
        this.separator = separator;
        return this;
    }

    /**
     * The metadata. The builder is left as it is and can build again.
     *
     * @return new, immutable metadata
     * @throws IllegalArgumentException when the chunk shape is missing or of another rank, an extent
     *                                  of the shape is negative or of the chunk or shard shape below 1,
     *                                  the shard shape is not a multiple of the chunk shape, the fill
     *                                  value does not fit the data type, the dimension names are not
     *                                  one per dimension, or an attribute map has a non-string key
     */
    public ArrayMetadata build() {
        if (chunks == null) {
            throw new IllegalArgumentException("no chunk shape: call chunks(...) with one extent per dimension of "
                    + Arrays.toString(shape));
        }
        check("chunk shape", chunks);
        List<CodecMetadata> chain = new ArrayList<>(filters);
        chain.add(serializer);
        chain.addAll(compressors);
        long[] gridChunk = chunks;
        if (shards != null) {
            check("shard shape", shards);
            for (int i = 0; i < shards.length; i++) {
                if (shards[i] % chunks[i] != 0) {
                    throw new IllegalArgumentException("shard shape " + Arrays.toString(shards)
                            + " is not a multiple of the chunk shape " + Arrays.toString(chunks) + " in dimension " + i);
                }
            }
            chain = List.of(Codecs.sharding(chunks, chain));
            gridChunk = shards;
        }
        FillValue fill;
        try {
            fill = fillValue == null ? FillValue.zero(dataType) : FillValue.parse(asJson(fillValue), dataType, "fill value");
        } catch (dev.zarrdirect.api.InvalidMetadataException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return new ArrayMetadata(shape, dataType, new RegularChunkGrid(gridChunk), new DefaultChunkKeyEncoding(separator),
                fill, chain, attributes, dimensionNames, Map.of());
    }

    /** JSON has no NaN or infinity: the specification spells them as strings. */
    private static Object asJson(Object v) {
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d)) {
                return "NaN";
            }
            if (Double.isInfinite(d)) {
                return d > 0 ? "Infinity" : "-Infinity";
            }
            // the metadata value model has Long and Double only; a whole number also fits integer types
            return d == Math.rint(d) && Math.abs(d) < 0x1p63 ? (Object) (long) d : (Object) d;
        }
        if (v instanceof Byte || v instanceof Short || v instanceof Integer) {
            return ((Number) v).longValue();
        }
        return v;
    }

    private void check(String what, long[] s) {
        if (s.length != shape.length) {
            throw new IllegalArgumentException(what + " " + Arrays.toString(s) + " has rank " + s.length
                    + " but the array " + Arrays.toString(shape) + " has rank " + shape.length);
        }
        for (long e : s) {
            if (e < 1) {
                throw new IllegalArgumentException(what + " " + Arrays.toString(s) + " has an extent below 1");
            }
        }
    }
}
