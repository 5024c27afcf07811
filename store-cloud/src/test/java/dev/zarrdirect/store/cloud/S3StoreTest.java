// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreOptions;
import dev.zarrdirect.core.store.Stores;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * S3Store against a real S3 server (s3proxy on 127.0.0.1): round trips, multipart, listing, what a
 * signed server does with anonymous, right and wrong keys, a missing bucket, bounded reads, and the
 * way in through {@code Stores.open}. The Store contract itself runs in the conformance tests.
 */
class S3StoreTest {

    private static final long SEED = Long.getLong("zd.seed", System.nanoTime());
    private static S3Server open;
    private static S3Server signed;

    @BeforeAll
    static void startServers() throws Exception {
        open = S3Server.anonymous();
        signed = S3Server.signed();
    }

    @AfterAll
    static void stopServers() throws Exception {
        open.close();
        signed.close();
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(SEED + n).nextBytes(b);
        return b;
    }

    @Test
    void valuesRoundTripThroughStoresOpenWithAnEndpointAndAnonymousAccess() {
        String bucket = open.newBucket();
        byte[] value = random(100_000);
        try (Store store = Stores.open("s3://" + bucket + "/era5.zarr", open.options()); Arena arena = Arena.ofConfined()) {
            assertEquals("S3Store(s3://" + bucket + "/era5.zarr, endpoint=" + open.endpoint() + ")", store.toString());
            store.set("t2m/c/0/0", MemorySegment.ofArray(value));
            assertEquals(value.length, store.size("t2m/c/0/0"));
            assertArrayEquals(value, store.get("t2m/c/0/0", arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE));
            // Confined arena: the body is copied on the calling thread.
            MemorySegment mid = store.get("t2m/c/0/0", ByteRange.of(1000, 5000), arena).orElseThrow();
            assertArrayEquals(java.util.Arrays.copyOfRange(value, 1000, 6000), mid.toArray(ValueLayout.JAVA_BYTE));
            MemorySegment tail = store.get("t2m/c/0/0", ByteRange.suffix(16), arena).orElseThrow();
            assertArrayEquals(java.util.Arrays.copyOfRange(value, value.length - 16, value.length),
                    tail.toArray(ValueLayout.JAVA_BYTE));
            MemorySegment rest = store.get("t2m/c/0/0", ByteRange.from(99_990), arena).orElseThrow();
            assertEquals(10, rest.byteSize());
            assertTrue(store.get("t2m/c/0/1", arena).isEmpty());
            assertEquals(-1, store.size("t2m/c/0/1"));
        }
        // The prefix is the root: the object lies under it.
        try (Store whole = Stores.open("s3://" + bucket, open.options())) {
            assertEquals(List.of("era5.zarr/t2m/c/0/0"), whole.list(""));
        }
    }

    @Test
    void largeValuesAreUploadedInPartsAndReadBackWhole() {
        String bucket = open.newBucket();
        byte[] value = random(12 << 20);
        S3Config config = S3Config.resolve(CloudLocation.parse(URI.create("s3://" + bucket + "/p")), open.options());
        try (S3Store store = new S3Store(config, config.newClient(), 6 << 20, 5 << 20, 10); Arena arena = Arena.ofShared()) {
            try (Arena native_ = Arena.ofConfined()) {
                MemorySegment src = native_.allocate(value.length);
                MemorySegment.copy(value, 0, src, ValueLayout.JAVA_BYTE, 0, value.length);
                store.set("big", src);
            }
            assertEquals(value.length, store.size("big"));
            assertArrayEquals(value, store.get("big", arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE));
            assertTrue(store.client().listMultipartUploads(b -> b.bucket(bucket)).uploads().isEmpty(),
                    "no upload left behind");
        }
    }

    @Test
    void wholeReadsOfLargeObjectsComeInConcurrentPartsIntoAnyKindOfSegment() {
        String bucket = open.newBucket();
        S3Config config = S3Config.resolve(CloudLocation.parse(URI.create("s3://" + bucket + "/p")), open.options());
        long part = 64 << 10;
        try (S3Store store = new S3Store(config, config.newClient(), 64 << 20, 16 << 20, 10, part)) {
            // one byte under, at and over a part boundary, many parts, and empty
            for (int size : new int[]{0, 1, (int) part - 1, (int) part, (int) part + 1, 10 * (int) part + 17}) {
                byte[] value = random(size);
                store.set("v" + size, MemorySegment.ofArray(value));
                try (Arena confined = Arena.ofConfined(); Arena shared = Arena.ofShared()) {
                    assertArrayEquals(value, store.get("v" + size, confined).orElseThrow().toArray(ValueLayout.JAVA_BYTE),
                            size + " bytes into a confined arena");
                    assertArrayEquals(value, store.get("v" + size, shared).orElseThrow().toArray(ValueLayout.JAVA_BYTE),
                            size + " bytes into a shared arena");
                }
                // a heap allocator: other threads may not write it, so the rest comes in one GET
                SegmentAllocator heap = (bytes, align) -> MemorySegment.ofArray(new byte[(int) bytes]);
                assertArrayEquals(value, store.get("v" + size, ByteRange.ALL, heap).orElseThrow()
                        .toArray(ValueLayout.JAVA_BYTE), size + " bytes onto the heap");
            }
            try (Arena arena = Arena.ofConfined()) {
                assertTrue(store.get("missing", arena).isEmpty());
            }
        }
    }

    @Test
    void anObjectReplacedDuringAPartedReadFailsInsteadOfMixingVersions() {
        String bucket = open.newBucket();
        S3Config config = S3Config.resolve(CloudLocation.parse(URI.create("s3://" + bucket + "/p")), open.options());
        byte[] before = random(300_000);
        byte[] after = before.clone();
        after[299_999] ^= 1; // same length, last part differs
        try (S3Store store = new S3Store(config, config.newClient(), 64 << 20, 16 << 20, 10, 64 << 10);
             S3Store writer = new S3Store(config, config.newClient(), 64 << 20, 16 << 20, 10)) {
            store.set("k", MemorySegment.ofArray(before));
            try (Arena arena = Arena.ofShared()) {
                // the destination is allocated once the first part's answer is in: replace the object then
                SegmentAllocator replacing = (bytes, align) -> {
                    writer.set("k", MemorySegment.ofArray(after));
                    return arena.allocate(bytes, align);
                };
                StoreException e = assertThrows(StoreException.class, () -> store.get("k", ByteRange.ALL, replacing));
                assertTrue(e.getMessage().contains("replaced while it was read") && e.getMessage().contains("/k"),
                        e.getMessage());
                assertArrayEquals(after, store.get("k", arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE));
            }
        }
    }

    @Test
    void listingGivesKeysAndDirectoriesUnderThePrefixOnly() {
        String bucket = open.newBucket();
        try (S3Store store = open.store("s3://" + bucket + "/root", open.options());
             Store outside = open.store("s3://" + bucket + "/rootless", open.options())) {
            for (String k : List.of("zarr.json", "t2m/zarr.json", "t2m/c/0/0", "t2m/c/0/1", "u10/zarr.json")) {
                store.set(k, MemorySegment.ofArray(new byte[] {1}));
            }
            outside.set("zarr.json", MemorySegment.ofArray(new byte[] {2}));
            store.set("t2m/c/0/0x", MemorySegment.ofArray(new byte[0]));
            // A directory marker, as consoles create them, is not a value.
            store.client().putObject(b -> b.bucket(bucket).key("root/t2m/c/"),
                    software.amazon.awssdk.core.sync.RequestBody.fromBytes(new byte[0]));
            assertEquals(List.of("t2m/", "u10/", "zarr.json"), store.listDir(""));
            assertEquals(List.of("t2m/c/", "t2m/zarr.json"), store.listDir("t2m"));
            assertEquals(List.of("t2m/c/0/0", "t2m/c/0/0x", "t2m/c/0/1"), store.list("t2m/c/"));
            assertEquals(6, store.list("").size());
            assertEquals(List.of(), store.listDir("v10/"));
        }
    }

    @Test
    void listingPagesThroughMoreThanAThousandKeys() {
        String bucket = open.newBucket();
        try (S3Store store = open.store("s3://" + bucket, open.options())) {
                        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
            try {
                List<java.util.concurrent.Future<?>> fs = new java.util.ArrayList<>();
                for (int i = 0; i < 1001; i++) {
                    String k = String.format("c/%04d", i);
                    fs.add(pool.submit(() -> store.set(k, MemorySegment.ofArray(new byte[] {7}))));
                }
                for (var f : fs) {
                    f.get();
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                pool.shutdownNow();
            }
            List<String> keys = store.list("c/");
            assertEquals(1001, keys.size());
            assertEquals("c/0000", keys.getFirst());
            assertEquals("c/1000", keys.getLast());
            assertEquals(1001, store.listDir("c").size());
        }
    }

    @Test
    void aSignedServerRefusesAnonymousRequestsSayingWhatToChange() {
        String bucket = signed.newBucket();
        try (Store good = signed.store("s3://" + bucket, signed.options())) {
            good.set("zarr.json", MemorySegment.ofArray(new byte[] {1, 2, 3}));
            assertEquals(3, good.size("zarr.json"));
        }
        try (Store anon = signed.store("s3://" + bucket, signed.options().withAnonymous(true)); Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class, () -> anon.get("zarr.json", arena));
            assertTrue(e.getMessage().contains("HTTP 403") && e.getMessage().contains("drop --no-sign-request")
                    && e.getMessage().contains("zarr.json"), e.getMessage());
            assertEquals("zarr.json", e.key());
        }
    }

    @Test
    void aWrongKeyFailsNamingTheCredentialsSourceAndNeverTheSecret() {
        String bucket = signed.newBucket();
        S3Config base = S3Config.resolve(CloudLocation.parse(URI.create("s3://" + bucket)), signed.options());
        for (var creds : List.of(
                software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("no-such-key", "whatever-secret-1"),
                software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(S3Server.KEY_ID, "wrong-secret-2"))) {
            S3Config config = base.withCredentials(
                    software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(creds), "a test key");
            try (S3Store store = S3Store.open(config); Arena arena = Arena.ofConfined()) {
                StoreException e = assertThrows(StoreException.class, () -> store.get("zarr.json", arena));
                assertTrue(e.getMessage().contains("HTTP 403") && e.getMessage().contains("a test key"), e.getMessage());
                assertTrue(e.getMessage().contains("InvalidAccessKeyId") || e.getMessage().contains("SignatureDoesNotMatch"),
                        e.getMessage());
                assertFalse(e.getMessage().contains(creds.secretAccessKey()), "no secret in " + e.getMessage());
            }
        }
    }

    @Test
    void aMissingBucketFailsNamingItForReadsSizesListingsAndWrites() {
        try (Store store = open.store("s3://zd-no-such-bucket/x", open.options()); Arena arena = Arena.ofConfined()) {
            for (org.junit.jupiter.api.function.Executable op : List.<org.junit.jupiter.api.function.Executable>of(
                    () -> store.get("zarr.json", arena), () -> store.size("zarr.json"), () -> store.listDir(""),
                    () -> store.set("k", MemorySegment.ofArray(new byte[1])))) {
                StoreException e = assertThrows(StoreException.class, op);
                assertTrue(e.getMessage().contains("the bucket \"zd-no-such-bucket\" does not exist")
                        && e.getMessage().contains("NoSuchBucket"), e.getMessage());
            }
        }
    }

    @Test
    void boundedReadsRefuseLargerValuesBeforeAllocating() {
        String bucket = open.newBucket();
        try (Store store = open.store("s3://" + bucket, open.options()); Arena arena = Arena.ofConfined()) {
            store.set("big", MemorySegment.ofArray(random(5000)));
            long[] allocated = {0};
            java.lang.foreign.SegmentAllocator counting = (size, align) -> {
                allocated[0] += size;
                return arena.allocate(size, align);
            };
            StoreException e = assertThrows(StoreException.class,
                    () -> store.get("big", ByteRange.ALL, 4000, counting));
            assertTrue(e.getMessage().contains("5000 bytes, more than the limit of 4000"), e.getMessage());
            assertEquals(0, allocated[0]);
            assertEquals(4000, store.get("big", ByteRange.of(0, 4000), 4000, counting).orElseThrow().byteSize());
        }
    }

    @Test
    void aServerThatIsNotThereFailsAfterItsAttemptsNamingTheEndpoint() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        StoreOptions options = StoreOptions.defaults().withEndpoint(URI.create("http://127.0.0.1:" + port))
                .withAnonymous(true).withMaxAttempts(2).withConnectTimeout(Duration.ofSeconds(1));
        try (Store store = Stores.open("s3://bucket/p", options); Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class, () -> store.get("zarr.json", arena));
            assertTrue(e.getMessage().contains("failed after 2 attempts") && e.getMessage().contains("connection refused")
                    && e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
        }
    }

    @Test
    void badLocationsAreRefusedNamingThem() {
        for (String bad : List.of("s3://", "s3://Bad_Bucket/x", "s3://b/a/../x", "s3://bucket:9000/x", "s3://bkt/x?y=1")) {
            StoreException e = assertThrows(StoreException.class, () -> Stores.open(bad, StoreOptions.defaults()), bad);
            assertTrue(e.getMessage().contains("cannot open"), e.getMessage());
        }
    }
}
