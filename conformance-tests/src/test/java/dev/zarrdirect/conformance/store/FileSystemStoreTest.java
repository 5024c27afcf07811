// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.store;

import dev.zarrdirect.testing.StoreContract;
import dev.zarrdirect.api.InvalidKeyException;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.store.fs.FileSystemStore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileSystemStoreTest extends StoreContract {

    @Override
    protected Store newStore(Path dir) {
        return FileSystemStore.create(dir.resolve("store.zarr"));
    }

    private Path root() {
        return dir.resolve("store.zarr").toAbsolutePath();
    }

    private List<Path> tempFiles() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
        }
    }

    @Test
    void keysMapToFilesUnderTheRoot() throws IOException {
        put("zarr.json", new byte[] {1});
        put("t2m/c/0/3/1", new byte[] {2, 3});
        assertArrayEquals(new byte[] {1}, Files.readAllBytes(root().resolve("zarr.json")));
        assertArrayEquals(new byte[] {2, 3}, Files.readAllBytes(root().resolve("t2m/c/0/3/1")));
        assertEquals(root().resolve("t2m/c/0/3/1"), ((FileSystemStore) store).pathOf("t2m/c/0/3/1"));
    }

    @Test
    void filesWrittenByOthersAreReadAndListed() throws IOException {
        Files.createDirectories(root().resolve("g/a"));
        Files.write(root().resolve("g/a/zarr.json"), new byte[] {7, 8, 9});
        assertArrayEquals(new byte[] {8, 9}, read("g/a/zarr.json", ByteRange.suffix(2)));
        assertEquals(List.of("g/a/zarr.json"), store.list(""));
        assertEquals(List.of("g/a/"), store.listDir("g/"));
    }

    @Test
    void describesItselfWithItsAbsoluteRoot() {
        assertEquals("FileSystemStore(root=" + root() + ")", store.toString());
    }

    @Test
    void openingAMissingDirectoryFailsNamingIt() {
        Path missing = dir.resolve("nope.zarr");
        StoreException e = assertThrows(StoreException.class, () -> FileSystemStore.open(missing));
        assertTrue(e.getMessage().contains(missing.toString()) && e.getMessage().contains("does not exist"),
                e.getMessage());
        assertFalse(Files.exists(missing), "open must not create the directory");
    }

    @Test
    void openingAFileFailsSayingItIsNotADirectory() throws IOException {
        Path file = Files.write(dir.resolve("plain.bin"), new byte[] {1});
        StoreException e = assertThrows(StoreException.class, () -> FileSystemStore.open(file));
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("not a directory"),
                e.getMessage());
        assertThrows(StoreException.class, () -> FileSystemStore.create(file));
    }

    @Test
    void aReadOnlyStoreRefusesWritesAndKeepsTheOldValue() {
        put("k", new byte[] {1, 2});
        try (FileSystemStore readOnly = FileSystemStore.openReadOnly(root())) {
            assertTrue(readOnly.isReadOnly());
            StoreException e = assertThrows(StoreException.class,
                    () -> readOnly.set("k", MemorySegment.ofArray(new byte[] {3})));
            assertTrue(e.getMessage().contains("read-only") && e.getMessage().contains("\"k\""), e.getMessage());
            assertThrows(StoreException.class, () -> readOnly.delete("k"));
            assertThrows(InvalidKeyException.class, () -> readOnly.set("../k", MemorySegment.ofArray(new byte[1])),
                    "keys are checked before the read-only refusal");
            assertEquals(2, readOnly.size("k"));
        }
        assertArrayEquals(new byte[] {1, 2}, read("k"));
    }

    @Test
    void writingOverADirectoryFailsLeavingItsKeysAndNoTemporaryFile() throws IOException {
        put("d/x", new byte[] {1});
        StoreException e = assertThrows(StoreException.class, () -> put("d", new byte[] {2}));
        assertTrue(e.getMessage().contains("\"d\"") && e.getMessage().contains(store.toString()), e.getMessage());
        assertArrayEquals(new byte[] {1}, read("d/x"));
        assertEquals(List.of(), tempFiles());
    }

    @Test
    void writingBelowAValueFailsLeavingTheValue() throws IOException {
        put("leaf", new byte[] {1});
        assertThrows(StoreException.class, () -> put("leaf/below", new byte[] {2}));
        assertArrayEquals(new byte[] {1}, read("leaf"));
        assertEquals(List.of(), tempFiles());
    }

    @Test
    void aWriteThatFailsMidwayKeepsTheOldValueAndRemovesItsTemporaryFile() throws IOException {
        put("k", new byte[] {1, 2, 3});
        MemorySegment gone;
        try (Arena closed = Arena.ofConfined()) {
            gone = closed.allocate(1 << 20);
        }
        MemorySegment unreadable = gone;
        assertThrows(IllegalStateException.class, () -> store.set("k", unreadable));
        assertArrayEquals(new byte[] {1, 2, 3}, read("k"));
        assertEquals(List.of(), tempFiles());
    }

    @Test
    void noTemporaryFilesAreLeftAfterManyWrites() throws IOException {
        Random random = new Random(seed());
        for (int i = 0; i < 200; i++) {
            put("a/" + (i % 7), randomBytes(random, random.nextInt(5000)));
        }
        assertEquals(List.of(), tempFiles());
        assertEquals(7, store.list("a/").size());
    }

    @Test
    void temporaryFilesOfOtherWritersAreNotListed() throws IOException {
        put("a/zarr.json", new byte[] {1});
        Files.write(root().resolve("a/.zarr.json.zd1f-2a.tmp"), new byte[] {9});
        assertEquals(List.of("a/zarr.json"), store.list(""));
        assertEquals(List.of("a/zarr.json"), store.listDir("a/"));
        assertThrows(InvalidKeyException.class, () -> store.get("a/.zarr.json.zd1f-2a.tmp", arena));
    }

    @Test
    void deletePrunesEmptyDirectoriesUpToButNotIncludingTheRoot() {
        put("a/b/c/d", new byte[] {1});
        put("a/x", new byte[] {1});
        store.delete("a/b/c/d");
        assertFalse(Files.exists(root().resolve("a/b")), "a/b is empty and pruned");
        assertTrue(Files.isDirectory(root().resolve("a")), "a still holds a/x");
        store.delete("a/x");
        assertFalse(Files.exists(root().resolve("a")));
        assertTrue(Files.isDirectory(root()), "the root stays");
    }

    @Test
    void aSymbolicLinkInsideTheRootPointingOutsideIsRefused() throws IOException {
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.write(outside.resolve("secret"), new byte[] {42});
        Files.createSymbolicLink(root().resolve("escape"), outside);
        Files.createSymbolicLink(root().resolve("file-link"), outside.resolve("secret"));
        MemorySegment one = MemorySegment.ofArray(new byte[] {1});
        for (String key : List.of("escape/secret", "escape/new", "file-link")) {
            InvalidKeyException e = assertThrows(InvalidKeyException.class, () -> store.get(key, arena), key);
            assertTrue(e.getMessage().contains("outside the store root"), e.getMessage());
            assertThrows(InvalidKeyException.class, () -> store.size(key), key);
            assertThrows(InvalidKeyException.class, () -> store.set(key, one), key);
            assertThrows(InvalidKeyException.class, () -> store.delete(key), key);
        }
        assertThrows(InvalidKeyException.class, () -> store.list("escape/"));
        assertThrows(InvalidKeyException.class, () -> store.listDir("escape/"));
        assertEquals(List.of(), store.list(""), "links out of the root are not listed");
        assertEquals(List.of("secret"), Files.list(outside).map(p -> p.getFileName().toString()).toList());
        assertArrayEquals(new byte[] {42}, Files.readAllBytes(outside.resolve("secret")));
    }

    @Test
    void aDanglingSymbolicLinkIsRefused() throws IOException {
        Files.createSymbolicLink(root().resolve("dangling"), dir.resolve("does-not-exist"));
        assertThrows(InvalidKeyException.class, () -> store.set("dangling/x", MemorySegment.ofArray(new byte[1])));
        assertFalse(Files.exists(dir.resolve("does-not-exist")));
    }

    @Test
    void aSymbolicLinkThatStaysInsideTheRootIsFollowed() throws IOException {
        put("real/zarr.json", new byte[] {5});
        Files.createSymbolicLink(root().resolve("alias"), root().resolve("real"));
        assertArrayEquals(new byte[] {5}, read("alias/zarr.json"));
    }

    @Test
    void aRootThatIsItselfALinkWorks() throws IOException {
        put("k", new byte[] {3});
        Path link = Files.createSymbolicLink(dir.resolve("link.zarr"), root());
        try (FileSystemStore viaLink = FileSystemStore.open(link)) {
            assertEquals(1, viaLink.size("k"));
            viaLink.set("j", MemorySegment.ofArray(new byte[] {4}));
        }
        assertArrayEquals(new byte[] {4}, read("j"));
    }

    @Test
    void syncedWritesRoundTrip() {
        FileSystemStore synced = ((FileSystemStore) store).withFsync(true);
        synced.set("a/b", MemorySegment.ofArray(new byte[] {1, 2}));
        assertArrayEquals(new byte[] {1, 2}, read("a/b"));
    }

    @Test
    void readsAtOffsetsBeyondTwoGiBInASparseFile() throws IOException {
        long size = (2L << 30) + 64;
        Path file = root().resolve("big");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
            raf.seek(size - 8);
            raf.write(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        }
        assertEquals(size, store.size("big"));
        assertArrayEquals(new byte[] {0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, read("big", ByteRange.suffix(10)));
        assertArrayEquals(new byte[] {5, 6}, read("big", ByteRange.of(size - 4, 2)));
        assertThrows(StoreException.class, () -> store.get("big", ByteRange.of(size - 4, 5), arena));
    }

    /** Reads and writes a 2 GiB + 3 byte value: needs about 5 GiB of memory and disk, so it is opt-in. */
    @Test
    @EnabledIfSystemProperty(named = "zd.test.large", matches = "true")
    void valuesLargerThanTwoGiBRoundTrip() {
        long size = (2L << 30) + 3;
        MemorySegment value = arena.allocate(size);
        value.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
        value.set(ValueLayout.JAVA_BYTE, (1L << 31) - 1, (byte) 2);
        value.set(ValueLayout.JAVA_BYTE, 1L << 31, (byte) 3);
        value.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 4);
        store.set("huge", value);
        assertEquals(size, store.size("huge"));
        try (Arena local = Arena.ofConfined()) {
            MemorySegment back = store.get("huge", local).orElseThrow();
            assertEquals(-1L, back.mismatch(value));
        }
    }
}
