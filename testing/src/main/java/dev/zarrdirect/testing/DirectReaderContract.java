// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.testing.BackendContract.Placement;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link DirectReader} must do: put byte ranges of local files (aligned or not, one byte
 * to megabytes, to the very end of a short file, empty) into the backend's memory exactly as the file
 * holds them, leave every other destination byte alone, serve many threads at once, refuse a range
 * past the end of its file with a {@link StoreException} naming the file, refuse a range that does
 * not fit its destination, and close twice harmlessly.
 *
 * <p>The files are written in {@link #fileDirectory}, a fresh temporary directory by default;
 * a reader that cannot use some file systems (cuFile on tmpfs) may choose another.
 */
public abstract class DirectReaderContract {

    /** The byte every destination holds before a read; a changed one outside a range is a stray write. */
    protected static final byte GUARD = (byte) 0x5C;

    /** The seed of this run's random data, in every message; replay with {@code -Dzd.seed=N}. */
    protected static final long SEED = Long.getLong("zd.seed", System.nanoTime());

    private static final int FILE_BYTES = (3 << 20) + 1234;
    private static final int SHORT_BYTES = 5000;

    /** The backend under test, opened before each test and closed after it. */
    protected Backend backend;

    /** The reader under test, made before each test and closed after it. */
    protected DirectReader reader;

    @TempDir
    Path tempDir;

    private Path dir;
    private Path file;
    private Path shortFile;
    private byte[] content;

    /** For subclasses. */
    protected DirectReaderContract() {
    }

    /**
     * Opens the backend that the reader writes into, or aborts the test naming why it is unavailable
     * (see {@link BackendContract#openBackend()}).
     *
     * @return the backend; the contract closes it
     */
    protected abstract Backend openBackend();

    /**
     * Fails unless every buffer of {@code backend} is closed; called after each test.
     *
     * @param backend the backend under test
     */
    protected abstract void assertNoLiveBuffers(Backend backend);

    /**
     * A new reader into {@code backend}'s memory.
     *
     * @param backend the open backend
     * @return the reader; the contract closes it before the backend
     */
    protected abstract DirectReader newReader(Backend backend);

    /**
     * Where the reader's destinations live: the backend's device memory, normally.
     *
     * @param backend the open backend
     * @return the placement of every destination buffer
     */
    protected abstract Placement destinationMemory(Backend backend);

    /**
     * Host-accessible memory of the backend, through which destinations are read back.
     *
     * @param backend the open backend
     * @return a placement whose kind is host-accessible
     */
    protected abstract Placement hostMemory(Backend backend);

    /**
     * The directory the test files are written in; by default {@code tempDir}.
     *
     * @param tempDir a fresh temporary directory, deleted after the test
     * @return the directory to use; the contract deletes the files it writes there
     * @throws IOException when the directory cannot be made
     */
    protected Path fileDirectory(Path tempDir) throws IOException {
        return tempDir;
    }

    @BeforeEach
    void writeTheFilesAndOpen() throws IOException {
        dir = Files.createTempDirectory(fileDirectory(tempDir), "direct-reader-");
        content = new byte[FILE_BYTES];
        new Random(SEED).nextBytes(content);
        file = Files.write(dir.resolve("data.bin"), content);
        shortFile = Files.write(dir.resolve("short.bin"), Arrays.copyOf(content, SHORT_BYTES));
        backend = openBackend();
        reader = newReader(backend);
    }

    @AfterEach
    void closeAndCheckForLeaks() throws IOException {
        try {
            if (reader != null) {
                reader.close();
            }
            if (backend != null) {
                try {
                    assertNoLiveBuffers(backend);
                } finally {
                    backend.close();
                }
            }
        } finally {
            for (Path p : new Path[] {file, shortFile, dir}) {
                if (p != null) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private Buffer destination(long bytes) {
        Placement p = destinationMemory(backend);
        Buffer b = backend.allocate(p.device(), p.kind(), bytes);
        backend.fill(b, 0, bytes, MemorySegment.ofArray(new byte[] {GUARD}));
        return b;
    }

    private byte[] readBack(Buffer b) {
        if (b.kind().hostAccessible()) {
            return b.segment().toArray(ValueLayout.JAVA_BYTE);
        }
        Placement h = hostMemory(backend);
        try (Buffer host = backend.allocate(h.device(), h.kind(), b.byteSize())) {
            backend.copy(b, 0, host, 0, b.byteSize());
            return host.segment().toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** Random requests into {@code dst}, and the bytes {@code dst} must then hold. */
    private byte[] randomRequests(Random r, Buffer dst, List<DirectReader.Request> requests) {
        int size = (int) dst.byteSize();
        byte[] expect = new byte[size];
        Arrays.fill(expect, GUARD);
        long next = r.nextInt(5000);
        int limit = size - 1000;
        for (int i = 0; i < 30 && next < limit - 1; i++) {
            long len = switch (r.nextInt(4)) {
                case 0 -> 1 + r.nextInt(100);
                case 1 -> 4096L * (1 + r.nextInt(8));
                case 2 -> r.nextInt(1 << 20);
                default -> r.nextInt(100_000);
            };
            len = Math.min(len, limit - next);
            long off = r.nextBoolean() ? 4096L * r.nextInt(FILE_BYTES / 4096 - 300) : r.nextInt((int) (FILE_BYTES - len));
            off = Math.min(off, FILE_BYTES - len);
            long at = r.nextInt(3) == 0 ? (next + 4095) / 4096 * 4096 : next;
            if (at + len > limit) {
                break;
            }
            requests.add(new DirectReader.Request(file, off, len, dst, at));
            System.arraycopy(content, (int) off, expect, (int) at, (int) len);
            next = at + len + r.nextInt(3000);
        }
        // the tail of the short file, to its very end, and an empty read
        requests.add(new DirectReader.Request(shortFile, SHORT_BYTES - 1000, 1000, dst, size - 1000));
        System.arraycopy(content, SHORT_BYTES - 1000, expect, size - 1000, 1000);
        requests.add(new DirectReader.Request(file, 17, 0, dst, 3));
        return expect;
    }

    @Test
    void randomRangesLandExactlyWhereAskedAndNothingElseChanges() {
        Random r = new Random(SEED ^ 1);
        for (int round = 0; round < 4; round++) {
            try (Buffer dst = destination(8 << 20)) {
                List<DirectReader.Request> requests = new ArrayList<>();
                byte[] expect = randomRequests(r, dst, requests);
                reader.read(requests);
                byte[] got = readBack(dst);
                long at = MemorySegment.ofArray(got).mismatch(MemorySegment.ofArray(expect));
                assertTrue(at < 0, reader.describe() + ": round " + round + " differs at destination byte " + at
                        + "; requests " + requests.stream().map(q -> q.file().getFileName() + ":" + q.offset() + "+"
                        + q.length() + "->" + q.destinationOffset()).toList() + ", seed " + SEED);
            }
        }
    }

    @Test
    void anEmptyListOfRequestsReadsNothing() {
        assertDoesNotThrow(() -> reader.read(List.of()));
        assertFalse(reader.describe().isBlank(), "describe() is blank");
    }

    @Test
    void aRangePastTheEndOfItsFileFailsNamingTheFile() {
        try (Buffer dst = destination(10_000)) {
            StoreException e = assertThrows(StoreException.class,
                    () -> reader.read(List.of(new DirectReader.Request(shortFile, SHORT_BYTES - 1000, 2000, dst, 0))),
                    reader.describe() + " read past the end of a " + SHORT_BYTES + "-byte file");
            assertTrue(e.getMessage().contains("short.bin"), "the message names the file: " + e.getMessage());
        }
    }

    @Test
    void aMissingFileFailsNamingIt() {
        try (Buffer dst = destination(100)) {
            StoreException e = assertThrows(StoreException.class,
                    () -> reader.read(List.of(new DirectReader.Request(dir.resolve("absent.bin"), 0, 10, dst, 0))));
            assertTrue(e.getMessage().contains("absent.bin"), "the message names the file: " + e.getMessage());
        }
    }

    @Test
    void aRangeThatDoesNotFitItsDestinationIsRefused() {
        try (Buffer dst = destination(1000)) {
            assertThrows(IndexOutOfBoundsException.class,
                    () -> reader.read(List.of(new DirectReader.Request(file, 0, 1001, dst, 0))));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> reader.read(List.of(new DirectReader.Request(file, 0, 10, dst, 995))));
            assertArrayEquals(filled(1000), readBack(dst), "a refused read changed its destination");
        }
    }

    private static byte[] filled(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, GUARD);
        return b;
    }

    @Test
    void readsFromSeveralThreadsAtOnceEachGetTheirOwnBytes() throws Exception {
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = SEED + t;
                futures.add(pool.submit(() -> {
                    Random r = new Random(seed);
                    for (int round = 0; round < 3; round++) {
                        try (Buffer dst = destination(2 << 20)) {
                            List<DirectReader.Request> requests = new ArrayList<>();
                            byte[] expect = randomRequests(r, dst, requests);
                            reader.read(requests);
                            long at = MemorySegment.ofArray(readBack(dst)).mismatch(MemorySegment.ofArray(expect));
                            assertTrue(at < 0, reader.describe() + ": a concurrent read differs at destination byte " + at
                                    + " (seed " + seed + ")");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(300, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void closingTwiceIsHarmless() {
        DirectReader other = newReader(backend);
        other.close();
        assertDoesNotThrow(other::close);
    }
}
