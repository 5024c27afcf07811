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

    /** The chunk shape, one extent per dimension, each at least 1: the unit a read decodes. */
    public ArrayMetadataBuilder chunks(long... chunkShape) {
        this.chunks = chunkShape.clone();
        return this;
    }

    /**
     * Stores chunks together: each shard of {@code shardShape} (a multiple of the chunk shape in every
     * dimension) is one object in the store, with an index of its chunks at the end.
     */
    public ArrayMetadataBuilder shards(long... shardShape) {
        this.shards = shardShape.clone();
        return this;
    }

    /** Array-to-array codecs applied first, in order (e.g. {@link Codecs#transpose}). Replaces earlier ones. */
    public ArrayMetadataBuilder filters(CodecMetadata... codecs) {
        filters.clear();
        filters.addAll(List.of(codecs));
        return this;
    }

    /** The array-to-bytes codec; {@link Codecs#bytes()} unless set. */
    public ArrayMetadataBuilder serializer(CodecMetadata codec) {
        this.serializer = Objects.requireNonNull(codec, "codec");
        return this;
    }

    /** Bytes-to-bytes codecs applied last, in order (e.g. {@link Codecs#zstd}). Replaces earlier ones; none: stored raw. */
    public ArrayMetadataBuilder compressors(CodecMetadata... codecs) {
        compressors.clear();
        compressors.addAll(List.of(codecs));
        return this;
    }

    /**
     * The value of elements never written, as JSON would give it: a number, {@code Double.NaN},
     * a boolean, or a string the specification allows ({@code "NaN"}, {@code "Infinity"}, hex
     * {@code "0x7fc00000"}). Zero unless set.
     */
    public ArrayMetadataBuilder fillValue(Object value) {
        this.fillValue = value;
        return this;
    }

    /** One name per dimension ({@code null} for an unnamed one); readers such as xarray use them. */
    public ArrayMetadataBuilder dimensionNames(String... names) {
        this.dimensionNames = Arrays.asList(names.clone());
        return this;
    }

    /** Adds one user attribute (any JSON value: String, Number, Boolean, List, Map, null). */
    public ArrayMetadataBuilder attribute(String name, Object value) {
        attributes.put(Objects.requireNonNull(name, "name"), value);
        return this;
    }

    /** Adds every entry of {@code values} to the user attributes. */
    public ArrayMetadataBuilder attributes(Map<String, ?> values) {
        attributes.putAll(values);
        return this;
    }

    /** The separator of chunk keys: {@code '/'} (the default, {@code c/0/1}) or {@code '.'} ({@code c.0.1}). */
    public ArrayMetadataBuilder chunkKeySeparator(char separator) {
        if (separator != '/' && separator != '.') {
            throw new IllegalArgumentException("chunk key separator '" + separator + "' is neither '/' nor '.'");
        }
        this.separator = separator;
        return this;
    }

    /**
     * The metadata.
     *
     * @throws IllegalArgumentException when the chunk shape is missing or of another rank, an extent
     *                                  is below 1, the shard shape is not a multiple of the chunk
     *                                  shape, or the fill value does not fit the data type
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
