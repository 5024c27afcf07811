// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.core.store.zip.ZipStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Files and zip archives that lie about their sizes or change under the store (issue #25, items 1
 * and 5): a bounded read fails before it allocates or inflates what the file claims, and a fault
 * on a truncated mapping is a {@link StoreException}, not an {@link InternalError}.
 */
class HostileFileStoresTest {

    private static final long LIMIT = 64 * 1024;
    private static final int CENTRAL_HEADER = 0x02014b50;

    @TempDir
    Path dir;

    @Test
    void sparseTwentyGibFileIsRefusedBeforeAllocating() throws IOException {
        Files.createDirectories(dir.resolve("a/c"));
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve("a/c/0").toFile(), "rw")) {
            f.setLength(20L << 30); // sparse: nothing is written to the disk
        }
        try (FileSystemStore store = FileSystemStore.open(dir); Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class, () -> store.get("a/c/0", ByteRange.ALL, LIMIT, arena));
            assertTrue(e.getMessage().contains("21474836480"), e.getMessage());
            assertTrue(e.getMessage().contains("limit of " + LIMIT), e.getMessage());
            assertEquals("a/c/0", e.key());
            // a range within the limit still reads
            assertEquals(16, store.get("a/c/0", ByteRange.suffix(16), LIMIT, arena).orElseThrow().byteSize());
        }
    }

    @Test
    void zipEntryClaimingHugeSizeIsRefusedBeforeInflating() throws IOException {
        Path zip = dir.resolve("claims.zip");
        byte[] bytes = zipOf("c/0", new byte[1000], ZipEntry.DEFLATED);
        patchCentralSize(bytes, 0xFFFF_FFFEL); // about 4 GiB, without the Zip64 marker
        Files.write(zip, bytes);
        try (ZipStore store = ZipStore.open(zip); Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class, () -> store.get("c/0", ByteRange.ALL, LIMIT, arena));
            assertTrue(e.getMessage().contains("4294967294"), e.getMessage());
            assertTrue(e.getMessage().contains("limit of " + LIMIT), e.getMessage());
            assertTrue(e.getMessage().contains("zip entry \"c/0\""), e.getMessage());
        }
    }

    @Test
    void zipEntryClaimingMoreThanItsDataCanHoldIsRefusedEvenWithoutABound() throws IOException {
        // found by ParserFuzzTest: get(key, allocator), with no bound, allocated and cleared what
        // the central directory claimed (about 4 GiB for a 1.4 KB archive) before reading anything
        for (int method : new int[]{ZipEntry.STORED, ZipEntry.DEFLATED}) {
            Path zip = dir.resolve("claims-" + method + ".zip");
            byte[] bytes = zipOf("c/0", new byte[1000], method);
            patchCentralSize(bytes, 0xF000_0000L);
            Files.write(zip, bytes);
            try (ZipStore store = ZipStore.open(zip); Arena arena = Arena.ofConfined()) {
                StoreException e = assertThrows(StoreException.class, () -> store.get("c/0", arena));
                assertTrue(e.getMessage().contains(String.valueOf(0xF000_0000L)), e.getMessage());
                assertEquals("c/0", e.key());
            }
        }
    }

    @Test
    void zipBombIsRefusedByItsDeclaredSize() throws IOException {
        Path zip = dir.resolve("bomb.zip");
        Files.write(zip, zipOf("c/0", new byte[4 << 20], ZipEntry.DEFLATED)); // 4 MiB of zeros: a few KiB
        try (ZipStore store = ZipStore.open(zip); Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class, () -> store.get("c/0", ByteRange.ALL, LIMIT, arena));
            assertTrue(e.getMessage().contains(String.valueOf(4 << 20)), e.getMessage());
        }
    }

    @Test
    void zipBombThatUnderstatesItsSizeStopsInflatingAtTheDeclaredSize() throws IOException {
        Path zip = dir.resolve("liar.zip");
        byte[] bytes = zipOf("c/0", new byte[4 << 20], ZipEntry.DEFLATED);
        patchCentralSize(bytes, 100);
        Files.write(zip, bytes);
        try (ZipStore store = ZipStore.open(zip); Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class, () -> store.get("c/0", ByteRange.ALL, LIMIT, arena));
            assertTrue(e.getMessage().contains("more than its declared size 100"), e.getMessage());
        }
    }

    @Test
    void zipTruncatedWhileOpenIsAStoreExceptionNotInternalError() throws IOException {
        Path zip = dir.resolve("shrinks.zip");
        byte[] value = new byte[1 << 20];
        new Random(25).nextBytes(value);
        Files.write(zip, zipOf("c/0", value, ZipEntry.STORED));
        // a confined arena that must close afterwards: the fault on the truncated mapping must not
        // leave the caller's session acquired (it did, now and then, when the copy went straight
        // into the caller's segment: "Session is acquired by 1 clients")
        try (ZipStore store = ZipStore.open(zip); Arena arena = Arena.ofConfined()) {
            try (FileChannel ch = FileChannel.open(zip, StandardOpenOption.WRITE)) {
                ch.truncate(100);
            }
            StoreException e = assertThrows(StoreException.class,
                    () -> store.get("c/0", ByteRange.ALL, 2L << 20, arena));
            assertTrue(e.getMessage().contains("truncated"), e.getMessage());
            assertTrue(e.getMessage().contains("\"c/0\""), e.getMessage());
            assertEquals("c/0", e.key());
        }
    }

    @Test
    void deflatedZipTruncatedWhileOpenIsAStoreExceptionToo() throws IOException {
        Path zip = dir.resolve("shrinks-deflated.zip");
        byte[] value = new byte[1 << 20];
        new Random(7).nextBytes(value);
        Files.write(zip, zipOf("c/0", value, ZipEntry.DEFLATED));
        try (ZipStore store = ZipStore.open(zip); Arena arena = Arena.ofConfined()) {
            try (FileChannel ch = FileChannel.open(zip, StandardOpenOption.WRITE)) {
                ch.truncate(100);
            }
            StoreException e = assertThrows(StoreException.class,
                    () -> store.get("c/0", ByteRange.ALL, 2L << 20, arena));
            assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        }
    }

    private static byte[] zipOf(String name, byte[] value, int method) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(bytes)) {
            ZipEntry e = new ZipEntry(name);
            e.setMethod(method);
            if (method == ZipEntry.STORED) {
                CRC32 crc = new CRC32();
                crc.update(value);
                e.setSize(value.length);
                e.setCompressedSize(value.length);
                e.setCrc(crc.getValue());
            }
            out.putNextEntry(e);
            out.write(value);
            out.closeEntry();
        }
        return bytes.toByteArray();
    }

    /** Rewrites the uncompressed size of the (only) central directory header. */
    private static void patchCentralSize(byte[] zip, long size) {
        ByteBuffer b = ByteBuffer.wrap(zip).order(ByteOrder.LITTLE_ENDIAN);
        for (int p = zip.length - 22; p >= 0; p--) {
            if (b.getInt(p) == CENTRAL_HEADER) {
                b.putInt(p + 24, (int) size);
                return;
            }
        }
        throw new AssertionError("no central directory header");
    }
}
