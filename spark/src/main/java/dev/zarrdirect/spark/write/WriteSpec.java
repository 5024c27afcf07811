// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.write;

import dev.zarrdirect.core.convert.CodecText;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.io.Serial;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a {@code df.write.format("zarr")} writes, checked on the driver before any task runs: a new
 * group at a directory with one array per value column, over the dimensions named by the index
 * columns. Plain values, sent to every task.
 *
 * <p>Options: {@code dimensions} (the index columns, outermost first, integers), {@code shape} and
 * {@code chunks} (one extent per dimension), {@code codec} (bytes-to-bytes codecs as
 * {@code zarr-direct convert --codec} takes them, several separated by {@code ;}, such as
 * {@code zstd:level=3;crc32c}, or {@code none}; default {@code zstd:level=3}).
 *
 * @param location   the group's directory
 * @param jobId      names the job's staging directory
 * @param dims       the dimension names (the index columns)
 * @param dimColumns the index columns' positions in the rows
 * @param dimInts    per index column, whether it is an int column (else long)
 * @param shape      the arrays' shape
 * @param chunks     the arrays' chunk shape
 * @param variables  the arrays' names (the value columns)
 * @param varColumns the value columns' positions in the rows
 * @param types      the arrays' data types
 * @param codec      the compressor, as given
 */
record WriteSpec(String location, String jobId, List<String> dims, int[] dimColumns, boolean[] dimInts, long[] shape,
                        long[] chunks, List<String> variables, int[] varColumns, List<String> types, String codec)
        implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    /** Where the job's tasks write, below the group's directory; gone after the job commits or aborts. */
    static final String STAGING = ".zarr-direct-staging";

    /**
     * The spec of writing rows of {@code schema} to {@code location} with {@code options}.
     *
     * @throws IllegalArgumentException naming the option and the value, when an option is missing or
     *                                  does not fit the schema
     */
    static WriteSpec of(String location, String jobId, StructType schema, Map<String, String> options) {
        String dimsOption = required(options, "dimensions", "the index columns, outermost first: time,latitude,longitude");
        List<String> dims = new ArrayList<>();
        List<Integer> dimColumns = new ArrayList<>();
        List<Boolean> dimInts = new ArrayList<>();
        for (String d : dimsOption.split(",")) {
            String name = d.trim();
            int c = index(schema, name, "dimensions");
            org.apache.spark.sql.types.DataType t = schema.fields()[c].dataType();
            if (t != DataTypes.LongType && t != DataTypes.IntegerType) {
                throw new IllegalArgumentException("option dimensions: column \"" + name + "\" is " + t.simpleString()
                        + "; dimension columns hold indices (integers from 0): turn coordinates into indices first");
            }
            dims.add(name);
            dimColumns.add(c);
            dimInts.add(t == DataTypes.IntegerType);
        }
        long[] shape = extents(required(options, "shape", "one extent per dimension: 8760,721,1440"), "shape", dims);
        long[] chunks = extents(required(options, "chunks", "one extent per dimension: 24,721,1440"), "chunks", dims);
        List<String> variables = new ArrayList<>();
        List<Integer> varColumns = new ArrayList<>();
        List<String> types = new ArrayList<>();
        for (int c = 0; c < schema.fields().length; c++) {
            StructField f = schema.fields()[c];
            if (!dims.contains(f.name())) {
                variables.add(f.name());
                varColumns.add(c);
                types.add(dataType(f).name());
            }
        }
        if (variables.isEmpty()) {
            throw new IllegalArgumentException("the rows have dimension columns " + dims + " only; add a column of"
                    + " values to write");
        }
        String codec = options.getOrDefault("codec", "zstd:level=3");
        boolean[] isInt = new boolean[dimInts.size()];
        for (int d = 0; d < isInt.length; d++) {
            isInt[d] = dimInts.get(d);
        }
        WriteSpec spec = new WriteSpec(location, jobId, List.copyOf(dims), ints(dimColumns), isInt, shape, chunks,
                List.copyOf(variables), ints(varColumns), List.copyOf(types), codec);
        for (int i = 0; i < variables.size(); i++) {
            spec.metadata(i);
        }
        return spec;
    }

    private static String required(Map<String, String> options, String name, String form) {
        String v = options.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("writing zarr needs option(\"" + name + "\", ...): " + form);
        }
        return v;
    }

    private static int index(StructType schema, String name, String option) {
        for (int c = 0; c < schema.fields().length; c++) {
            if (schema.fields()[c].name().equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("option " + option + ": no column \"" + name + "\"; the rows have "
                + Arrays.toString(schema.fieldNames()));
    }

    private static long[] extents(String text, String option, List<String> dims) {
        String[] parts = text.split(",");
        if (parts.length != dims.size()) {
            throw new IllegalArgumentException("option " + option + " = \"" + text + "\" has " + parts.length
                    + " extent(s) for " + dims.size() + " dimension(s) " + dims);
        }
        long[] out = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Long.parseLong(parts[i].trim());
            } catch (NumberFormatException e) {
                out[i] = -1;
            }
            if (out[i] < 1) {
                throw new IllegalArgumentException("option " + option + " = \"" + text + "\": \"" + parts[i].trim()
                        + "\" is not a positive integer");
            }
        }
        return out;
    }

    private static DataType dataType(StructField f) {
        org.apache.spark.sql.types.DataType t = f.dataType();
        if (t == DataTypes.FloatType) {
            return DataType.FLOAT32;
        } else if (t == DataTypes.DoubleType) {
            return DataType.FLOAT64;
        } else if (t == DataTypes.IntegerType) {
            return DataType.INT32;
        } else if (t == DataTypes.LongType) {
            return DataType.INT64;
        } else if (t == DataTypes.ShortType) {
            return DataType.INT16;
        } else if (t == DataTypes.ByteType) {
            return DataType.INT8;
        }
        throw new IllegalArgumentException("column \"" + f.name() + "\" is " + t.simpleString() + "; zarr arrays are"
                + " written from float, double, byte, short, int and long columns");
    }

    private static int[] ints(List<Integer> l) {
        return l.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The data type of variable {@code i}. */
    DataType type(int i) {
        return DataType.parse(types.get(i));
    }

    /** The metadata of variable {@code i}'s array: NaN fill for floats, 0 for integers. */
    ArrayMetadata metadata(int i) {
        DataType t = type(i);
        Object fill = t.kind() == DataType.Kind.FLOAT ? (Object) Double.NaN : (Object) 0L;
        var b = ArrayMetadata.builder(shape, t).chunks(chunks).fillValue(fill)
                .dimensionNames(dims.toArray(new String[0]));
        List<CodecMetadata> c = compressors();
        if (!c.isEmpty()) {
            b.compressors(c.toArray(new CodecMetadata[0]));
        }
        return b.build();
    }

    private List<CodecMetadata> compressors() {
        try {
            return CodecText.parseChain(codec, "codec");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("option codec: " + e.getMessage(), e);
        }
    }

    /** The elements of the chunk at {@code chunk} (grid indices), trimmed at the array's edge. */
    long[] chunkExtent(long[] chunk) {
        long[] out = new long[shape.length];
        for (int d = 0; d < shape.length; d++) {
            out[d] = Math.min(chunks[d], shape[d] - chunk[d] * chunks[d]);
        }
        return out;
    }

    Path root() {
        return Path.of(location);
    }

    Path staging() {
        return root().resolve(STAGING).resolve(jobId);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WriteSpec w && w.location.equals(location) && w.jobId.equals(jobId);
    }

    @Override
    public int hashCode() {
        return jobId.hashCode();
    }

    @Override
    public String toString() {
        return "WriteSpec[" + location + " " + variables + " over " + dims + " " + Arrays.toString(shape) + " chunks "
                + Arrays.toString(chunks) + "]";
    }
}
