// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts an array into disjoint boxes of whole destination shards, for the tasks of a conversion.
 * The unit along each dimension is the least common multiple of the destination's shard and the
 * source's chunk (so no source chunk is decoded by two tasks) when that unit fits the byte budget,
 * else the shard alone; units are then joined along the first dimension up to the budget.
 */
final class ConvertBoxes {

    private ConvertBoxes() {
    }

    /** Boxes {@code {start, stop}} covering {@code shape}, in C order of their starts. */
    static List<long[][]> of(long[] shape, long[] shard, long[] sourceChunk, int elementBytes, long budget) {
        int rank = shape.length;
        List<long[][]> out = new ArrayList<>();
        if (rank == 0) {
            out.add(new long[][]{new long[0], new long[0]});
            return out;
        }
        long[] unit = new long[rank];
        long unitBytes = elementBytes;
        for (int d = 0; d < rank; d++) {
            long l = lcm(shard[d], sourceChunk[d]);
            unit[d] = l > 0 && l <= shape[d] ? l : roundUp(shape[d], shard[d]);
            unitBytes = saturatingMultiply(unitBytes, unit[d]);
        }
        if (unitBytes > budget) {
            unitBytes = elementBytes;
            for (int d = 0; d < rank; d++) {
                unit[d] = shard[d];
                unitBytes = saturatingMultiply(unitBytes, unit[d]);
            }
        }
        long join = Math.max(1, budget / Math.max(1, unitBytes));
        unit[0] = saturatingMultiply(unit[0], join);
        long[] cells = new long[rank];
        for (int d = 0; d < rank; d++) {
            cells[d] = shape[d] == 0 ? 0 : (shape[d] + unit[d] - 1) / unit[d];
            if (cells[d] == 0) {
                return out;
            }
        }
        long[] cell = new long[rank];
        while (true) {
            long[] start = new long[rank];
            long[] stop = new long[rank];
            for (int d = 0; d < rank; d++) {
                start[d] = cell[d] * unit[d];
                stop[d] = Math.min(shape[d], start[d] + unit[d]);
            }
            out.add(new long[][]{start, stop});
            int d = rank - 1;
            while (d >= 0 && ++cell[d] == cells[d]) {
                cell[d] = 0;
                d--;
            }
            if (d < 0) {
                return out;
            }
        }
    }

    private static long roundUp(long n, long multiple) {
        return (n + multiple - 1) / multiple * multiple;
    }

    private static long saturatingMultiply(long a, long b) {
        long r = a * b;
        return (a != 0 && (r / a != b || r < 0)) ? Long.MAX_VALUE : r;
    }

    private static long lcm(long a, long b) {
        long g = gcd(a, b);
        return g == 0 ? 0 : saturatingMultiply(a / g, b);
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
