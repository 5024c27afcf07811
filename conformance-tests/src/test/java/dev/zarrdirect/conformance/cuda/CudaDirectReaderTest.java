// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.io.CuFile;
import dev.zarrdirect.cuda.io.CuFileReader;
import dev.zarrdirect.cuda.io.DirectReaders;
import dev.zarrdirect.cuda.io.Mounts;
import dev.zarrdirect.cuda.io.ThreadedReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Both direct readers put random, mostly unaligned ranges of a file into device memory exactly as
 * FileChannel reads them, leave every other destination byte alone, and name the file on failure.
 *
 * <p>The files live under {@value #DIR_PROPERTY} (default {@code target}, the module's build
 * folder: disk-backed, where {@code /tmp} may be tmpfs or overlayfs, which cuFile cannot register).
 * With {@code zarrdirect.cuda.cufileStrict=true} the cuFile test proves that cuFile itself read
 * the files; without, it proves the bytes are right whichever path served them and prints which.
 */
class CudaDirectReaderTest {

    /** Directory for the test files. */
    static final String DIR_PROPERTY = "zd.cufile.dir";

    Path dir;
    CudaBackend backend;
    Device cuda0;
    Path file;
    Path small;
    byte[] content;

    @BeforeEach
    void open() throws IOException {
        backend = CudaTests.open();
        cuda0 = backend.defaultDevice();
        Path base = Path.of(System.getProperty(DIR_PROPERTY, "target")).toAbsolutePath();
        Files.createDirectories(base);
        dir = Files.createTempDirectory(base, "cufile-test-");
        Random rnd = CudaTests.random("reader");
        content = new byte[(24 << 20) + 1234];
        rnd.nextBytes(content);
        file = dir.resolve("data.bin");
        Files.write(file, content);
        small = dir.resolve("small.bin");
        Files.write(small, java.util.Arrays.copyOf(content, 5000));
    }

    @AfterEach
    void close() throws IOException {
        if (dir != null) {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
        if (backend != null) {
            try {
                backend.assertNoLiveBuffers();
            } finally {
                backend.close();
            }
        }
    }

    void readsMatchFileChannel(DirectReader reader) throws IOException {
        Random rnd = CudaTests.random("ranges-" + reader.describe());
        int dstSize = 40 << 20;
        for (int round = 0; round < 6; round++) {
            List<DirectReader.Request> reqs = new ArrayList<>();
            byte[] expect = new byte[dstSize];
            java.util.Arrays.fill(expect, (byte) 0x5C);
            try (Buffer dst = backend.allocate(cuda0, MemoryKind.DEVICE, dstSize);
                 FileChannel ch = FileChannel.open(file)) {
                backend.fill(dst, 0, dstSize, MemorySegment.ofArray(new byte[]{0x5C}));
                long nextDst = rnd.nextInt(5000);
                int n = 1 + rnd.nextInt(round == 0 ? 1 : 40);
                int limit = dstSize - 1000; // the last 1000 bytes take the short file's tail
                for (int i = 0; i < n && nextDst < limit - 1; i++) {
                    long len = switch (rnd.nextInt(5)) {
                        case 0 -> 1 + rnd.nextInt(100);
                        case 1 -> 4096 * (1 + rnd.nextInt(8));
                        case 2 -> rnd.nextInt(5 << 20);
                        default -> rnd.nextInt(300_000);
                    };
                    len = Math.min(len, limit - nextDst);
                    long off = rnd.nextInt(4) == 0 ? 4096L * rnd.nextInt(content.length / 4096 - 2000)
                            : rnd.nextInt((int) (content.length - len));
                    off = Math.min(off, content.length - len);
                    long dOff = rnd.nextInt(3) == 0 ? (nextDst + 4095) / 4096 * 4096 : nextDst;
                    if (dOff + len > limit) {
                        break;
                    }
                    reqs.add(new DirectReader.Request(file, off, len, dst, dOff));
                    ByteBuffer bb = ByteBuffer.wrap(expect, (int) dOff, (int) len);
                    while (bb.hasRemaining()) {
                        ch.read(bb, off + (bb.position() - dOff));
                    }
                    nextDst = dOff + len + rnd.nextInt(3000);
                }
                reqs.add(new DirectReader.Request(small, 4000, 1000, dst, dstSize - 1000)); // to the end of a short file
                System.arraycopy(content, 4000, expect, dstSize - 1000, 1000);
                reader.read(reqs);
                try (Buffer host = backend.allocate(cuda0, MemoryKind.HOST_PINNED, dstSize)) {
                    backend.copy(dst, 0, host, 0, dstSize);
                    long at = host.segment().mismatch(MemorySegment.ofArray(expect));
                    assertEquals(-1, at, reader.describe() + ": round " + round + " differs at byte " + at + " of the"
                            + " destination; requests " + reqs.stream().map(r -> r.offset() + "+" + r.length() + "->"
                            + r.destinationOffset()).toList() + ", seed " + CudaTests.SEED);
                }
            }
        }
    }

    @Test
    void threadedReaderReadsLikeFileChannel() throws IOException {
        try (ThreadedReader r = new ThreadedReader(backend, 4, 1 << 20)) {
            readsMatchFileChannel(r);
        }
    }

    static boolean strict() {
        return Boolean.getBoolean(DirectReaders.CUFILE_STRICT_PROPERTY);
    }

    @Test
    void cuFileReaderReadsLikeFileChannel() throws IOException {
        if (CuFile.load().isEmpty()) {
            Assumptions.abort("cuFile unavailable: " + CuFile.failure());
        }
        try (CuFileReader r = CuFileReader.open(backend, 4, 1 << 20, strict())) {
            System.out.println("cuFile: " + r.describe() + " " + r.properties());
            System.out.println("cuFile test files in " + dir + " on " + Mounts.of(file));
            readsMatchFileChannel(r);
            CuFileReader.Counters c = r.counters();
            System.out.println("cuFile reader served " + c.filesViaCuFile() + " file reads (" + c.bytesViaCuFile()
                    + " bytes) through cuFile and " + c.filesViaFallback() + " (" + c.bytesViaFallback()
                    + " bytes) through the pread fallback" + (r.fallbackFiles().isEmpty() ? "" : ": " + r.fallbackFiles()));
            if (r.strict()) {
                assertEquals(0, c.filesViaFallback(), "strict mode read through the fallback: " + r.fallbackFiles());
                assertTrue(c.filesViaCuFile() > 0, c.toString());
            } else {
                assertEquals(c.filesViaCuFile() + c.filesViaFallback(), 2L * 6, "each round reads both files once: " + c);
            }
        }
    }

    @Test
    void cuFileReaderReadsTmpfsFilesWhicheverPathServesThem() throws IOException {
        Path shm = Path.of("/dev/shm");
        if (CuFile.load().isEmpty() || strict() || !Files.isDirectory(shm) || !Files.isWritable(shm)) {
            Assumptions.abort("needs cuFile, /dev/shm and the default (non-strict) mode");
        }
        Path f = Files.createTempFile(shm, "zd-cufile-test-", ".bin");
        try (CuFileReader r = CuFileReader.open(backend, 2, 1 << 20, false);
             Buffer dst = backend.allocate(cuda0, MemoryKind.DEVICE, 300_000);
             Buffer host = backend.allocate(cuda0, MemoryKind.HOST_PINNED, 300_000)) {
            Files.write(f, java.util.Arrays.copyOf(content, 1 << 20));
            for (int round = 0; round < 2; round++) { // the second round finds the decision remembered
                r.read(List.of(new DirectReader.Request(f, 12345, 250_000, dst, 777),
                        new DirectReader.Request(f, 4096, 8192, dst, 260_000 + 4096 - 260_000 % 4096)));
            }
            backend.copy(dst, 0, host, 0, 300_000);
            assertEquals(-1, host.segment().asSlice(777, 250_000).mismatch(MemorySegment.ofArray(content).asSlice(12345, 250_000)));
            long at = 260_000 + 4096 - 260_000 % 4096;
            assertEquals(-1, host.segment().asSlice(at, 8192).mismatch(MemorySegment.ofArray(content).asSlice(4096, 8192)));
            CuFileReader.Counters c = r.counters();
            System.out.println(Mounts.of(f) + ": " + c + (r.fallbackFiles().isEmpty() ? "" : " " + r.fallbackFiles()));
            assertEquals(2, c.filesViaCuFile() + c.filesViaFallback(), c.toString());
            assertTrue(c.filesViaCuFile() == 0 || c.filesViaFallback() == 0, "one file, one path: " + c);
        } finally {
            Files.deleteIfExists(f);
        }
    }

    @Test
    void readsPastTheEndFailNamingTheFile() {
        try (ThreadedReader r = new ThreadedReader(backend, 2, 1 << 20);
             Buffer dst = backend.allocate(cuda0, MemoryKind.DEVICE, 10_000)) {
            StoreException e = assertThrows(StoreException.class,
                    () -> r.read(List.of(new DirectReader.Request(small, 4000, 2000, dst, 0))));
            assertTrue(e.getMessage().contains("small.bin"), e.getMessage());
        }
        if (CuFile.load().isPresent()) {
            try (CuFileReader r = CuFileReader.open(backend, 2, 1 << 20);
                 Buffer dst = backend.allocate(cuda0, MemoryKind.DEVICE, 10_000)) {
                StoreException e = assertThrows(StoreException.class,
                        () -> r.read(List.of(new DirectReader.Request(small, 4000, 2000, dst, 0))));
                assertTrue(e.getMessage().contains("small.bin"), e.getMessage());
            }
        }
    }

    @Test
    void theBackendsReaderFollowsTheProperty() {
        DirectReader r = backend.directReader().orElseThrow();
        assertEquals(DirectReaders.AUTO.equals("threaded"), r instanceof ThreadedReader, r.describe());
        Map<String, String> p = CuFileReader.properties(CuFile.load().orElse(null));
        System.out.println("GDS properties: " + p);
        assertNotNull(p.get("compatibility_mode"));
    }

    @Test
    void threadedReaderFillsHostDestinationsDirectly() {
        try (ThreadedReader r = new ThreadedReader(backend, 2, 64 << 10);
             Buffer dst = backend.allocate(cuda0, MemoryKind.HOST_PINNED, 300_000)) {
            r.read(List.of(new DirectReader.Request(file, 12345, 300_000, dst, 0)));
            assertEquals(-1, dst.segment().mismatch(MemorySegment.ofArray(java.util.Arrays.copyOfRange(content, 12345, 312345))));
            assertEquals(content[12345], dst.segment().get(ValueLayout.JAVA_BYTE, 0));
        }
    }
}
