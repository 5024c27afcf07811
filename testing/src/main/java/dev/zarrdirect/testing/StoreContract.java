// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.InvalidKeyException;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every writable {@link Store} must do, after Lucene's {@code BaseDirectoryTestCase}: round
 * trips of many sizes, byte ranges, missing keys, overwrite and delete, sorted listings, refusal of
 * invalid keys with the store's name in the message, concurrent writers that never expose a torn
 * value, and the lifetime rules (closing twice is harmless, use after close fails).
 *
 * <p>A subclass supplies the store; each test gets a fresh one in a fresh directory and closes it
 * afterwards. Subclasses add tests of their own store's specifics next to the inherited ones.
 *
 * {@snippet :
 * class MyStoreTest extends StoreContract {
 *     @Override
 *     protected Store newStore(Path dir) {
 *         return new MyStore(dir);
 *     }
 * }
 * }
 */
public abstract class StoreContract {

    /** For subclasses. */
    protected StoreContract() {
    }

    /**
     * A new, empty, writable store.
     *
     * @param dir an empty directory the store may use, deleted after the test
     * @return the store, which the contract closes after each test
     * @throws Exception when the store cannot be made; the test fails with it
     */
    protected abstract Store newStore(Path dir) throws Exception;

    /** The test's temporary directory, the one given to {@link #newStore}. */
    @TempDir
    protected Path dir;

    /** The store under test, fresh for each test. */
    protected Store store;

    /** Where reads land; closed after each test. */
    protected Arena arena;

    @BeforeEach
    void openStore() throws Exception {
        store = newStore(dir);
        arena = Arena.ofShared();
    }

    @AfterEach
    void closeStore() {
        store.close();
        arena.close();
    }

    // ---- helpers shared with the subclasses ----

    /**
     * The seed of a test's random data: {@code -Dzd.seed=N}, else a new one. Put it in messages.
     *
     * @return the seed
     */
    protected static long seed() {
        return Long.getLong("zd.seed", System.nanoTime());
    }

    /**
     * Random bytes.
     *
     * @param random the source
     * @param size   how many
     * @return a new array
     */
    protected static byte[] randomBytes(Random random, int size) {
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        return bytes;
    }

    /**
     * Stores {@code bytes} under {@code key}.
     *
     * @param key   the key
     * @param bytes the value
     */
    protected void put(String key, byte[] bytes) {
        store.set(key, MemorySegment.ofArray(bytes));
    }

    /**
     * Reads a range of a key.
     *
     * @param key   the key
     * @param range the range
     * @return the bytes, or null when the key is missing
     */
    protected byte[] read(String key, ByteRange range) {
        return store.get(key, range, arena).map(s -> s.toArray(ValueLayout.JAVA_BYTE)).orElse(null);
    }

    /**
     * Reads a whole key.
     *
     * @param key the key
     * @return the bytes, or null when the key is missing
     */
    protected byte[] read(String key) {
        return read(key, ByteRange.ALL);
    }

    // ---- round trips ----

    @Test
    void setThenGetReturnsTheSameBytesForSizesFromZeroToThreeMiB() {
        long seed = seed();
        Random random = new Random(seed);
        int[] sizes = {0, 1, 2, 7, 4096, 65_537, 3 << 20,
                random.nextInt(1 << 16), random.nextInt(1 << 20), random.nextInt(3 << 20)};
        for (int i = 0; i < sizes.length; i++) {
            byte[] value = randomBytes(random, sizes[i]);
            String key = "arr/c/" + i;
            put(key, value);
            assertEquals(sizes[i], store.size(key), "size of " + key + " (seed " + seed + ")");
            assertArrayEquals(value, read(key), "value of " + key + ", " + sizes[i] + " bytes (seed " + seed + ")");
            assertTrue(store.exists(key), key + " exists");
        }
    }

    @Test
    void getCopiesIntoTheCallersAllocatorSoLaterWritesDoNotChangeIt() {
        byte[] first = {1, 2, 3};
        put("k", first);
        MemorySegment got = store.get("k", arena).orElseThrow();
        put("k", new byte[] {9, 9, 9});
        assertArrayEquals(first, got.toArray(ValueLayout.JAVA_BYTE));
        assertTrue(arena.scope().equals(got.scope()), "the segment comes from the caller's arena");
    }

    @Test
    void setCopiesTheValueSoLaterChangesToTheSourceDoNotLeakIn() {
        byte[] source = {1, 2, 3, 4};
        put("k", source);
        source[0] = 42;
        assertArrayEquals(new byte[] {1, 2, 3, 4}, read("k"));
    }

    @Test
    void setAcceptsNativeSegmentsAndSlices() {
        MemorySegment big = arena.allocate(100);
        for (int i = 0; i < 100; i++) {
            big.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        store.set("slice", big.asSlice(10, 20));
        byte[] expected = new byte[20];
        for (int i = 0; i < 20; i++) {
            expected[i] = (byte) (10 + i);
        }
        assertArrayEquals(expected, read("slice"));
    }

    // ---- ranges ----

    @Test
    void rangeFromOffsetAndSuffixReadsReturnExactlyTheRequestedBytes() {
        long seed = seed();
        byte[] value = randomBytes(new Random(seed), 1000);
        put("v", value);
        record Case(ByteRange range, int from, int to) {
        }
        List<Case> cases = List.of(
                new Case(ByteRange.of(0, 1000), 0, 1000),
                new Case(ByteRange.of(10, 90), 10, 100),
                new Case(ByteRange.of(999, 1), 999, 1000),
                new Case(ByteRange.of(1000, 0), 1000, 1000),
                new Case(ByteRange.of(0, 0), 0, 0),
                new Case(ByteRange.from(0), 0, 1000),
                new Case(ByteRange.from(250), 250, 1000),
                new Case(ByteRange.from(1000), 1000, 1000),
                new Case(ByteRange.suffix(16), 984, 1000),
                new Case(ByteRange.suffix(1000), 0, 1000),
                new Case(ByteRange.suffix(0), 1000, 1000));
        for (Case c : cases) {
            byte[] expected = Arrays.copyOfRange(value, c.from, c.to);
            assertArrayEquals(expected, read("v", c.range), c.range + " of a 1000-byte value (seed " + seed + ")");
        }
    }

    @Test
    void rangesOutsideTheValueAreRejectedNamingTheKeyTheRangeAndTheLength() {
        put("group/arr/c/0", new byte[100]);
        List<ByteRange> bad = List.of(ByteRange.of(90, 11), ByteRange.of(100, 1), ByteRange.of(101, 0),
                ByteRange.of(Long.MAX_VALUE - 1, 2), ByteRange.from(101), ByteRange.suffix(101));
        for (ByteRange range : bad) {
            StoreException e = assertThrows(StoreException.class, () -> store.get("group/arr/c/0", range, arena),
                    range + " of a 100-byte value");
            assertAll(range.toString(),
                    () -> assertTrue(e.getMessage().contains("\"group/arr/c/0\""), "names the key: " + e.getMessage()),
                    () -> assertTrue(e.getMessage().contains("100"), "names the length: " + e.getMessage()),
                    () -> assertTrue(e.getMessage().contains(range.toString()), "names the range: " + e.getMessage()),
                    () -> assertTrue(e.getMessage().contains(store.toString()), "names the store: " + e.getMessage()),
                    () -> assertEquals("group/arr/c/0", e.key()));
        }
    }

    @Test
    void anEmptyValueFitsOnlyEmptyRanges() {
        put("empty", new byte[0]);
        assertArrayEquals(new byte[0], read("empty", ByteRange.suffix(0)));
        assertArrayEquals(new byte[0], read("empty", ByteRange.from(0)));
        assertThrows(StoreException.class, () -> store.get("empty", ByteRange.suffix(1), arena));
        assertThrows(StoreException.class, () -> store.get("empty", ByteRange.of(0, 1), arena));
    }

    // ---- missing keys, overwrite, delete ----

    @Test
    void missingKeysReadAsEmptyWithSizeMinusOne() {
        put("a/present", new byte[] {1});
        assertEquals(Optional.empty(), store.get("a/absent", arena));
        assertEquals(Optional.empty(), store.get("a/absent", ByteRange.suffix(4), arena));
        assertEquals(Optional.empty(), store.get("never/there", arena));
        assertEquals(-1, store.size("a/absent"));
        assertFalse(store.exists("a/absent"));
    }

    @Test
    void aKeyUnderAnExistingValueReadsAsMissing() {
        put("leaf", new byte[] {1});
        assertEquals(Optional.empty(), store.get("leaf/below", arena));
        assertEquals(-1, store.size("leaf/below"));
    }

    @Test
    void aDirectoryOfKeysIsNotItselfAValue() {
        put("group/zarr.json", new byte[] {1});
        assertEquals(Optional.empty(), store.get("group", arena));
        assertEquals(-1, store.size("group"));
    }

    @Test
    void overwriteReplacesTheValueWithALongerOrShorterOne() {
        put("k", new byte[] {1, 2, 3});
        put("k", new byte[] {4, 5, 6, 7, 8});
        assertArrayEquals(new byte[] {4, 5, 6, 7, 8}, read("k"));
        put("k", new byte[] {9});
        assertArrayEquals(new byte[] {9}, read("k"));
        assertEquals(1, store.size("k"));
        assertEquals(List.of("k"), store.list(""));
    }

    @Test
    void deleteRemovesTheKeyAndDeletingAMissingKeyIsHarmless() {
        put("a/b/c", new byte[] {1});
        put("a/d", new byte[] {2});
        store.delete("a/b/c");
        assertEquals(-1, store.size("a/b/c"));
        assertEquals(List.of("a/d"), store.list(""));
        assertEquals(List.of("a/d"), store.listDir("a/"));
        store.delete("a/b/c");
        store.delete("never/there");
        store.delete("a/d/below");
        assertArrayEquals(new byte[] {2}, read("a/d"));
    }

    @Test
    void deletePrefixRemovesOnlyKeysUnderThePrefix() {
        put("t2m/zarr.json", new byte[] {1});
        put("t2m/c/0", new byte[] {2});
        put("t2m2/zarr.json", new byte[] {3});
        store.deletePrefix("t2m/");
        assertEquals(List.of("t2m2/zarr.json"), store.list(""));
    }

    // ---- listing ----

    @Test
    void listReturnsEveryKeyWithThePrefixSorted() {
        List<String> keys = List.of("zarr.json", "t2m/zarr.json", "t2m/c/0/0", "t2m/c/0/1", "t2m/c/10/0",
                "t2m/c/1/0", "u10/zarr.json", "a.b", "t2", "t2m.json");
        for (String k : keys) {
            put(k, k.getBytes(StandardCharsets.UTF_8));
        }
        List<String> all = new ArrayList<>(keys);
        all.sort(null);
        assertEquals(all, store.list(""));
        assertEquals(List.of("t2m/c/0/0", "t2m/c/0/1", "t2m/c/1/0", "t2m/c/10/0"), store.list("t2m/c/"));
        assertEquals(List.of("t2m/c/1/0", "t2m/c/10/0"), store.list("t2m/c/1"));
        assertEquals(List.of("t2", "t2m.json", "t2m/c/0/0", "t2m/c/0/1", "t2m/c/1/0", "t2m/c/10/0", "t2m/zarr.json"),
                store.list("t2"));
        assertEquals(List.of(), store.list("nothing/"));
    }

    @Test
    void listDirReturnsImmediateChildrenWithSubdirectoriesEndingInSlash() {
        for (String k : List.of("zarr.json", "t2m/zarr.json", "t2m/c/0/0", "t2m/c/1/0", "t2m.json", "u10/zarr.json",
                "t2m/attrs")) {
            put(k, new byte[] {1});
        }
        assertEquals(List.of("t2m.json", "t2m/", "u10/", "zarr.json"), store.listDir(""));
        assertEquals(List.of("t2m/attrs", "t2m/c/", "t2m/zarr.json"), store.listDir("t2m/"));
        assertEquals(List.of("t2m/c/0/", "t2m/c/1/"), store.listDir("t2m/c/"));
        assertEquals(List.of("t2m/c/0/0"), store.listDir("t2m/c/0/"));
        assertEquals(List.of(), store.listDir("missing/"));
    }

    @Test
    void listingAnEmptyStoreIsEmpty() {
        assertEquals(List.of(), store.list(""));
        assertEquals(List.of(), store.listDir(""));
    }

    // ---- invalid keys ----

    @Test
    void invalidKeysAreRefusedByEveryOperation() {
        MemorySegment value = MemorySegment.ofArray(new byte[] {1});
        List<String> invalid = List.of("/abs", "a/../b", "..", "a//b", "a\\b", "", ".", "a/./b", "a/", "..\\x");
        List<Executable> checks = new ArrayList<>();
        for (String key : invalid) {
            Map<String, Executable> ops = Map.of(
                    "get", () -> store.get(key, arena),
                    "range get", () -> store.get(key, ByteRange.suffix(1), arena),
                    "set", () -> store.set(key, value),
                    "delete", () -> store.delete(key),
                    "size", () -> store.size(key),
                    "exists", () -> store.exists(key));
            ops.forEach((name, op) -> checks.add(() -> {
                InvalidKeyException e = assertThrows(InvalidKeyException.class, op, name + "(\"" + key + "\")");
                assertTrue(e.getMessage().contains(store.toString()), "names the store: " + e.getMessage());
            }));
        }
        assertAll(checks);
        assertEquals(List.of(), store.list(""), "no invalid write left anything behind");
    }

    @Test
    void invalidPrefixesAreRefusedByListing() {
        for (String prefix : List.of("/abs/", "../", "a//", "a/../")) {
            assertThrows(InvalidKeyException.class, () -> store.list(prefix), "list(\"" + prefix + "\")");
            assertThrows(InvalidKeyException.class, () -> store.listDir(prefix), "listDir(\"" + prefix + "\")");
        }
    }

    // ---- concurrency ----

    /** Value length for a tag, so that a value spliced from two writes also has the wrong length. */
    private static int lengthOf(int tag) {
        return 1 + tag * 257;
    }

    @Test
    void concurrentWritersAndReadersOnSharedAndOwnKeysSeeOnlyCompleteValues() throws Exception {
        int threads = 8;
        int rounds = 150;
        long seed = seed();
        Map<String, String> torn = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    Random random = new Random(seed + thread);
                    start.await();
                    for (int round = 0; round < rounds; round++) {
                        String key = random.nextBoolean() ? "shared/value" : "own/" + thread;
                        int tag = 1 + random.nextInt(255);
                        byte[] bytes = new byte[lengthOf(tag)];
                        Arrays.fill(bytes, (byte) tag);
                        store.set(key, MemorySegment.ofArray(bytes));
                        checkComplete("shared/value", torn);
                        checkComplete("own/" + thread, torn);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(Map.of(), torn, "torn values seen (seed " + seed + ")");
        List<String> expected = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            expected.add("own/" + t);
        }
        expected.add("shared/value");
        expected.sort(null);
        assertEquals(expected, store.list(""), "only complete keys are listed, no temporary files");
    }

    private void checkComplete(String key, Map<String, String> torn) {
        try (Arena local = Arena.ofConfined()) {
            Optional<MemorySegment> got = store.get(key, local);
            if (got.isEmpty()) {
                return;
            }
            MemorySegment seg = got.get();
            int tag = seg.byteSize() == 0 ? -1 : Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, 0));
            if (seg.byteSize() != lengthOf(tag)) {
                torn.put(key, "length " + seg.byteSize() + " for tag " + tag);
                return;
            }
            for (long i = 0; i < seg.byteSize(); i++) {
                int b = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, i));
                if (b != tag) {
                    torn.put(key, "byte " + i + " is " + b + ", byte 0 is " + tag);
                    return;
                }
            }
        }
    }

    // ---- lifetime ----

    @Test
    void closingTwiceIsHarmless() {
        put("k", new byte[] {1});
        store.close();
        store.close();
    }

    @Test
    void useAfterCloseFailsNamingTheStore() {
        put("k", new byte[] {1});
        store.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.get("k", arena));
        assertTrue(e.getMessage().contains(store.toString()), e.getMessage());
        assertThrows(IllegalStateException.class, () -> store.set("k", MemorySegment.ofArray(new byte[1])));
        assertThrows(IllegalStateException.class, () -> store.list(""));
    }

    @Test
    void aNewStoreSaysItIsWritable() {
        assertFalse(store.isReadOnly());
    }
}
