// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.bench;

import dev.zarrdirect.cpu.codec.bytestobytes.blosc.ByteShuffle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.Random;

/**
 * Single-thread byte unshuffle throughput of {@link ByteShuffle} (the stage of blosc and of numcodecs'
 * {@code shuffle} that the CPU backend runs after inflate or LZ4): GB/s of output, best of many
 * passes over one buffer, so the JIT has compiled the loop it times. Element sizes other than 1, 2,
 * 4 and 8 take the generic path.
 *
 * <pre>taskset -c 1 java -cp … dev.zarrdirect.cpu.bench.ShuffleThroughput [bytes] [typesize...]</pre>
 */
public final class ShuffleThroughput {

    private ShuffleThroughput() {
    }

    /** GB/s (10^9 bytes a second) of the best of {@code passes} unshuffles of {@code bytes} bytes. */
    public static double unshuffleGBps(long bytes, int typesize, int passes) {
        if (bytes <= 0 || typesize <= 0 || passes <= 0) {
            throw new IllegalArgumentException("need positive bytes, typesize and passes, got " + bytes + ", "
                    + typesize + ", " + passes);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(bytes, 64);
            MemorySegment dst = arena.allocate(bytes, 64);
            byte[] fill = new byte[(int) Math.min(bytes, 1 << 20)];
            new Random(42).nextBytes(fill);
            for (long at = 0; at < bytes; at += fill.length) {
                MemorySegment.copy(MemorySegment.ofArray(fill), 0, src, at, Math.min(fill.length, bytes - at));
            }
            double best = 0;
            for (int p = 0; p < passes; p++) {
                long t0 = System.nanoTime();
                ByteShuffle.unshuffle(src, 0, dst, 0, bytes, typesize);
                best = Math.max(best, bytes / (double) Math.max(1, System.nanoTime() - t0));
            }
            return best;
        }
    }

    public static void main(String[] args) {
        long bytes = args.length > 0 ? Long.parseLong(args[0]) : 2L << 20;
        int[] sizes = args.length > 1 ? new int[args.length - 1] : new int[]{2, 4, 8};
        for (int i = 1; i < args.length; i++) {
            sizes[i - 1] = Integer.parseInt(args[i]);
        }
        for (int typesize : sizes) {
            System.out.printf(Locale.ROOT, "unshuffle, %d-byte elements, %d bytes: %.2f GB/s (best of 400)%n", typesize,
                    bytes, unshuffleGBps(bytes, typesize, 400));
        }
    }
}
