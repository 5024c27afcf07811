// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.store.Stores;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Or;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoublePredicate;

/**
 * Turns filters on dimension columns into index ranges {@code [lo, hi)} per dimension, on the driver.
 * A dimension with a coordinate array is matched value by value against it (one small read), so the
 * range is the indices from the first coordinate that passes to the last: exact for the monotonic
 * coordinates of ERA5 (time, latitude, longitude), a superset otherwise. Spark evaluates every
 * filter again on the rows read, so a superset is never wrong, only less saving.
 */
final class DimensionRanges {

    private final ZarrLayout layout;
    private final long[] lo;
    private final long[] hi;
    private final List<Filter> pushed = new ArrayList<>();
    private double[][] coordinates;

    DimensionRanges(ZarrLayout layout) {
        this.layout = layout;
        this.lo = new long[layout.dims().size()];
        this.hi = layout.shape().clone();
    }

    /** Narrows the ranges by {@code filter} when it constrains dimension columns only; returns whether it did. */
    boolean push(Filter filter) {
        Narrowing n = narrowing(filter);
        if (n == null) {
            return false;
        }
        long[] range = range(n.dim, n.test);
        lo[n.dim] = Math.max(lo[n.dim], range[0]);
        hi[n.dim] = Math.max(lo[n.dim], Math.min(hi[n.dim], range[1]));
        pushed.add(filter);
        return true;
    }

    /** The filters that narrowed a range. */
    Filter[] pushed() {
        return pushed.toArray(new Filter[0]);
    }

    long[] lo() {
        return lo.clone();
    }

    long[] hi() {
        return hi.clone();
    }

    /** A predicate on one dimension's values, or null for a filter that is not one. */
    private record Narrowing(int dim, DoublePredicate test) {
    }

    private Narrowing narrowing(Filter f) {
        return switch (f) {
            case GreaterThan g -> on(g.attribute(), g.value(), v -> x -> x > v);
            case GreaterThanOrEqual g -> on(g.attribute(), g.value(), v -> x -> x >= v);
            case LessThan l -> on(l.attribute(), l.value(), v -> x -> x < v);
            case LessThanOrEqual l -> on(l.attribute(), l.value(), v -> x -> x <= v);
            case EqualTo e -> on(e.attribute(), e.value(), v -> x -> x == v);
            case In in -> {
                Narrowing any = null;
                for (Object value : in.values()) {
                    Narrowing one = on(in.attribute(), value, v -> x -> x == v);
                    if (one == null) {
                        yield null;
                    }
                    any = any == null ? one : new Narrowing(one.dim, any.test.or(one.test));
                }
                yield any;
            }
            case And a -> both(narrowing(a.left()), narrowing(a.right()), true);
            case Or o -> both(narrowing(o.left()), narrowing(o.right()), false);
            default -> null;
        };
    }

    private static Narrowing both(Narrowing a, Narrowing b, boolean and) {
        if (a == null || b == null || a.dim != b.dim) {
            return null;
        }
        return new Narrowing(a.dim, and ? a.test.and(b.test) : a.test.or(b.test));
    }

    private Narrowing on(String column, Object value, java.util.function.DoubleFunction<DoublePredicate> test) {
        int d = layout.dims().indexOf(column);
        if (d < 0) {
            return null;
        }
        // a timestamp column compares microseconds since 1970 (exact in a double until the year 2255)
        double v;
        switch (value) {
            case Number n when layout.times().get(d) == null -> v = n.doubleValue();
            case java.sql.Timestamp ts when layout.times().get(d) != null ->
                    v = Math.floorDiv(ts.getTime(), 1000L) * 1_000_000L + ts.getNanos() / 1_000;
            case java.time.Instant i when layout.times().get(d) != null ->
                    v = i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
            case null, default -> {
                return null;
            }
        }
        return new Narrowing(d, test.apply(v));
    }

    /** {@code [first, last + 1)} of the indices of dimension {@code d} whose value passes; empty when none does. */
    private long[] range(int d, DoublePredicate test) {
        double[] values = coordinate(d);
        if (values == null) {
            // Indices: the predicate is monotonic in the index for the comparisons above, but an OR or
            // IN may leave gaps, so scan (the driver holds one long per index of one dimension at most).
            long first = -1;
            long last = -1;
            for (long i = 0; i < layout.shape()[d]; i++) {
                if (test.test(i)) {
                    first = first < 0 ? i : first;
                    last = i;
                }
            }
            return first < 0 ? new long[]{0, 0} : new long[]{first, last + 1};
        }
        int first = -1;
        int last = -1;
        for (int i = 0; i < values.length; i++) {
            if (test.test(values[i])) {
                first = first < 0 ? i : first;
                last = i;
            }
        }
        return first < 0 ? new long[]{0, 0} : new long[]{first, last + 1};
    }

    private double[] coordinate(int d) {
        String path = layout.coordinates().get(d);
        if (path == null) {
            return null;
        }
        if (coordinates == null) {
            coordinates = new double[layout.dims().size()][];
        }
        if (coordinates[d] == null) {
            coordinates[d] = readCoordinate(layout, d);
            CfTime time = layout.times().get(d);
            if (time != null) {
                for (int i = 0; i < coordinates[d].length; i++) {
                    coordinates[d][i] = time.micros(coordinates[d][i]);
                }
            }
        }
        return coordinates[d];
    }

    /** Every value of dimension {@code d}'s coordinate array, as doubles. */
    static double[] readCoordinate(ZarrLayout layout, int d) {
        try (Store store = Stores.open(layout.location());
             ZarrArray a = Zarr.openArray(store, layout.path(layout.coordinates().get(d)));
             Tensor t = a.read(Selection.all(a.shape()))) {
            return asDoubles(t);
        }
    }

    /** The values of a numeric 1-D tensor as doubles (integers beyond 2^53 round). */
    static double[] asDoubles(Tensor t) {
        if (t.dataType().kind() == dev.zarrdirect.api.DataType.Kind.FLOAT) {
            return t.toDoubleArray();
        }
        long[] l = t.toLongArray();
        double[] out = new double[l.length];
        for (int i = 0; i < l.length; i++) {
            out[i] = l[i];
        }
        return out;
    }
}
