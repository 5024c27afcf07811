// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.grid;

import java.util.Arrays;
import java.util.StringJoiner;

/**
 * Arithmetic on shapes and indices in C (row-major) order. Overflow throws, it never wraps.
 *
 * <p>Shapes and indices are {@code long[]}s of extents and coordinates in elements, one entry per
 * dimension; rank 0 is the empty array. Arguments are read, never changed or kept, and a null
 * argument throws {@link NullPointerException}. Stateless and thread-safe.
 */
public final class Shapes {
    private Shapes() {
    }

    /**
     * The number of elements of a shape; 1 for rank 0.
     *
     * @param shape extents in elements
     * @return the product of the extents; 0 if any is 0
     * @throws IllegalArgumentException if an extent is negative
     * @throws ArithmeticException      if the product does not fit in a {@code long}
     */
    public static long product(long[] shape) {
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative extent " + d + " in shape " + format(shape));
            }
            if (d == 0) {
                // [2^40, 2^40, 0] has no elements: the product of the others need not fit.
                return 0;
            }
        }
        long p = 1;
        for (long d : shape) {
            try {
                p = Math.multiplyExact(p, d);
            } catch (ArithmeticException e) {
                throw new ArithmeticException("element count of shape " + format(shape) + " does not fit in a long");
            }
        }
        return p;
    }

    /**
     * A shape or index as messages show it: {@code [32, 16, 721, 1440]}; {@code []} for rank 0.
     *
     * @param shape any {@code long}s
     * @return the values in brackets, separated by {@code ", "}
     */
    public static String format(long[] shape) {
        StringJoiner j = new StringJoiner(", ", "[", "]");
        for (long d : shape) {
            j.add(Long.toString(d));
        }
        return j.toString();
    }

    /**
     * Element strides of a C-contiguous array of this shape; the last is 1. A zero extent counts as
     * 1, so the strides stay distinct and positive for empty arrays. Extents are not checked for
     * sign: pass a valid shape.
     *
     * @param shape extents in elements
     * @return a new array: entry {@code i} is the number of elements between neighbours along
     *         dimension {@code i} (multiply by the element size for bytes)
     * @throws ArithmeticException if a stride does not fit in a {@code long}
     */
    public static long[] cStrides(long[] shape) {
        long[] strides = new long[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            strides[i] = s;
            try {
                s = Math.multiplyExact(s, Math.max(shape[i], 1));
            } catch (ArithmeticException e) {
                throw new ArithmeticException("strides of shape " + format(shape) + " do not fit in a long");
            }
        }
        return strides;
    }

    /**
     * The C-order position of {@code index} in an array of {@code shape}.
     *
     * @param index coordinates, each within {@code [0, shape[i])}
     * @param shape extents in elements
     * @return the number of elements before {@code index} in C order
     * @throws IllegalArgumentException  if the ranks differ
     * @throws IndexOutOfBoundsException if a coordinate is outside the shape
     * @throws ArithmeticException       if the position does not fit in a {@code long}
     */
    public static long linearIndex(long[] index, long[] shape) {
        checkRank(index, shape, "index");
        long linear = 0;
        for (int i = 0; i < shape.length; i++) {
            if (index[i] < 0 || index[i] >= shape[i]) {
                throw new IndexOutOfBoundsException("index " + format(index) + " is outside shape " + format(shape)
                        + " in dimension " + i);
            }
            linear = Math.addExact(Math.multiplyExact(linear, shape[i]), index[i]);
        }
        return linear;
    }

    /**
     * The index at C-order position {@code linear} of an array of {@code shape}; inverse of
     * {@link #linearIndex}.
     *
     * @param linear a position in {@code [0, product(shape))}
     * @param shape  extents in elements
     * @return new coordinates, one per dimension
     * @throws IndexOutOfBoundsException if {@code linear} is negative or not below the element count
     *                                   (always, for a shape with a zero extent)
     * @throws IllegalArgumentException  if an extent is negative
     * @throws ArithmeticException       if the element count does not fit in a {@code long}
     */
    public static long[] unravel(long linear, long[] shape) {
        long count = product(shape);
        if (linear < 0 || linear >= count) {
            throw new IndexOutOfBoundsException("linear index " + linear + " is outside shape " + format(shape)
                    + " of " + count + " elements");
        }
        long[] index = new long[shape.length];
        for (int i = shape.length - 1; i >= 0; i--) {
            index[i] = linear % shape[i];
            linear /= shape[i];
        }
        return index;
    }

    static void checkRank(long[] a, long[] shape, String what) {
        if (a.length != shape.length) {
            throw new IllegalArgumentException(what + " " + format(a) + " has rank " + a.length + " but shape "
                    + format(shape) + " has rank " + shape.length);
        }
    }

    static long[] copy(long[] a, String what) {
        if (a == null) {
            throw new NullPointerException(what);
        }
        return Arrays.copyOf(a, a.length);
    }
}
