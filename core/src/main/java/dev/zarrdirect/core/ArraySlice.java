// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A NumPy basic index of an array, such as {@code "0:24:2, 3, ..."}: per dimension the first index,
 * a positive step and the number of elements taken; a dimension indexed by a single integer is
 * dropped from the result, as NumPy drops it. Read one with {@link ZarrArray#read(ArraySlice)}.
 *
 * <p>Differences from NumPy, all reported as {@link IllegalArgumentException} with the dimension and
 * its bounds: a slice bound outside {@code -extent .. extent} is an error rather than clipped
 * (a silently empty result hides a wrong time range), steps must be positive, and there is no
 * {@code newaxis} or fancy (array) indexing. An integer outside {@code -extent .. extent-1} is an
 * error, as in NumPy.
 *
 * <p>Indices and counts count elements. A slice does not know its array: its bounds are checked
 * against the array's shape by {@link #parse} and again by the read. Immutable and thread-safe: the
 * record copies its arrays in and out and compares them by content.
 *
 * {@snippet :
 * // every other hour of the first day, at one latitude: a [12, 1440] tensor
 * ArraySlice s = ArraySlice.parse("0:24:2, 360, :", t2m.shape());
 * try (Tensor t = t2m.read(s)) {
 *     float first = t.getFloat(0, 0);
 * }
 * }
 *
 * @param start   first index of each dimension, in {@code [0, extent]}
 * @param step    step of each dimension, at least 1
 * @param counts  elements taken in each dimension
 * @param dropped whether each dimension was indexed by a single integer (its count is then 1)
 */
public record ArraySlice(long[] start, long[] step, long[] counts, boolean[] dropped) {

    /**
     * Checks ranks and signs; copies the arrays.
     *
     * @throws NullPointerException     when an array is null
     * @throws IllegalArgumentException when the lengths differ, a start or count is negative, a step
     *                                  is below 1, or a dropped dimension's count is not 1
     */
    public ArraySlice {
        start = start.clone();
        step = step.clone();
        counts = counts.clone();
        dropped = dropped.clone();
        int rank = start.length;
        if (step.length != rank || counts.length != rank || dropped.length != rank) {
            throw new IllegalArgumentException("slice arrays differ in rank: start " + rank + ", step " + step.length
                    + ", counts " + counts.length + ", dropped " + dropped.length);
        }
        for (int d = 0; d < rank; d++) {
            if (start[d] < 0 || step[d] < 1 || counts[d] < 0 || (dropped[d] && counts[d] != 1)) {
                throw new IllegalArgumentException("bad slice in dimension " + d + ": start " + start[d] + ", step "
                        + step[d] + ", count " + counts[d] + (dropped[d] ? ", dropped" : ""));
            }
        }
    }

    /**
     * Every element of an array of {@code shape}, no dimension dropped.
     *
     * @param shape the array's extent in each dimension, in elements
     * @return starts 0, steps 1, counts {@code shape}
     * @throws IllegalArgumentException when an extent is negative
     */
    public static ArraySlice all(long[] shape) {
        long[] ones = new long[shape.length];
        Arrays.fill(ones, 1);
        return new ArraySlice(new long[shape.length], ones, shape, new boolean[shape.length]);
    }

    /**
     * Parses a NumPy index for an array of {@code shape}: comma-separated entries {@code INDEX} or
     * {@code START:STOP[:STEP]} (each part optional, negatives count from the end), at most one
     * {@code ...} standing for the dimensions not named; missing trailing entries select whole
     * dimensions. An empty text selects everything.
     *
     * {@snippet :
     * ArraySlice.parse("-1", new long[] {10, 4});          // row 9, shape [4]
     * ArraySlice.parse("..., 0:4:2", new long[] {10, 4});  // columns 0 and 2, shape [10, 2]
     * }
     *
     * @param text  the index, such as {@code "0:24:2, 3, ..."}
     * @param shape the array's extent in each dimension
     * @return the slice, of the array's rank
     * @throws NullPointerException     when {@code text} or {@code shape} is null
     * @throws IllegalArgumentException naming the entry, the dimension and its bounds, for a malformed
     *                                  entry, an index or bound out of range, a step below 1, or more
     *                                  entries than dimensions
     */
    public static ArraySlice parse(String text, long[] shape) {
        int rank = shape.length;
        long[] start = new long[rank];
        long[] step = new long[rank];
        long[] counts = shape.clone();
        boolean[] dropped = new boolean[rank];
        Arrays.fill(step, 1);
        String t = text.trim();
        if (t.isEmpty()) {
            return new ArraySlice(start, step, counts, dropped);
        }
        List<String> parts = new ArrayList<>(Arrays.stream(t.split(",", -1)).map(String::trim).toList());
        int ellipsis = parts.indexOf("...");
        if (ellipsis >= 0) {
            parts.remove(ellipsis);
            if (parts.contains("...")) {
                throw new IllegalArgumentException("selection \"" + text + "\" has more than one '...'");
            }
            while (parts.size() < rank) {
                parts.add(ellipsis, ":");
            }
        }
        if (parts.size() > rank) {
            throw new IllegalArgumentException("selection \"" + text + "\" has " + parts.size()
                    + " entries for an array of rank " + rank + " with shape " + Arrays.toString(shape));
        }
        for (int i = 0; i < parts.size(); i++) {
            String p = parts.get(i);
            long size = shape[i];
            String[] f = p.split(":", -1);
            try {
                if (f.length == 1) {
                    long v = Long.parseLong(p);
                    long n = v < 0 ? v + size : v;
                    if (n < 0 || n >= size) {
                        throw new IllegalArgumentException("index " + v + " is outside dimension " + i + " of size "
                                + size + " (valid: " + -size + " to " + (size - 1) + ")");
                    }
                    start[i] = n;
                    counts[i] = 1;
                    dropped[i] = true;
                    continue;
                }
                if (f.length > 3) {
                    throw new NumberFormatException(p);
                }
                long st = f.length == 3 && !f[2].isBlank() ? Long.parseLong(f[2].trim()) : 1;
                if (st <= 0) {
                    throw new IllegalArgumentException("step " + st + " in dimension " + i
                            + ": only positive steps are supported");
                }
                long a = f[0].isBlank() ? 0 : bound(Long.parseLong(f[0].trim()), p, i, size);
                long b = f[1].isBlank() ? size : bound(Long.parseLong(f[1].trim()), p, i, size);
                start[i] = Math.min(a, size);
                step[i] = st;
                counts[i] = b <= a ? 0 : (b - a + st - 1) / st;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("selection \"" + text + "\": entry " + i + " \"" + p
                        + "\" is not INDEX or START:STOP[:STEP]", e);
            }
        }
        return new ArraySlice(start, step, counts, dropped);
    }

    private static long bound(long v, String entry, int dim, long size) {
        long n = v < 0 ? v + size : v;
        if (n < 0 || n > size) {
            throw new IllegalArgumentException("slice " + entry + " is outside dimension " + dim + " of size " + size
                    + " (bounds from " + -size + " to " + size + ")");
        }
        return n;
    }

    /**
     * The first index of each dimension.
     *
     * @return a fresh copy
     */
    @Override
    public long[] start() {
        return start.clone();
    }

    /**
     * The step of each dimension.
     *
     * @return a fresh copy; each at least 1
     */
    @Override
    public long[] step() {
        return step.clone();
    }

    /**
     * The number of elements taken in each dimension, dropped ones included (as 1).
     *
     * @return a fresh copy
     */
    @Override
    public long[] counts() {
        return counts.clone();
    }

    /**
     * Whether each dimension was indexed by a single integer.
     *
     * @return a fresh copy
     */
    @Override
    public boolean[] dropped() {
        return dropped.clone();
    }

    /**
     * The number of dimensions of the array it indexes.
     *
     * @return the array's rank, not the result's (see {@link #shape()})
     */
    public int rank() {
        return start.length;
    }

    /**
     * The shape of the result: the counts of the dimensions not dropped.
     *
     * @return a new array, shorter than {@link #rank()} by the number of dropped dimensions
     */
    public long[] shape() {
        return IntStream.range(0, counts.length).filter(d -> !dropped[d]).mapToLong(d -> counts[d]).toArray();
    }

    /**
     * The smallest box of the array holding every selected element (what a read fetches): from the
     * first selected index to the last, steps ignored. Empty in a dimension whose count is 0.
     *
     * @return a selection of the array's rank
     */
    public Selection box() {
        return box(Selection.all(counts));
    }

    /**
     * The smallest box of the array holding the selected elements whose positions within the result
     * (counted per dimension, dropped ones included, in {@code [0, count)}) lie in {@code elements}.
     * Used to read part of a slice, such as one chunk's worth. {@code elements} is not checked
     * against the counts.
     *
     * @param elements positions within the result, of the array's rank
     * @return a selection of the array's rank; empty in a dimension where {@code elements} is
     */
    public Selection box(Selection elements) {
        long[] lo = elements.start();
        long[] hi = elements.stop();
        long[] a = new long[lo.length];
        long[] b = new long[lo.length];
        for (int d = 0; d < lo.length; d++) {
            a[d] = start[d] + lo[d] * step[d];
            b[d] = hi[d] <= lo[d] ? a[d] : start[d] + (hi[d] - 1) * step[d] + 1;
        }
        return new Selection(a, b);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArraySlice s && Arrays.equals(start, s.start) && Arrays.equals(step, s.step)
                && Arrays.equals(counts, s.counts) && Arrays.equals(dropped, s.dropped);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(start) * 31 + Arrays.hashCode(step) * 17 + Arrays.hashCode(counts) + Arrays.hashCode(dropped);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int d = 0; d < start.length; d++) {
            if (d > 0) {
                sb.append(',');
            }
            if (dropped[d]) {
                sb.append(start[d]);
            } else {
                sb.append(start[d]).append(':').append(start[d] + counts[d] * step[d] - (counts[d] == 0 ? 0 : step[d] - 1));
                if (step[d] != 1) {
                    sb.append(':').append(step[d]);
                }
            }
        }
        return sb.toString();
    }
}
