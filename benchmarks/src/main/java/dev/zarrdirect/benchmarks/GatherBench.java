// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.benchmarks;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.core.registry.BackendRegistry;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.Random;

/**
 * The loader's batch assembly ({@link Backend#gather}) on one backend: {@code planes} float32
 * (or float64) planes of {@code elements} each, gathered in a permuted order with a normalisation
 * into float32, float16 and bfloat16, in the backend's own memory (device memory on a GPU). After a
 * warm-up, each case repeats until a second has passed and reports the bytes moved (read and
 * written) per second and the elements per second; on the CPU also the single-threaded reference
 * ({@link PlaneGather#runOnHost}) for comparison.
 *
 * <pre>java -cp ... dev.zarrdirect.benchmarks.GatherBench [backend] [planes] [elements] [float32|float64]
 *     defaults: cpu 16 1038240 (721 x 1440) float32</pre>
 */
public final class GatherBench {

    private GatherBench() {
    }

    public static void main(String[] args) {
        String name = args.length > 0 ? args[0] : "cpu";
        int planes = args.length > 1 ? Integer.parseInt(args[1]) : 16;
        long elements = args.length > 2 ? Long.parseLong(args[2]) : 721L * 1440;
        DataType src = args.length > 3 && args[3].equals("float64") ? DataType.FLOAT64 : DataType.FLOAT32;
        try (Backend b = BackendRegistry.discover().open(name)) {
            run(b, planes, elements, src, 1.0, System.out);
        }
    }

    /** Runs every output type on {@code b} for at least {@code seconds} each; returns the last rate in GB/s. */
    public static double run(Backend b, int planes, long elements, DataType srcType, double seconds, PrintStream log) {
        Device dev = b.defaultDevice();
        MemoryKind kind = b.name().equals("cpu") ? MemoryKind.HOST : MemoryKind.DEVICE;
        long srcBytes = planes * elements * srcType.byteSize();
        Random r = new Random(42);
        long[] sp = new long[planes];
        long[] dp = new long[planes];
        float[] sc = new float[planes];
        float[] sh = new float[planes];
        for (int p = 0; p < planes; p++) {
            sp[p] = p;
            dp[p] = (p * 7L + 3) % planes; // a permutation when planes is not a multiple of 7
            sc[p] = 1 / (1 + r.nextFloat() * 10);
            sh[p] = r.nextFloat() * 5;
        }
        if (planes % 7 == 0) {
            for (int p = 0; p < planes; p++) {
                dp[p] = planes - 1 - p;
            }
        }
        log.printf(Locale.ROOT, "gather on %s (%s): %d planes of %d %s elements%n", b.name(), dev, planes, elements,
                srcType);
        double gbps = 0;
        try (Buffer src = b.allocate(dev, kind, srcBytes)) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment host = a.allocate(srcBytes, 64);
                for (long i = 0; i < planes * elements; i++) {
                    if (srcType.equals(DataType.FLOAT64)) {
                        host.setAtIndex(ValueLayout.JAVA_DOUBLE, i, r.nextGaussian() * 100 + 280);
                    } else {
                        host.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) (r.nextGaussian() * 100 + 280));
                    }
                }
                b.copy(HostBuffer.wrap(host), 0, src, 0, srcBytes);
            }
            for (PlaneGather.Output out : PlaneGather.Output.values()) {
                try (Buffer dst = b.allocate(dev, kind, planes * elements * out.byteSize())) {
                    PlaneGather g = new PlaneGather(src, 0, srcType, dst, 0, out, elements, sp, dp, sc, sh, true, 0f);
                    gbps = time(b.name() + " gather", g, b::gather, seconds, log);
                    if (b.name().equals("cpu") && out == PlaneGather.Output.FLOAT32) {
                        time("runOnHost (one thread)", g, x -> x.runOnHost(0, x.planes()), seconds, log);
                    }
                }
            }
        }
        return gbps;
    }

    private static double time(String what, PlaneGather g, java.util.function.Consumer<PlaneGather> op, double seconds,
                               PrintStream log) {
        for (int i = 0; i < 3; i++) {
            op.accept(g);
        }
        long reps = 0;
        long t0 = System.nanoTime();
        long t;
        do {
            op.accept(g);
            reps++;
            t = System.nanoTime();
        } while (t - t0 < seconds * 1e9);
        double s = (t - t0) / 1e9 / reps;
        double gbps = g.bytesMoved() / s / 1e9;
        log.printf(Locale.ROOT, "  %-26s to %-8s %8.3f ms  %7.2f GB/s moved  %6.2f Gelem/s%n", what,
                g.dstType().name().toLowerCase(Locale.ROOT), s * 1e3, gbps, g.planes() * g.planeElements() / s / 1e9);
        return gbps;
    }
}
