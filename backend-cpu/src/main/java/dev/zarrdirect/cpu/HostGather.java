// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.backend.PlaneGather;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * {@link PlaneGather} on host memory with every core: the planes are cut into pieces of
 * {@value #PIECE} elements, run in parallel on the common {@link java.util.concurrent.ForkJoinPool}
 * (the calling thread takes part). Each piece is {@link PlaneGather#runOnHost(int, long, long)}, the
 * reference itself, so the bytes are the same.
 *
 * <p>Where several planes name the same output plane only the last of them runs: that is the plane
 * the sequential reference leaves there, and no two pieces then write the same bytes. The source
 * and the output must not overlap.
 */
final class HostGather {

    /** Elements per piece: 256 KiB of float32 source, large enough that a task is worth its scheduling. */
    static final long PIECE = 1 << 16;
    /** Below this many elements in all, the calling thread does everything. */
    static final long PARALLEL_MIN = 1 << 17;


    private HostGather() {
    }

    /** Runs {@code g} (host-accessible buffers); returns when it is written. */
    static void run(PlaneGather g) {
        int[] writers = writers(g.dstPlane());
        long n = g.planeElements();
        long piecesPerPlane = (n + PIECE - 1) / PIECE;
        long pieces = writers.length * piecesPerPlane;
        if (writers.length * n < PARALLEL_MIN || pieces == 1) {
            for (int p : writers) {
                g.runOnHost(p, 0, n);
            }
            return;
        }
        if (pieces > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a gather of " + writers.length + " planes of " + n
                    + " elements has too many pieces of " + PIECE + " elements");
        }
        IntStream.range(0, (int) pieces).parallel().forEach(k -> {
            int p = writers[(int) (k / piecesPerPlane)];
            long from = (k % piecesPerPlane) * PIECE;
            g.runOnHost(p, from, Math.min(n, from + PIECE));
        });
    }

    /** Every plane but those whose output plane a later plane also names, in order. */
    static int[] writers(long[] dstPlane) {
        Set<Long> seen = new HashSet<>();
        boolean[] keep = new boolean[dstPlane.length];
        int kept = 0;
        for (int p = dstPlane.length - 1; p >= 0; p--) {
            if (seen.add(dstPlane[p])) {
                keep[p] = true;
                kept++;
            }
        }
        int[] out = new int[kept];
        for (int p = 0, k = 0; p < dstPlane.length; p++) {
            if (keep[p]) {
                out[k++] = p;
            }
        }
        return out;
    }

}
