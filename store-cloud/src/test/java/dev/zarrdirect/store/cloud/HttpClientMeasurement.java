// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.StoreOptions;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Which synchronous HTTP client of the AWS SDK serves many concurrent ranged GETs best: each one
 * reads the same random ranges of objects on s3proxy (127.0.0.1, in this JVM) through an
 * {@link S3Store}, with the same requests in flight. Not a test: run by hand (docs/object-stores.md
 * has the command and the figures).
 *
 * <p>Arguments: {@code [objects=32] [objectMiB=4] [rangeKiB=1024] [inFlight=16,64] [rounds=3]
 * [ENDPOINT BUCKET]}: with an endpoint, the objects {@code o0}, {@code o1}, ... of that size are read
 * from that server's bucket (anonymous) instead of s3proxy's (on the GPU machine, MiniS3Server of
 * the benchmarks serving a directory, so that s3proxy need not be carried there).
 */
public final class HttpClientMeasurement {

    private HttpClientMeasurement() {
    }

    public static void main(String[] args) throws Exception {
        int objects = args.length > 0 ? Integer.parseInt(args[0]) : 32;
        int objectMiB = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int rangeKiB = args.length > 2 ? Integer.parseInt(args[2]) : 1024;
        int[] inFlight = args.length > 3 ? Arrays.stream(args[3].split(",")).mapToInt(Integer::parseInt).toArray()
                : new int[] {16, 64};
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        if (args.length > 6) {
            StoreOptions options = StoreOptions.defaults().withEndpoint(URI.create(args[5])).withRegion("us-east-1")
                    .withAnonymous(true);
            measure(args[6], options, objects, objectMiB, rangeKiB, inFlight, rounds);
            return;
        }
        try (S3Server server = S3Server.anonymous()) {
            String bucket = server.newBucket();
            Random random = new Random(42);
            try (S3Store writer = server.store("s3://" + bucket, server.options())) {
                byte[] value = new byte[objectMiB << 20];
                for (int i = 0; i < objects; i++) {
                    random.nextBytes(value);
                    writer.set("o" + i, MemorySegment.ofArray(value));
                }
            }
            measure(bucket, server.options(), objects, objectMiB, rangeKiB, inFlight, rounds);
        }
    }

    private static void measure(String bucket, StoreOptions base, int objects, int objectMiB, int rangeKiB,
            int[] inFlight, int rounds) throws Exception {
        {
            Random random = new Random(43);
            long rangeBytes = (long) rangeKiB << 10;
            int reads = (int) ((long) objects * (objectMiB << 20) / rangeBytes) * 2;
            List<long[]> plan = new ArrayList<>();
            for (int i = 0; i < reads; i++) {
                plan.add(new long[] {random.nextInt(objects), random.nextLong((objectMiB << 20) - rangeBytes + 1)});
            }
            System.out.printf(Locale.ROOT, "%d objects of %d MiB, %d ranged GETs of %d KiB per round, best of %d"
                    + " rounds, %d cores%n", objects, objectMiB, reads, rangeKiB, rounds,
                    Runtime.getRuntime().availableProcessors());
            for (int n : inFlight) {
                List<Supplier<SdkHttpClient.Builder<?>>> clients = List.of(
                        () -> ApacheHttpClient.builder().maxConnections(n),
                        () -> Apache5HttpClient.builder().maxConnections(n),
                        UrlConnectionHttpClient::builder);
                for (int c = 0; c < clients.size(); c++) {
                    String name = List.of("apache-client", "apache5-client", "url-connection-client").get(c);
                    StoreOptions options = base.withMaxRequests(n).withRequestTimeout(Duration.ofMinutes(2));
                    S3Config config = S3Config.resolve(CloudLocation.parse(URI.create("s3://" + bucket)), options);
                    try (S3Store store = new S3Store(config, config.newClient(clients.get(c).get()),
                            S3Store.DEFAULT_MULTIPART_THRESHOLD, S3Store.DEFAULT_PART_SIZE, 100)) {
                        double best = 0;
                        for (int r = 0; r < rounds + 1; r++) {
                            double gbs = round(store, plan, rangeBytes, n);
                            if (r > 0) {
                                best = Math.max(best, gbs); // the first round warms the JIT and the pool
                            }
                        }
                        System.out.printf(Locale.ROOT, "%-22s %3d in flight: %.3f GB/s%n", name, n, best);
                    }
                }
            }
        }
    }

    private static double round(S3Store store, List<long[]> plan, long rangeBytes, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicLong bytes = new AtomicLong();
        long t0 = System.nanoTime();
        try (Arena arena = Arena.ofShared()) {
            List<Future<?>> fs = new ArrayList<>();
            int per = (plan.size() + threads - 1) / threads;
            for (int t = 0; t < threads; t++) {
                List<long[]> mine = plan.subList(Math.min(plan.size(), t * per), Math.min(plan.size(), (t + 1) * per));
                fs.add(pool.submit(() -> {
                    for (long[] p : mine) {
                        try (Arena local = Arena.ofConfined()) {
                            bytes.addAndGet(store.get("o" + p[0], ByteRange.of(p[1], rangeBytes), local)
                                    .orElseThrow().byteSize());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return bytes.get() / ((System.nanoTime() - t0) / 1e9) / 1e9;
    }
}
