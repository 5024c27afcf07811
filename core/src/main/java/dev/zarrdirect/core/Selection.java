// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import java.util.Arrays;

/**
 * A hyper-rectangle of an array: {@code [start, stop)} in each dimension.
 *
 * @param start first index in each dimension
 * @param stop  one past the last index in each dimension
 */
public record Selection(long[] start, long[] stop) {

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

    @Override
    public long[] start() {
        return start.clone();
    }

    @Override
    public long[] stop() {
        return stop.clone();
    }

    /** The whole of an array of {@code shape}. */
    public static Selection all(long[] shape) {
        return new Selection(new long[shape.length], shape);
    }

    /** The box of {@code shape} at {@code offset}. */
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
     * rank select the remaining dimensions whole.
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

    public int rank() {
        return start.length;
    }

    /** The extent in each dimension. */
    public long[] shape() {
        long[] s = new long[start.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = stop[i] - start[i];
        }
        return s;
    }

    /** Fails unless the selection lies inside an array of {@code arrayShape}. */
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
