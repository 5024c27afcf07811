// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import java.util.Arrays;

/**
 * A hyper-rectangle of an array: {@code [start, stop)} in each dimension. Indices count elements,
 * not bytes. A selection keeps every dimension (a single index selects {@code i:i+1}); use
 * {@link ArraySlice} for steps and dropped dimensions.
 *
 * <p>A selection does not know its array: whether it lies inside one is checked by
 * {@link #checkWithin}, which every read and write calls before touching anything. Immutable and
 * thread-safe: the record copies its arrays in and out and compares them by content.
 *
 * {@snippet :
 * Selection first2 = Selection.parse("0:2", a.shape());             // [0:2, 0:721, 0:1440]
 * Selection box = Selection.at(new long[] {5, 100, 200}, new long[] {1, 64, 64});
 * }
 *
 * @param start first index in each dimension, 0 or more
 * @param stop  one past the last index in each dimension, at least {@code start}; equal for an
 *              empty selection
 */
public record Selection(long[] start, long[] stop) {

    /**
     * Copies the arrays and checks them.
     *
     * @throws NullPointerException     when {@code start} or {@code stop} is null
     * @throws IllegalArgumentException when their lengths differ, a start is negative or a stop is
     *                                  below its start
     */
    public Selection {
        start = start.clone();
        stop = stop.clone();
        if (start.length != stop.length) {
            throw new IllegalArgumentException("selection start " + Arrays.toString(start) + " and stop "
                    + Arrays.toString(stop) + " differ in rank");
        }
        for (int i = 0; i < start.length; i++) {
            if (start[i] < 0 || stop[i] < start[i]) {
                throw new IllegalArgumentException("bad selection in dimension " + i + ": " + start[i] + ":" + stop[i]);
            }
        }
    }

    /**
     * The first index in each dimension.
     *
     * @return a fresh copy
     */
    @Override
    public long[] start() {
        return start.clone();
    }

    /**
     * One past the last index in each dimension.
     *
     * @return a fresh copy
     */
    @Override
    public long[] stop() {
        return stop.clone();
    }

    /**
     * The whole of an array of {@code shape}.
     *
     * @param shape the array's extent in each dimension, in elements
     * @return {@code [0, shape)}
     * @throws IllegalArgumentException when an extent is negative
     */
    public static Selection all(long[] shape) {
        return new Selection(new long[shape.length], shape);
    }

    /**
     * The box of {@code shape} at {@code offset}: {@code [offset, offset + shape)}.
     *
     * @param offset the box's first index in each dimension
     * @param shape  the box's extent in each dimension, of the same length as {@code offset}
     * @return the selection
     * @throws IllegalArgumentException when an offset or extent is negative
     */
    public static Selection at(long[] offset, long[] shape) {
        long[] stop = new long[offset.length];
        for (int i = 0; i < offset.length; i++) {
            stop[i] = offset[i] + shape[i];
        }
        return new Selection(offset, stop);
    }

    /**
     * Parses NumPy-like slices for an array of {@code shape}: {@code "0:2,:,5"}, {@code "-3:"}, {@code "..."}.
     * A single index {@code i} selects {@code i:i+1} and keeps the dimension. Fewer entries than the
     * rank select the remaining dimensions whole. Negative numbers count from the end. As in NumPy,
     * slice bounds are clipped to the extent (so {@code "5:100"} of an extent 10 is {@code 5:10}, and
     * a stop before its start selects nothing); a single index outside the extent is an error. Steps
     * are not accepted, and {@code "..."} only as the whole text (see {@link ArraySlice#parse} for
     * both).
     *
     * @param text  the selection, such as {@code "0:2,:,5"}; empty or {@code "..."} for everything
     * @param shape the array's extent in each dimension
     * @return the selection, of the array's rank
     * @throws IllegalArgumentException naming the entry, when an entry is not {@code INDEX} or
     *                                  {@code START:STOP}, an index is outside its dimension, or there
     *                                  are more entries than dimensions
     * @throws NullPointerException     when {@code text} or {@code shape} is null
     */
    public static Selection parse(String text, long[] shape) {
        String t = text.trim();
        int rank = shape.length;
        long[] start = new long[rank];
        long[] stop = shape.clone();
        if (t.isEmpty() || t.equals("...")) {
            return new Selection(start, stop);
        }
        String[] parts = t.split(",", -1);
        if (parts.length > rank) {
            throw new IllegalArgumentException("selection \"" + text + "\" has " + parts.length
                    + " entries for an array of rank " + rank + " with shape " + Arrays.toString(shape));
        }
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i].trim();
            try {
                int colon = p.indexOf(':');
                if (colon < 0) {
                    long v = norm(Long.parseLong(p), shape[i]);
                    if (v < 0 || v >= shape[i]) {
                        throw new IllegalArgumentException("index " + p + " is outside dimension " + i + " of extent " + shape[i]);
                    }
                    start[i] = v;
                    stop[i] = v + 1;
                } else {
                    String a = p.substring(0, colon).trim();
                    String b = p.substring(colon + 1).trim();
                    long s = a.isEmpty() ? 0 : clamp(norm(Long.parseLong(a), shape[i]), shape[i]);
                    long e = b.isEmpty() ? shape[i] : clamp(norm(Long.parseLong(b), shape[i]), shape[i]);
                    start[i] = s;
                    stop[i] = Math.max(s, e);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("selection \"" + text + "\": entry " + i + " \"" + p
                        + "\" is not INDEX or START:STOP", e);
            }
        }
        return new Selection(start, stop);
    }

    private static long norm(long v, long extent) {
        return v < 0 ? v + extent : v;
    }

    private static long clamp(long v, long extent) {
        return Math.max(0, Math.min(v, extent));
    }

    /**
     * The number of dimensions.
     *
     * @return the length of {@link #start()}
     */
    public int rank() {
        return start.length;
    }

    /**
     * The extent in each dimension: the shape of what a read of this selection returns.
     *
     * @return a new array of {@code stop - start}, in elements
     */
    public long[] shape() {
        long[] s = new long[start.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = stop[i] - start[i];
        }
        return s;
    }

    /**
     * Fails unless the selection lies inside an array of {@code arrayShape}.
     *
     * @param arrayShape the array's extent in each dimension
     * @param where      the array, for messages, such as {@code array "/t2m" in FileSystemStore(...)}
     * @throws IllegalArgumentException  when the ranks differ
     * @throws IndexOutOfBoundsException when the selection reaches past the array in some dimension
     */
    public void checkWithin(long[] arrayShape, String where) {
        if (arrayShape.length != start.length) {
            throw new IllegalArgumentException("selection of rank " + start.length + " for " + where + " of rank "
                    + arrayShape.length);
        }
        for (int i = 0; i < start.length; i++) {
            if (stop[i] > arrayShape[i]) {
                throw new IndexOutOfBoundsException("selection " + this + " reaches past " + where + " of shape "
                        + Arrays.toString(arrayShape) + " in dimension " + i);
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Selection s && Arrays.equals(s.start, start) && Arrays.equals(s.stop, stop);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(start) * 31 + Arrays.hashCode(stop);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < start.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(start[i]).append(':').append(stop[i]);
        }
        return sb.append(']').toString();
    }
}
