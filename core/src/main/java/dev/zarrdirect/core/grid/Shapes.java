// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.grid;

import java.util.Arrays;
import java.util.StringJoiner;

/** Arithmetic on shapes and indices in C (row-major) order. Overflow throws, it never wraps. */
public final class Shapes {
    private Shapes() {
    }

    /** The number of elements of a shape; 1 for rank 0. */
    public static long product(long[] shape) {
        long p = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative extent " + d + " in shape " + format(shape));
            }
            try {
                p = Math.multiplyExact(p, d);
            } catch (ArithmeticException e) {
                throw new ArithmeticException("element count of shape " + format(shape) + " does not fit in a long");
            }
        }
        return p;
    }

    /** {@code [32, 16, 721, 1440]}; {@code []} for rank 0. */
    public static String format(long[] shape) {
        StringJoiner j = new StringJoiner(", ", "[", "]");
        for (long d : shape) {
            j.add(Long.toString(d));
        }
        return j.toString();
    }

    /** Element strides of a C-contiguous array of this shape; the last is 1. */
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

    /** The C-order position of {@code index} in an array of {@code shape}. */
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

    /** The index at C-order position {@code linear} of an array of {@code shape}; inverse of {@link #linearIndex}. */
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
