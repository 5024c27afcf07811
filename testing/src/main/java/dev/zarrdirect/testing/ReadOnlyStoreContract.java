// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.InvalidKeyException;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
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
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What every read-only {@link Store} must do: a subclass builds a store holding given contents
 * (through whatever writes that kind of store: a zip writer, files behind a web server), and the
 * tests read it back. The read side of {@link StoreContract}, plus the refusal of writes.
 */
public abstract class ReadOnlyStoreContract {

    /** For subclasses. */
    protected ReadOnlyStoreContract() {
    }

    /**
     * A read-only store holding exactly {@code contents}.
     *
     * @param dir      an empty directory the store may use, deleted after the test
     * @param contents the keys and values it must hold
     * @return the store, which the contract closes after each test
     * @throws Exception when the store cannot be made; the test fails with it
     */
    protected abstract Store openReadOnly(Path dir, Map<String, byte[]> contents) throws Exception;

    /**
     * Whether the store can list its keys; the listing tests are skipped when not (HTTP).
     *
     * @return true by default
     */
    protected boolean supportsListing() {
        return true;
    }

    /** The test's temporary directory, the one given to {@link #openReadOnly}. */
    @TempDir
    protected Path dir;

    /** The store under test, set by {@link #open}. */
    protected Store store;

    /** Where reads land; closed after each test. */
    protected Arena arena;

    @BeforeEach
    void openArena() {
        arena = Arena.ofShared();
    }

    @AfterEach
    void closeStore() throws Exception {
        if (store != null) {
            store.close();
        }
        arena.close();
    }

    /**
     * Opens the store under test holding {@code contents} (through {@link #openReadOnly}).
     *
     * @param contents the keys and values
     * @return the store, also in {@link #store}
     * @throws Exception when {@link #openReadOnly} fails
     */
    protected Store open(Map<String, byte[]> contents) throws Exception {
        store = openReadOnly(dir, contents);
        return store;
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
     * Bytes that deflate well, like most Zarr chunks, but are not all alike.
     *
     * @param random the source
     * @param size   how many
     * @return a new array
     */
    protected static byte[] compressibleBytes(Random random, int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) ((i / 64) % 7 + (random.nextInt(16) == 0 ? random.nextInt(256) : 0));
        }
        return bytes;
    }

    // ---- round trips and ranges ----

    @Test
    void valuesFromZeroToThreeMiBReadBackWithTheirSizes() throws Exception {
        long seed = seed();
        Random random = new Random(seed);
        int[] sizes = {0, 1, 2, 7, 4096, 65_537, 3 << 20, random.nextInt(1 << 16), random.nextInt(1 << 20)};
        Map<String, byte[]> contents = new LinkedHashMap<>();
        for (int i = 0; i < sizes.length; i++) {
            contents.put("arr/c/" + i, i % 2 == 0 ? randomBytes(random, sizes[i]) : compressibleBytes(random, sizes[i]));
        }
        open(contents);
        for (Map.Entry<String, byte[]> e : contents.entrySet()) {
            String key = e.getKey();
            assertEquals(e.getValue().length, store.size(key), "size of " + key + " (seed " + seed + ")");
            assertArrayEquals(e.getValue(), read(key), "value of " + key + " (seed " + seed + ")");
            assertTrue(store.exists(key), key + " exists");
        }
    }

    @Test
    void rangeFromOffsetAndSuffixReadsReturnExactlyTheRequestedBytes() throws Exception {
        long seed = seed();
        Random random = new Random(seed);
        byte[] noise = randomBytes(random, 1000);
        byte[] smooth = compressibleBytes(random, 200_000);
        open(Map.of("v", noise, "smooth", smooth));
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
            assertArrayEquals(Arrays.copyOfRange(noise, c.from, c.to), read("v", c.range),
                    c.range + " of a 1000-byte value (seed " + seed + ")");
        }
        for (ByteRange r : List.of(ByteRange.of(150_000, 40_000), ByteRange.suffix(70_000), ByteRange.from(199_999),
                ByteRange.of(65_536, 65_536))) {
            int from = (int) r.start(smooth.length);
            assertArrayEquals(Arrays.copyOfRange(smooth, from, from + (int) r.lengthIn(smooth.length)),
                    read("smooth", r), r + " of a 200000-byte value (seed " + seed + ")");
        }
    }

    @Test
    void rangesOutsideTheValueAreRejectedNamingTheKeyTheRangeAndTheLength() throws Exception {
        open(Map.of("group/arr/c/0", new byte[100]));
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
    void anEmptyValueFitsOnlyEmptyRanges() throws Exception {
        open(Map.of("empty", new byte[0]));
        assertArrayEquals(new byte[0], read("empty"));
        assertArrayEquals(new byte[0], read("empty", ByteRange.suffix(0)));
        assertArrayEquals(new byte[0], read("empty", ByteRange.from(0)));
        assertThrows(StoreException.class, () -> store.get("empty", ByteRange.suffix(1), arena));
        assertThrows(StoreException.class, () -> store.get("empty", ByteRange.of(0, 1), arena));
    }

    @Test
    void readsLandInWhateverMemoryTheCallerAllocates() throws Exception {
        byte[] value = randomBytes(new Random(seed()), 5000);
        open(Map.of("k", value));
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment got = store.get("k", ByteRange.of(100, 4000), confined).orElseThrow();
            assertEquals(confined.scope(), got.scope(), "the segment comes from the caller's confined arena");
            assertArrayEquals(Arrays.copyOfRange(value, 100, 4100), got.toArray(ValueLayout.JAVA_BYTE));
        }
        long[] longs = new long[1000];
        SegmentAllocator heap = SegmentAllocator.slicingAllocator(MemorySegment.ofArray(longs));
        MemorySegment got = store.get("k", ByteRange.suffix(3000), heap).orElseThrow();
        assertArrayEquals(Arrays.copyOfRange(value, 2000, 5000), got.toArray(ValueLayout.JAVA_BYTE),
                "a heap segment over long[] (no byte[] view)");
        MemorySegment whole = store.get("k", SegmentAllocator.slicingAllocator(MemorySegment.ofArray(new long[1000])))
                .orElseThrow();
        assertArrayEquals(value, whole.toArray(ValueLayout.JAVA_BYTE));
    }

    // ---- missing keys ----

    @Test
    void missingKeysReadAsEmptyWithSizeMinusOne() throws Exception {
        open(Map.of("a/present", new byte[] {1}));
        assertEquals(Optional.empty(), store.get("a/absent", arena));
        assertEquals(Optional.empty(), store.get("a/absent", ByteRange.suffix(4), arena));
        assertEquals(Optional.empty(), store.get("a/absent", ByteRange.of(0, 0), arena));
        assertEquals(Optional.empty(), store.get("never/there", arena));
        assertEquals(-1, store.size("a/absent"));
        assertFalse(store.exists("a/absent"));
    }

    @Test
    void aKeyUnderAnExistingValueReadsAsMissing() throws Exception {
        open(Map.of("leaf", new byte[] {1}));
        assertEquals(Optional.empty(), store.get("leaf/below", arena));
        assertEquals(-1, store.size("leaf/below"));
    }

    @Test
    void aDirectoryOfKeysIsNotItselfAValue() throws Exception {
        open(Map.of("group/zarr.json", new byte[] {1}));
        assertEquals(Optional.empty(), store.get("group", arena));
        assertEquals(-1, store.size("group"));
    }

    // ---- listing ----

    @Test
    void listReturnsEveryKeyWithThePrefixSorted() throws Exception {
        assumeTrue(supportsListing(), "this store cannot list");
        List<String> keys = List.of("zarr.json", "t2m/zarr.json", "t2m/c/0/0", "t2m/c/0/1", "t2m/c/10/0",
                "t2m/c/1/0", "u10/zarr.json", "a.b", "t2", "t2m.json");
        Map<String, byte[]> contents = new LinkedHashMap<>();
        keys.forEach(k -> contents.put(k, k.getBytes(StandardCharsets.UTF_8)));
        open(contents);
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
    void listDirReturnsImmediateChildrenWithSubdirectoriesEndingInSlash() throws Exception {
        assumeTrue(supportsListing(), "this store cannot list");
        Map<String, byte[]> contents = new LinkedHashMap<>();
        for (String k : List.of("zarr.json", "t2m/zarr.json", "t2m/c/0/0", "t2m/c/1/0", "t2m.json", "u10/zarr.json",
                "t2m/attrs")) {
            contents.put(k, new byte[] {1});
        }
        open(contents);
        assertEquals(List.of("t2m.json", "t2m/", "u10/", "zarr.json"), store.listDir(""));
        assertEquals(List.of("t2m/attrs", "t2m/c/", "t2m/zarr.json"), store.listDir("t2m/"));
        assertEquals(List.of("t2m/attrs", "t2m/c/", "t2m/zarr.json"), store.listDir("t2m"));
        assertEquals(List.of("t2m/c/0/", "t2m/c/1/"), store.listDir("t2m/c/"));
        assertEquals(List.of("t2m/c/0/0"), store.listDir("t2m/c/0/"));
        assertEquals(List.of(), store.listDir("missing/"));
    }

    @Test
    void listingAnEmptyStoreIsEmpty() throws Exception {
        assumeTrue(supportsListing(), "this store cannot list");
        open(Map.of());
        assertEquals(List.of(), store.list(""));
        assertEquals(List.of(), store.listDir(""));
    }

    // ---- refusals ----

    @Test
    void writesAreRefusedNamingTheStoreAndTheKey() throws Exception {
        open(Map.of("k", new byte[] {1, 2}));
        assertTrue(store.isReadOnly());
        StoreException set = assertThrows(StoreException.class,
                () -> store.set("k", MemorySegment.ofArray(new byte[] {3})));
        assertTrue(set.getMessage().contains("read-only") && set.getMessage().contains("\"k\"")
                && set.getMessage().contains(store.toString()), set.getMessage());
        assertThrows(StoreException.class, () -> store.delete("k"));
        assertThrows(StoreException.class, () -> store.set("new", MemorySegment.ofArray(new byte[] {3})));
        assertArrayEquals(new byte[] {1, 2}, read("k"));
    }

    @Test
    void invalidKeysAreRefusedByEveryOperation() throws Exception {
        open(Map.of("k", new byte[] {1}));
        MemorySegment value = MemorySegment.ofArray(new byte[] {1});
        List<Executable> checks = new ArrayList<>();
        for (String key : List.of("/abs", "a/../b", "..", "a//b", "a\\b", "", ".", "a/./b", "a/", "..\\x")) {
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
        for (String prefix : List.of("/abs/", "../", "a//", "a/../")) {
            checks.add(() -> assertThrows(InvalidKeyException.class, () -> store.list(prefix), prefix));
            checks.add(() -> assertThrows(InvalidKeyException.class, () -> store.listDir(prefix), prefix));
        }
        assertAll(checks);
    }

    // ---- concurrency and lifetime ----

    @Test
    void concurrentReadersOfRandomRangesSeeTheStoredBytes() throws Exception {
        long seed = seed();
        Random random = new Random(seed);
        Map<String, byte[]> contents = new LinkedHashMap<>();
        for (int i = 0; i < 12; i++) {
            contents.put("c/" + i, i % 2 == 0 ? randomBytes(random, 1 + random.nextInt(100_000))
                    : compressibleBytes(random, 1 + random.nextInt(100_000)));
        }
        open(contents);
        List<String> keys = new ArrayList<>(contents.keySet());
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                long threadSeed = seed + t;
                futures.add(pool.submit(() -> {
                    Random r = new Random(threadSeed);
                    for (int round = 0; round < 40; round++) {
                        String key = keys.get(r.nextInt(keys.size()));
                        byte[] value = contents.get(key);
                        int from = r.nextInt(value.length);
                        int length = r.nextInt(value.length - from + 1);
                        try (Arena local = Arena.ofConfined()) {
                            byte[] got = store.get(key, ByteRange.of(from, length), local).orElseThrow()
                                    .toArray(ValueLayout.JAVA_BYTE);
                            assertArrayEquals(Arrays.copyOfRange(value, from, from + length), got,
                                    key + " bytes " + from + "+" + length + " (seed " + seed + ")");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void closingTwiceIsHarmlessAndUseAfterCloseFailsNamingTheStore() throws Exception {
        open(Map.of("k", new byte[] {1}));
        store.close();
        store.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.get("k", arena));
        assertTrue(e.getMessage().contains(store.toString()), e.getMessage());
        assertThrows(IllegalStateException.class, () -> store.size("k"));
    }
}
