// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.store;

import dev.zarrdirect.testing.ReadOnlyStoreContract;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.store.zip.ZipStore;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Archives written by {@link ZipStore#create}, closed, and opened again for reading. */
class ZipStoreReadTest extends ReadOnlyStoreContract {

    @Override
    protected Store openReadOnly(Path dir, Map<String, byte[]> contents) {
        Path file = dir.resolve("written.zip");
        try (ZipStore writer = ZipStore.create(file)) {
            contents.forEach((k, v) -> writer.set(k, MemorySegment.ofArray(v)));
        }
        return ZipStore.open(file);
    }

    /** Writes an archive with java.util.zip: DEFLATED entries, or STORED ones when {@code stored}. */
    static Path writeWithJdk(Path file, Map<String, byte[]> entries, boolean stored) throws IOException {
        try (OutputStream out = Files.newOutputStream(file); ZipOutputStream zip = new ZipOutputStream(out)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                ZipEntry entry = new ZipEntry(e.getKey());
                if (stored && !e.getKey().endsWith("/")) {
                    CRC32 crc = new CRC32();
                    crc.update(e.getValue());
                    entry.setMethod(ZipEntry.STORED);
                    entry.setSize(e.getValue().length);
                    entry.setCompressedSize(e.getValue().length);
                    entry.setCrc(crc.getValue());
                }
                zip.putNextEntry(entry);
                zip.write(e.getValue());
                zip.closeEntry();
            }
        }
        return file;
    }

    @Test
    void describesItselfWithTheArchivePath() throws Exception {
        open(Map.of("zarr.json", new byte[] {1}));
        assertEquals("ZipStore(file=" + dir.resolve("written.zip").toAbsolutePath() + ")", store.toString());
        assertEquals("", ((ZipStore) store).root());
    }

    @Test
    void aHierarchyUnderOneTopLevelFolderIsFoundAndKeysAreRelativeToIt() throws Exception {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put("era5.zarr/", new byte[0]);
        entries.put("era5.zarr/zarr.json", new byte[] {1});
        entries.put("era5.zarr/t2m/zarr.json", new byte[] {2});
        entries.put("era5.zarr/t2m/c/0/0", new byte[] {3, 4});
        entries.put("__MACOSX/era5.zarr/._zarr.json", new byte[] {9});
        Path file = writeWithJdk(dir.resolve("folder.zip"), entries, false);
        try (ZipStore zip = ZipStore.open(file)) {
            assertEquals("era5.zarr/", zip.root());
            assertTrue(zip.toString().contains("root=era5.zarr/"), zip.toString());
            assertEquals(List.of("t2m/c/0/0", "t2m/zarr.json", "zarr.json"), zip.list(""));
            assertEquals(List.of("t2m/", "zarr.json"), zip.listDir(""));
            assertArrayEquals(new byte[] {3, 4}, zip.get("t2m/c/0/0", arena).orElseThrow().toArray(
                    java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void aSingleTopLevelFolderNotNamedDotZarrStaysInTheKeysUnlessNamedExplicitly() throws Exception {
        Path file = writeWithJdk(dir.resolve("plain.zip"), Map.of("t2m/zarr.json", new byte[] {1},
                "t2m/c/0", new byte[] {2}), true);
        try (ZipStore zip = ZipStore.open(file)) {
            assertEquals("", zip.root(), "t2m/ may be the one array of a root without metadata");
            assertEquals(List.of("t2m/c/0", "t2m/zarr.json"), zip.list(""));
        }
        try (ZipStore zip = ZipStore.open(file, "t2m")) {
            assertEquals("t2m/", zip.root());
            assertEquals(List.of("c/0", "zarr.json"), zip.list(""));
        }
        try (ZipStore zip = ZipStore.open(file, "")) {
            assertEquals(List.of("t2m/c/0", "t2m/zarr.json"), zip.list(""));
        }
    }

    @Test
    void twoTopLevelFoldersMeanTheHierarchyStartsAtTheTop() throws Exception {
        Path file = writeWithJdk(dir.resolve("two.zip"), Map.of("a.zarr/zarr.json", new byte[] {1},
                "b.zarr/zarr.json", new byte[] {2}), true);
        try (ZipStore zip = ZipStore.open(file)) {
            assertEquals("", zip.root());
            assertEquals(List.of("a.zarr/", "b.zarr/"), zip.listDir(""));
        }
    }

    @Test
    void entriesWithNamesThatAreNotKeysAreIgnored() throws Exception {
        Path file = writeWithJdk(dir.resolve("odd.zip"), Map.of("../escape", new byte[] {1}, "/abs", new byte[] {2},
                "ok", new byte[] {3}), true);
        try (ZipStore zip = ZipStore.open(file)) {
            assertEquals(List.of("ok"), zip.list(""));
        }
    }

    @Test
    void aCorruptedStoredValueFailsItsCrcOnWholeReadsNamingTheEntry() throws Exception {
        byte[] value = new byte[1000];
        Arrays.fill(value, (byte) 5);
        Path file = writeWithJdk(dir.resolve("crc.zip"), Map.of("chunk", value), true);
        byte[] bytes = Files.readAllBytes(file);
        int at = indexOf(bytes, value);
        bytes[at + 500] ^= 1;
        Files.write(file, bytes);
        try (ZipStore zip = ZipStore.open(file)) {
            StoreException e = assertThrows(StoreException.class, () -> zip.get("chunk", arena));
            assertTrue(e.getMessage().contains("CRC-32") && e.getMessage().contains("\"chunk\"")
                    && e.getMessage().contains(zip.toString()), e.getMessage());
            assertEquals(10, zip.get("chunk", ByteRange.of(0, 10), arena).orElseThrow().byteSize(),
                    "range reads cannot check the CRC and still work");
        }
    }

    @Test
    void anUnsupportedCompressionMethodIsRefusedNamingIt() throws Exception {
        Path file = writeWithJdk(dir.resolve("zstd.zip"), Map.of("chunk", new byte[] {1, 2, 3}), true);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer all = ByteBuffer.allocate((int) ch.size()).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(all, 0);
            for (int p = 0; p + 4 <= all.limit(); p++) {
                int sig = all.getInt(p);
                if (sig == 0x04034b50) {
                    ch.write(ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 93), p + 8);
                } else if (sig == 0x02014b50) {
                    ch.write(ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 93), p + 10);
                }
            }
        }
        try (ZipStore zip = ZipStore.open(file)) {
            assertEquals(3, zip.size("chunk"));
            StoreException e = assertThrows(StoreException.class, () -> zip.get("chunk", arena));
            assertTrue(e.getMessage().contains("ZSTD") && e.getMessage().contains("STORED"), e.getMessage());
        }
    }

    @Test
    void aFileThatIsNotAZipIsRefusedSayingSo() throws IOException {
        Path file = Files.write(dir.resolve("not.zip"), "hello, this is text".getBytes());
        StoreException e = assertThrows(StoreException.class, () -> ZipStore.open(file));
        assertTrue(e.getMessage().contains("not a zip archive") && e.getMessage().contains(file.toString()),
                e.getMessage());
        StoreException missing = assertThrows(StoreException.class, () -> ZipStore.open(dir.resolve("none.zip")));
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
    }

    @Test
    void aTruncatedArchiveIsRefusedAsCorruptOrNotAZip() throws IOException {
        Random random = new Random(seed());
        Path file = writeWithJdk(dir.resolve("cut.zip"), Map.of("a", randomBytes(random, 5000),
                "b", randomBytes(random, 5000)), true);
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 30));
        assertThrows(StoreException.class, () -> ZipStore.open(file));
    }

    @Test
    void aMissingKeyStaysMissingForRangedAndEmptyReads() throws Exception {
        open(Map.of("k", new byte[] {1}));
        assertEquals(Optional.empty(), store.get("k2", ByteRange.from(0), arena));
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("value not found in the archive");
    }
}
