// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.store.Stores;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.io.Serial;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the {@code zarr} source sees in a store, resolved from metadata alone on the driver: the
 * variables (arrays of one shape and one list of dimension names), their dimensions, and for each
 * dimension the 1-D coordinate array named after it, if the group has one.
 *
 * <p>Rows are the elements of the variables' common shape: one column per dimension (the coordinate
 * value, else the index; a CF time coordinate as timestamps) and one per variable. Serializable, and
 * small: names, shapes and types.
 *
 * @param location    the store as given to {@code load}
 * @param group       the group's path in the store; empty for the root
 * @param variables   the variables' paths relative to the group, in column order
 * @param dims        the dimension names, one per axis
 * @param shape       the variables' shape
 * @param unit        the partition unit: the first variable's chunk (its shard when sharded)
 * @param coordinates per dimension the coordinate array's path relative to the group, or null
 * @param types       the zarr-direct data type of each variable, then of each coordinate (null: index)
 * @param times       per dimension its CF time units when its coordinate has them (its column is then a
 *                    timestamp), else null
 */
record ZarrLayout(String location, String group, List<String> variables, List<String> dims, long[] shape,
                  long[] unit, List<String> coordinates, List<String> types, List<CfTime> times)
        implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    /** The option naming the variables, comma-separated. */
    static final String VARIABLES = "variables";
    /** The option naming a group below the store's root. */
    static final String GROUP = "group";

    /**
     * Resolves the layout of {@code location}: the variables named by the {@code variables} option,
     * else every array of the group that is not a coordinate.
     *
     * @throws IllegalArgumentException naming the store and the arrays, when a variable is missing,
     *                                  the variables differ in shape or dimensions, or a type has no
     *                                  Spark column type
     */
    static ZarrLayout resolve(String location, Map<String, String> options) {
        String group = trimSlashes(options.getOrDefault(GROUP, ""));
        try (Store store = Stores.open(location)) {
            Object node = Zarr.open(store, group);
            if (node instanceof ZarrArray array) {
                try (array) {
                    String name = group.contains("/") ? group.substring(group.lastIndexOf('/') + 1) : group;
                    String parent = group.contains("/") ? group.substring(0, group.lastIndexOf('/')) : "";
                    return of(location, parent, List.of(name.isEmpty() ? "data" : name), List.of(array), List.of());
                }
            }
            try (ZarrGroup g = (ZarrGroup) node) {
                return fromGroup(location, group, g, options.get(VARIABLES));
            }
        }
    }

    private static ZarrLayout fromGroup(String location, String group, ZarrGroup g, String variablesOption) {
        List<String> names = new ArrayList<>();
        List<ZarrArray> arrays = new ArrayList<>();
        if (variablesOption != null && !variablesOption.isBlank()) {
            for (String v : variablesOption.split(",")) {
                String name = trimSlashes(v.trim());
                Object child;
                try {
                    child = g.open(name);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException("option variables: no array \"" + name + "\" in group \"" + group
                            + "\" of " + location + "; it has " + members(g), e);
                }
                if (!(child instanceof ZarrArray a)) {
                    throw new IllegalArgumentException("option variables: \"" + name + "\" in " + location
                            + " is a group, not an array; name the arrays below it, such as " + name + "/t2m");
                }
                names.add(name);
                arrays.add(a);
            }
        } else {
            List<String> members = g.members();
            for (String m : members) {
                if (g.open(m) instanceof ZarrArray a && !isCoordinate(m, a)) {
                    names.add(m);
                    arrays.add(a);
                }
            }
            if (names.isEmpty()) {
                throw new IllegalArgumentException("group \"" + group + "\" of " + location
                        + " has no arrays other than coordinates; its members are " + members);
            }
        }
        List<String> dims = dimensionNames(arrays.getFirst());
        List<ZarrArray> coordinates = new ArrayList<>();
        for (int d = 0; d < dims.size(); d++) {
            ZarrArray c = null;
            if (child(g, dims.get(d)) instanceof ZarrArray a && a.rank() == 1
                    && a.shape()[0] == arrays.getFirst().shape()[d]) {
                c = a;
            }
            coordinates.add(c);
        }
        return of(location, group, names, arrays, coordinates);
    }

    /** The child {@code name}, or null when there is none: asks for it, so that stores that cannot list (http) work. */
    private static Object child(ZarrGroup g, String name) {
        try {
            return g.open(name);
        } catch (dev.zarrdirect.api.NoSuchNodeException e) {
            return null;
        }
    }

    /** The members for a message; what went wrong listing them when the store cannot list. */
    private static String members(ZarrGroup g) {
        try {
            return g.members().toString();
        } catch (RuntimeException e) {
            return "members that cannot be listed (" + e.getMessage() + ")";
        }
    }

    private static ZarrLayout of(String location, String group, List<String> names, List<ZarrArray> arrays,
                                 List<ZarrArray> coordinates) {
        ZarrArray first = arrays.getFirst();
        List<String> dims = dimensionNames(first);
        List<String> types = new ArrayList<>();
        for (int i = 0; i < arrays.size(); i++) {
            ZarrArray a = arrays.get(i);
            if (!Arrays.equals(a.shape(), first.shape()) || !dimensionNames(a).equals(dims)) {
                throw new IllegalArgumentException("variables of one table share a shape and dimensions: \""
                        + names.get(i) + "\" is " + Arrays.toString(a.shape()) + " over " + dimensionNames(a)
                        + ", but \"" + names.getFirst() + "\" is " + Arrays.toString(first.shape()) + " over " + dims
                        + " in " + location + "; read them with separate option(\"variables\", ...)");
            }
            columnType(a.dataType(), names.get(i));
            types.add(a.dataType().name());
        }
        List<String> coordPaths = new ArrayList<>();
        List<CfTime> times = new ArrayList<>();
        for (int d = 0; d < dims.size(); d++) {
            ZarrArray c = d < coordinates.size() ? coordinates.get(d) : null;
            boolean numeric = c != null && (c.dataType().kind() == DataType.Kind.FLOAT || c.dataType().kind() == DataType.Kind.INT
                    || c.dataType().kind() == DataType.Kind.UINT);
            coordPaths.add(numeric ? dims.get(d) : null);
            types.add(numeric ? c.dataType().name() : null);
            times.add(numeric ? CfTime.of(c.attributes()) : null);
        }
        Set<String> seen = new LinkedHashSet<>(dims);
        for (String n : names) {
            if (!seen.add(n)) {
                throw new IllegalArgumentException("variable \"" + n + "\" of " + location
                        + " has the name of a dimension or another variable; every column needs its own name");
            }
        }
        return new ZarrLayout(location, group, List.copyOf(names), List.copyOf(dims), first.shape(),
                first.chunkShape(), java.util.Collections.unmodifiableList(coordPaths),
                java.util.Collections.unmodifiableList(types), java.util.Collections.unmodifiableList(times));
    }

    /** A 1-D array named after its own (only) dimension, as xarray writes {@code time} or {@code latitude}. */
    private static boolean isCoordinate(String name, ZarrArray a) {
        return a.rank() == 1 && name.equals(dimensionNames(a).getFirst());
    }

    /** The dimension names: Zarr v3 {@code dimension_names}, v2 {@code _ARRAY_DIMENSIONS}, else dim_0, dim_1 ... */
    static List<String> dimensionNames(ZarrArray a) {
        List<String> names = a.metadata().dimensionNames();
        if ((names == null || names.contains(null)) && a.attributes().get("_ARRAY_DIMENSIONS") instanceof List<?> l
                && l.size() == a.rank()) {
            names = l.stream().map(o -> o == null ? null : o.toString()).toList();
        }
        List<String> out = new ArrayList<>();
        for (int d = 0; d < a.rank(); d++) {
            String n = names == null ? null : names.get(d);
            out.add(n == null ? "dim_" + d : n);
        }
        return out;
    }

    /** The Spark type of a variable's column: the same width, so values are copied as they are. */
    static org.apache.spark.sql.types.DataType columnType(DataType t, String variable) {
        if (t.equals(DataType.FLOAT32)) {
            return DataTypes.FloatType;
        } else if (t.equals(DataType.FLOAT64)) {
            return DataTypes.DoubleType;
        } else if (t.equals(DataType.INT8)) {
            return DataTypes.ByteType;
        } else if (t.equals(DataType.INT16)) {
            return DataTypes.ShortType;
        } else if (t.equals(DataType.INT32)) {
            return DataTypes.IntegerType;
        } else if (t.equals(DataType.INT64)) {
            return DataTypes.LongType;
        } else if (t.equals(DataType.BOOL)) {
            return DataTypes.BooleanType;
        }
        throw new IllegalArgumentException("variable \"" + variable + "\" is " + t.name() + ", which has no Spark"
                + " column of the same width; the zarr source reads bool, int8/16/32/64, float32 and float64");
    }

    /**
     * The type of dimension {@code d}'s column: timestamp for a CF time coordinate, double for other
     * float coordinates, long for integer ones and for indices.
     */
    org.apache.spark.sql.types.DataType dimensionType(int d) {
        if (times.get(d) != null) {
            return DataTypes.TimestampType;
        }
        String t = types.get(variables.size() + d);
        return t != null && DataType.parse(t).kind() == DataType.Kind.FLOAT ? DataTypes.DoubleType : DataTypes.LongType;
    }

    /** The zarr-direct type of variable {@code i}. */
    DataType variableType(int i) {
        return DataType.parse(types.get(i));
    }

    /** One column per dimension, then one per variable. */
    StructType schema() {
        List<StructField> fields = new ArrayList<>();
        for (int d = 0; d < dims.size(); d++) {
            fields.add(new StructField(dims.get(d), dimensionType(d), false, Metadata.empty()));
        }
        for (int i = 0; i < variables.size(); i++) {
            fields.add(new StructField(variables.get(i), columnType(variableType(i), variables.get(i)), false,
                    Metadata.empty()));
        }
        return new StructType(fields.toArray(new StructField[0]));
    }

    /** The path of {@code name} (relative to the group) in the store. */
    String path(String name) {
        return group.isEmpty() ? name : group + "/" + name;
    }

    private static String trimSlashes(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && s.charAt(a) == '/') {
            a++;
        }
        while (b > a && s.charAt(b - 1) == '/') {
            b--;
        }
        return s.substring(a, b);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ZarrLayout l && l.location.equals(location) && l.group.equals(group)
                && l.variables.equals(variables) && l.dims.equals(dims) && Arrays.equals(l.shape, shape)
                && Arrays.equals(l.unit, unit) && l.coordinates.equals(coordinates) && l.types.equals(types) && l.times.equals(times);
    }

    @Override
    public int hashCode() {
        return location.hashCode() * 31 + variables.hashCode();
    }

    @Override
    public String toString() {
        return "ZarrLayout[" + location + (group.isEmpty() ? "" : " group " + group) + ", variables " + variables
                + " over " + dims + " " + Arrays.toString(shape) + ", unit " + Arrays.toString(unit) + "]";
    }
}
