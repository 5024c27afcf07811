// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.store;

import dev.zarrdirect.testing.StoreContract;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.zip.ZipStore;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The writing side of {@link ZipStore} under the full store contract (a store being written reads
 * back what it holds so far), and the archives it leaves behind.
 */
class ZipStoreTest extends StoreContract {

    @Override
    protected Store newStore(Path dir) {
        return ZipStore.create(archive());
    }

    private Path archive() {
        return dir.resolve("store.zip").toAbsolutePath();
    }

    private List<Path> tempFiles() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
        }
    }

    private static byte[] bytesOf(ZipFile zip, String name) throws IOException {
        ZipEntry e = zip.getEntry(name);
        try (InputStream in = zip.getInputStream(e)) {
            return in.readAllBytes();
        }
    }

    @Test
    void describesItselfWithTheArchivePathWhileWriting() {
        assertEquals("ZipStore(file=" + archive() + ", writing)", store.toString());
    }

    @Test
    void theArchiveAppearsWholeOnlyWhenTheStoreIsClosed() throws IOException {
        put("zarr.json", new byte[] {1});
        assertFalse(Files.exists(archive()), "nothing at the target before close");
        assertEquals(1, tempFiles().size(), "one temporary file next to the target");
        store.close();
        assertTrue(Files.isRegularFile(archive()));
        assertEquals(List.of(), tempFiles());
    }

    @Test
    void closingReplacesAnOlderArchiveAndLeavesItUntouchedUntilThen() throws IOException {
        Files.write(archive(), new byte[] {'o', 'l', 'd'});
        put("k", new byte[] {7});
        assertArrayEquals(new byte[] {'o', 'l', 'd'}, Files.readAllBytes(archive()));
        store.close();
        try (ZipStore reopened = ZipStore.open(archive())) {
            assertEquals(List.of("k"), reopened.list(""));
        }
    }

    @Test
    void javaUtilZipReadsTheArchiveAsStoredEntriesWithTheSameBytes() throws IOException {
        Random random = new Random(seed());
        Map<String, byte[]> values = Map.of("zarr.json", "{}".getBytes(), "t2m/c/0/0", randomBytes(random, 70_000),
                "t2m/c/0/1", new byte[0], "ünïcödé/ключ", randomBytes(random, 10));
        values.forEach(this::put);
        store.close();
        try (ZipFile zip = new ZipFile(archive().toFile())) {
            assertEquals(values.size(), zip.size());
            for (Map.Entry<String, byte[]> v : values.entrySet()) {
                ZipEntry e = zip.getEntry(v.getKey());
                assertEquals(ZipEntry.STORED, e.getMethod(), v.getKey());
                assertArrayEquals(v.getValue(), bytesOf(zip, v.getKey()), v.getKey());
            }
        }
    }

    @Test
    void aKeySetTwiceKeepsTheLastValueAndTheArchiveHoldsOneEntryPerKey() throws IOException {
        put("a", new byte[10_000]);
        put("b", new byte[] {2});
        put("a", new byte[] {3, 4});
        put("gone", new byte[5_000]);
        store.delete("gone");
        store.close();
        try (ZipFile zip = new ZipFile(archive().toFile())) {
            List<String> names = new ArrayList<>();
            zip.stream().forEach(e -> names.add(e.getName()));
            Collections.sort(names);
            assertEquals(List.of("a", "b"), names);
            assertArrayEquals(new byte[] {3, 4}, bytesOf(zip, "a"));
        }
        assertTrue(Files.size(archive()) < 1_000, "replaced and deleted values are dropped: "
                + Files.size(archive()) + " bytes");
        assertEquals(List.of(), tempFiles());
    }

    @Test
    void aKeyCannotBeBothAValueAndAFolderOfKeys() {
        put("a/b", new byte[] {1});
        put("leaf", new byte[] {1});
        StoreException e = assertThrows(StoreException.class, () -> put("a", new byte[] {2}));
        assertTrue(e.getMessage().contains("\"a\"") && e.getMessage().contains("a/b"), e.getMessage());
        assertThrows(StoreException.class, () -> put("leaf/below", new byte[] {2}));
        assertEquals(List.of("a/b", "leaf"), store.list(""));
    }

    @Test
    void aWriteThatFailsKeepsTheOldValue() {
        put("k", new byte[] {1, 2, 3});
        MemorySegment gone;
        try (Arena closed = Arena.ofConfined()) {
            gone = closed.allocate(1 << 20);
        }
        MemorySegment unreadable = gone;
        assertThrows(IllegalStateException.class, () -> store.set("k", unreadable));
        assertArrayEquals(new byte[] {1, 2, 3}, read("k"));
    }

    @Test
    void moreThan65535EntriesUseZip64AndReadBackWithJavaUtilZipAndZipStore() throws IOException {
        int count = 70_000;
        for (int i = 0; i < count; i++) {
            put("c/" + i, new byte[] {(byte) i, (byte) (i >> 8)});
        }
        store.close();
        try (ZipFile zip = new ZipFile(archive().toFile())) {
            assertEquals(count, zip.size());
            assertArrayEquals(new byte[] {(byte) 69_999, (byte) (69_999 >> 8)}, bytesOf(zip, "c/69999"));
        }
        try (ZipStore reopened = ZipStore.open(archive()); Arena local = Arena.ofConfined()) {
            assertEquals(count, reopened.list("c/").size());
            assertArrayEquals(new byte[] {(byte) 65_600, (byte) (65_600 >> 8)},
                    reopened.get("c/65600", local).orElseThrow().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void anEmptyArchiveIsValid() throws IOException {
        store.close();
        try (ZipFile zip = new ZipFile(archive().toFile())) {
            assertEquals(0, zip.size());
        }
        try (ZipStore reopened = ZipStore.open(archive())) {
            assertEquals(List.of(), reopened.list(""));
        }
    }

    @Test
    void aZarrArrayWrittenIntoAZipReadsBackIdenticallyAfterReopening() {
        long[] shape = {5, 37, 41};
        DataType dt = DataType.FLOAT32;
        Random random = new Random(seed());
        try (ZarrContext ctx = ZarrContext.open("cpu", 2)) {
            ArrayMetadata md = ArrayMetadata.create(shape, dt, new long[] {2, 16, 16}, FillValue.zero(dt),
                    List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
                            CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false))));
            ZarrArray written = Zarr.createArray(ctx, store, "t2m", md);
            byte[] expected;
            try (Tensor t = Tensor.allocateHost(dt, shape)) {
                for (long i = 0; i < t.elementCount(); i++) {
                    t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) random.nextGaussian());
                }
                written.write(t);
                expected = t.segment().toArray(ValueLayout.JAVA_BYTE);
            }
            store.close();
            try (ZipStore reopened = ZipStore.open(archive())) {
                assertTrue(reopened.list("").contains("t2m/zarr.json"), reopened.list("").toString());
                ZarrArray read = Zarr.openArray(ctx, reopened, "t2m");
                try (Tensor back = read.read()) {
                    assertArrayEquals(expected, back.segment().toArray(ValueLayout.JAVA_BYTE));
                }
                assertArrayEquals(read("t2m/zarr.json", reopened), read("t2m/zarr.json", reopened, ByteRange.from(0)));
            }
        }
    }

    private byte[] read(String key, Store s) {
        return read(key, s, ByteRange.ALL);
    }

    private byte[] read(String key, Store s, ByteRange range) {
        return s.get(key, range, arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE);
    }
}
