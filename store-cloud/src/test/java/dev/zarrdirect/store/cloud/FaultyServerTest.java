// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.StoreOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store behind a proxy that answers 503, stalls, or cuts bodies off: concurrent writes and
 * ranged reads lose nothing and mix nothing, and a server that never recovers fails after the
 * configured attempts, saying what each got.
 */
class FaultyServerTest {

    private static final long SEED = Long.getLong("zd.seed", System.nanoTime());
    private static S3Server server;

    @BeforeAll
    static void start() throws Exception {
        server = S3Server.anonymous();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static S3Store through(FaultProxy proxy, String bucket, int attempts) {
        StoreOptions options = StoreOptions.defaults().withEndpoint(proxy.endpoint()).withRegion("us-east-1")
                .withAnonymous(true).withMaxAttempts(attempts).withMaxRequests(8)
                .withRequestTimeout(Duration.ofMillis(1500));
        S3Config config = S3Config.resolve(CloudLocation.parse(URI.create("s3://" + bucket + "/z")), options);
        // whole values of more than 32 KiB are read in concurrent parts, through the same faults
        return new S3Store(config, config.newClient(), S3Store.DEFAULT_MULTIPART_THRESHOLD, S3Store.DEFAULT_PART_SIZE, 20,
                32 << 10);
    }

    @Test
    void concurrentWritesAndRangedReadsThroughFailuresStallsAndCutBodiesLoseAndMixNothing() throws Exception {
        String bucket = server.newBucket();
        Random random = new Random(SEED);
        Map<String, byte[]> values = new TreeMap<>();
        for (int i = 0; i < 32; i++) {
            byte[] v = new byte[1 + random.nextInt(200_000)];
            random.nextBytes(v);
            values.put("t2m/c/" + i + "/0", v);
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (FaultProxy proxy = new FaultProxy(server.endpoint(), 2500, 3, false);
             S3Store store = through(proxy, bucket, 4); Arena arena = Arena.ofShared()) {
            List<Future<?>> writes = new ArrayList<>();
            values.forEach((k, v) -> writes.add(pool.submit(() -> store.set(k, MemorySegment.ofArray(v)))));
            for (Future<?> f : writes) {
                f.get();
            }
            List<Future<String>> reads = new ArrayList<>();
            for (Map.Entry<String, byte[]> e : values.entrySet()) {
                long seed = random.nextLong();
                reads.add(pool.submit(() -> check(store, arena, e.getKey(), e.getValue(), new Random(seed))));
            }
            List<String> wrong = new ArrayList<>();
            for (Future<String> f : reads) {
                String w = f.get();
                if (!w.isEmpty()) {
                    wrong.add(w);
                }
            }
            assertEquals(List.of(), wrong, "seed " + SEED);
            assertEquals(List.copyOf(values.keySet()), store.list(""), "seed " + SEED);
            assertTrue(proxy.failed.get() > 0 && proxy.stalled.get() > 0 && proxy.cut.get() > 0,
                    "faults injected: 503 " + proxy.failed + ", stalls " + proxy.stalled + ", cut " + proxy.cut);
        } finally {
            pool.shutdownNow();
        }
        // Straight from the server: every value whole.
        try (S3Store direct = server.store("s3://" + bucket + "/z", server.options()); Arena arena = Arena.ofConfined()) {
            for (Map.Entry<String, byte[]> e : values.entrySet()) {
                assertArrayEquals(e.getValue(), direct.get(e.getKey(), arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE),
                        e.getKey());
            }
        }
    }

    /** The whole value and three ranges of it; an empty string when all match. */
    private static String check(S3Store store, Arena arena, String key, byte[] expected, Random random) {
        byte[] whole = store.get(key, arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE);
        if (!Arrays.equals(expected, whole)) {
            return key + ": whole value differs";
        }
        for (int i = 0; i < 3; i++) {
            int off = random.nextInt(expected.length);
            int len = random.nextInt(expected.length - off + 1);
            byte[] got = store.get(key, ByteRange.of(off, len), arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE);
            if (!Arrays.equals(Arrays.copyOfRange(expected, off, off + len), got)) {
                return key + ": bytes " + off + "+" + len + " differ";
            }
        }
        return "";
    }

    @Test
    void aServerThatKeepsFailingIsReportedAfterTheConfiguredAttempts() throws Exception {
        String bucket = server.newBucket();
        try (FaultProxy proxy = new FaultProxy(server.endpoint(), 0, 0, true);
             S3Store store = through(proxy, bucket, 3); Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class, () -> store.get("t2m/zarr.json", arena));
            assertTrue(e.getMessage().contains("failed after 3 attempts: HTTP 503 (SlowDown) (all 3 attempts)")
                    && e.getMessage().contains("t2m/zarr.json"), e.getMessage());
            assertEquals(3, proxy.failed.get());
            StoreException w = assertThrows(StoreException.class,
                    () -> store.set("k", MemorySegment.ofArray(new byte[] {1})));
            assertTrue(w.getMessage().contains("PUT") && w.getMessage().contains("503"), w.getMessage());
        }
    }
}
