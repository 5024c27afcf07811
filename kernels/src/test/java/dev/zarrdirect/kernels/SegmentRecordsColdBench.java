// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A manual measurement, not a test: what planning a split batch costs on the host in a fresh JVM,
 * round by round, while the JIT has not compiled it yet (docs/performance.md, "The device's cold
 * passes"). THREADS threads at once (a device read has three batches in flight) each write the
 * records of 128 streams of 2 MB in 16 KiB ranges and mark retries over records that all found a
 * start and chain exactly (so every link is walked), ten rounds.
 * <pre>
 * mvn -pl kernels test-compile; java -cp kernels/target/classes:kernels/target/test-classes \
 *     dev.zarrdirect.kernels.SegmentRecordsColdBench [THREADS]
 * </pre>
 */
public final class SegmentRecordsColdBench {

    private SegmentRecordsColdBench() {
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int n = 128;
        long[] enc = new long[n], dec = new long[n];
        for (int j = 0; j < n; j++) {
            enc[j] = 1_480_000 + 37L * j;
            dec[j] = 2_076_480;
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 10; round++) {
                List<Future<String>> calls = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    calls.add(pool.submit(() -> once(enc, dec)));
                }
                StringBuilder line = new StringBuilder("round " + round + ":");
                for (Future<String> f : calls) {
                    line.append("  ").append(f.get());
                }
                System.out.println(line);
            }
        } finally {
            pool.shutdown();
        }
    }

    private static String once(long[] enc, long[] dec) {
        try (Arena a = Arena.ofConfined()) {
            InflateSplitPlan p = InflateSplitPlan.of(16 << 10, enc, dec);
            MemorySegment host = a.allocate(p.recordBytes(), 8);
            host.fill((byte) 0);
            long t0 = System.nanoTime();
            p.writeRecords(host, 0);
            long t1 = System.nanoTime();
            for (int s = 0; s < p.segments(); s++) { // what the find and decode launches leave
                long rec = KernelContract.ZD_INFS_SEG_BYTES * s;
                host.set(ValueLayout.JAVA_INT, rec + KernelContract.ZD_INFS_SEG_FLAGS_AT, (int) KernelContract.ZD_INFS_F_FOUND);
                host.set(ValueLayout.JAVA_LONG, rec + KernelContract.ZD_INFS_SEG_START_AT, 1000L * s);
                host.set(ValueLayout.JAVA_LONG, rec + KernelContract.ZD_INFS_SEG_END_AT, 1000L * (s + 1));
            }
            long t2 = System.nanoTime();
            long need = p.markRetries(host, 0, p.cells());
            long t3 = System.nanoTime();
            if (need != p.cells()) {
                throw new AssertionError("a chain that meets everywhere marked a retry");
            }
            return String.format(Locale.ROOT, "write %.2f ms mark %.2f ms", (t1 - t0) / 1e6, (t3 - t2) / 1e6);
        }
    }
}
