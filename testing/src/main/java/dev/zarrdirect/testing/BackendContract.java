// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What every {@link Backend} must do with memory, and what every {@link Buffer} it allocates must
 * do over its life, after Netty's {@code AbstractByteBufTest} and the JDK's
 * {@code TestScopedOperations}: allocation of each placement and size (0 included), copies between
 * every pair of placements at unaligned offsets that touch nothing outside the range, fills, slices
 * that are views and never own, and a lifecycle table (every operation after close on the owner and
 * on its views, closing twice, closing from another thread, racing closes) that must fail loudly
 * with {@link IllegalStateException}. After each test the backend must hold no live buffer
 * ({@link #assertNoLiveBuffers}), and a test proves that check can fail.
 *
 * <p>The buffer lifecycle is part of this class rather than a contract of its own: a buffer's
 * lifetime rules involve the backend that allocated it (its copies and fills must refuse a closed
 * buffer too), so both are held to one fixture.
 *
 * {@snippet :
 * class MyBackendContractTest extends BackendContract {
 *     @Override
 *     protected Backend openBackend() {
 *         MyBackend b = new MyBackendProvider().open();   // or Assumptions.abort(why) when unavailable
 *         b.trackBuffers(true);
 *         return b;
 *     }
 *     @Override
 *     protected void assertNoLiveBuffers(Backend backend) {
 *         ((MyBackend) backend).assertNoLiveBuffers();
 *     }
 *     @Override
 *     protected List<Placement> placements(Backend backend) {
 *         return List.of(new Placement(backend.defaultDevice(), MemoryKind.DEVICE),
 *                 new Placement(Device.CPU, MemoryKind.HOST_PINNED));
 *     }
 * }
 * }
 */
public abstract class BackendContract {

    /** The byte written around every range under test; a changed one means a write out of bounds. */
    protected static final byte GUARD = (byte) 0x5A;

    /** The seed of this run's random data, in every message; replay with {@code -Dzd.seed=N}. */
    protected static final long SEED = Long.getLong("zd.seed", System.nanoTime());

    /** Sizes every placement is tested with: empty, one byte, odd and page-crossing sizes. */
    private static final long[] SIZES = {0, 1, 3, 4096 + 5, 100_003, (1 << 20) + 7};

    /**
     * Where a buffer can be allocated: the device and the kind of memory, as passed to
     * {@link Backend#allocate}.
     *
     * @param device the device
     * @param kind   the kind of memory
     */
    public record Placement(Device device, MemoryKind kind) {
        /**
         * Checks for nulls.
         *
         * @throws NullPointerException when either is null
         */
        public Placement {
            Objects.requireNonNull(device, "device");
            Objects.requireNonNull(kind, "kind");
        }

        @Override
        public String toString() {
            return kind + " on " + device;
        }
    }

    /** The backend under test, opened before each test and closed after it. */
    protected Backend backend;

    /** For subclasses. */
    protected BackendContract() {
    }

    /**
     * Opens a new instance of the backend under test, with allocation tracking on where it has it.
     * When the backend is unavailable here (no device, no driver), abort the test with
     * {@link org.junit.jupiter.api.Assumptions#abort(String)} naming why; fail instead where it must
     * be present (zarr-direct's CI does so with {@code ZD_REQUIRE_OPENCL=1} or {@code ZD_REQUIRE_CUDA=1}).
     *
     * @return the backend; the contract closes it
     */
    protected abstract Backend openBackend();

    /**
     * Fails, naming each buffer of {@code backend} still open and where it was allocated when the
     * backend tracks that, unless there is none. Called after every test, before closing the backend.
     *
     * @param backend the backend under test
     * @throws AssertionError        (or {@link IllegalStateException}) when a buffer is still open
     */
    protected abstract void assertNoLiveBuffers(Backend backend);

    /**
     * Every placement the backend supports, at least one of them
     * {@linkplain MemoryKind#hostAccessible() host-accessible} (the contract stages data through it).
     *
     * @param backend the open backend, to name its devices
     * @return the placements, each tested on its own and with every other
     */
    protected abstract List<Placement> placements(Backend backend);

    @BeforeEach
    void openTheBackend() {
        backend = openBackend();
    }

    @AfterEach
    void checkForLeaksAndClose() {
        if (backend != null) {
            try {
                assertNoLiveBuffers(backend);
            } finally {
                backend.close();
            }
        }
    }

    // ---- helpers ----

    private Placement host() {
        return placements(backend).stream().filter(p -> p.kind().hostAccessible()).findFirst()
                .orElseThrow(() -> new AssertionError("placements(backend) must include a host-accessible kind, got "
                        + placements(backend)));
    }

    /**
     * Writes {@code bytes} into {@code dst} from {@code at}, through a host-accessible buffer of
     * the backend when {@code dst} is not one itself.
     *
     * @param dst   the buffer written
     * @param at    the first byte written
     * @param bytes the bytes
     */
    protected void write(Buffer dst, long at, byte[] bytes) {
        if (dst.kind().hostAccessible()) {
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, dst.segment(), at, bytes.length);
            return;
        }
        Placement h = host();
        try (Buffer staging = backend.allocate(h.device(), h.kind(), bytes.length)) {
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, staging.segment(), 0, bytes.length);
            backend.copy(staging, 0, dst, at, bytes.length);
        }
    }

    /**
     * Reads {@code length} bytes of {@code src} from {@code at}, through a host-accessible buffer
     * of the backend when {@code src} is not one itself.
     *
     * @param src    the buffer read
     * @param at     the first byte read
     * @param length how many bytes
     * @return the bytes
     */
    protected byte[] read(Buffer src, long at, long length) {
        if (src.kind().hostAccessible()) {
            return src.segment().asSlice(at, length).toArray(ValueLayout.JAVA_BYTE);
        }
        Placement h = host();
        try (Buffer staging = backend.allocate(h.device(), h.kind(), length)) {
            backend.copy(src, at, staging, 0, length);
            return staging.segment().toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private void guard(Buffer b) {
        backend.fill(b, 0, b.byteSize(), MemorySegment.ofArray(new byte[] {GUARD}));
    }

    private static byte[] random(Random r, long n) {
        byte[] b = new byte[(int) n];
        r.nextBytes(b);
        return b;
    }

    private static byte[] guards(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, GUARD);
        return b;
    }

    // ---- the backend itself ----

    @Test
    void theBackendNamesItselfAndItsDevices() {
        assertNotNull(backend.name());
        assertFalse(backend.name().isBlank(), "name() is blank");
        List<Device> devices = backend.devices();
        assertFalse(devices.isEmpty(), backend.name() + ": devices() is empty");
        assertThrows(UnsupportedOperationException.class, () -> devices.add(Device.CPU), "devices() is modifiable");
        assertTrue(devices.contains(backend.defaultDevice()), "the default device " + backend.defaultDevice()
                + " is not one of " + devices);
        assertTrue(backend.preferredBatchSize() >= 1, "preferredBatchSize " + backend.preferredBatchSize());
        assertTrue(backend.preferredBatchBytes() >= 1, "preferredBatchBytes " + backend.preferredBatchBytes());
        assertNotNull(backend.codecs(), "codecs()");
        assertNotNull(backend.settings(), "settings()");
    }

    @Test
    void closingTheBackendTwiceIsHarmless() {
        Backend other = openBackend();
        other.close();
        assertDoesNotThrow(other::close);
    }

    @Test
    void aBufferLeftOpenFailsTheLeakCheckUntilItIsClosed() {
        Placement p = placements(backend).getFirst();
        Buffer leaked = backend.allocate(p.device(), p.kind(), 64);
        try {
            Throwable e = assertThrows(Throwable.class, () -> assertNoLiveBuffers(backend),
                    "a " + p + " buffer left open passed the leak check");
            assertTrue(e instanceof AssertionError || e instanceof IllegalStateException, "the leak check threw " + e);
        } finally {
            leaked.close();
        }
        assertNoLiveBuffers(backend);
    }

    @Test
    void allocationsOfANegativeSizeAreRefused() {
        for (Placement p : placements(backend)) {
            assertThrows(IllegalArgumentException.class, () -> backend.allocate(p.device(), p.kind(), -1), p.toString());
        }
    }

    // ---- allocation, copies, fills ----

    @TestFactory
    List<DynamicTest> allocationsHaveTheSizeKindAndDeviceAskedFor() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Placement p : placements(backend)) {
            for (long size : SIZES) {
                for (boolean uninitialized : new boolean[] {false, true}) {
                    String name = (uninitialized ? "uninitialized " : "") + size + " bytes of " + p;
                    tests.add(DynamicTest.dynamicTest(name, () -> {
                        try (Buffer b = uninitialized ? backend.allocateUninitialized(p.device(), p.kind(), size)
                                : backend.allocate(p.device(), p.kind(), size)) {
                            assertAll(name,
                                    () -> assertEquals(size, b.byteSize(), "byteSize"),
                                    () -> assertEquals(p.kind(), b.kind(), "kind"),
                                    () -> assertTrue(b.isOpen(), "isOpen"),
                                    () -> assertFalse(b.isView(), "isView"),
                                    () -> {
                                        if (p.kind().hostAccessible()) {
                                            assertEquals(size, b.segment().byteSize(), "segment size");
                                        } else if (p.kind() == MemoryKind.MANAGED) {
                                            // a backend may expose managed memory to the CPU (CUDA
                                            // does, MemoryKind's contract does not promise it): when
                                            // it does, the segment covers the buffer exactly
                                            try {
                                                assertEquals(size, b.segment().byteSize(), "segment size");
                                            } catch (UnsupportedOperationException refused) {
                                                // allowed
                                            }
                                        } else {
                                            assertThrows(UnsupportedOperationException.class, b::segment,
                                                    "segment() of device memory");
                                        }
                                    });
                        }
                    }));
                }
            }
        }
        return tests;
    }

    @TestFactory
    List<DynamicTest> copiesBetweenEveryPairOfPlacementsMoveExactlyTheRangeAskedFor() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Placement from : placements(backend)) {
            for (Placement to : placements(backend)) {
                for (long size : SIZES) {
                    String name = size + " bytes from " + from + " at 5 to " + to + " at 11 (seed " + SEED + ")";
                    tests.add(DynamicTest.dynamicTest(name, () -> {
                        byte[] data = random(new Random(SEED ^ size), size + 13);
                        try (Buffer src = backend.allocate(from.device(), from.kind(), size + 13);
                             Buffer dst = backend.allocate(to.device(), to.kind(), size + 29)) {
                            write(src, 0, data);
                            guard(dst);
                            backend.copy(src, 5, dst, 11, size);
                            byte[] got = read(dst, 0, size + 29);
                            assertArrayEquals(guards(11), Arrays.copyOfRange(got, 0, 11), name + ": bytes before the range");
                            assertArrayEquals(Arrays.copyOfRange(data, 5, 5 + (int) size),
                                    Arrays.copyOfRange(got, 11, 11 + (int) size), name);
                            assertArrayEquals(guards(18), Arrays.copyOfRange(got, 11 + (int) size, (int) size + 29),
                                    name + ": bytes after the range");
                        }
                    }));
                }
            }
        }
        return tests;
    }

    @Test
    void copiesReachingOutsideEitherBufferAreRefused() {
        for (Placement p : placements(backend)) {
            try (Buffer a = backend.allocate(p.device(), p.kind(), 100);
                 Buffer b = backend.allocate(p.device(), p.kind(), 50)) {
                List<Executable> outside = List.of(() -> backend.copy(a, 0, b, 0, 51), () -> backend.copy(a, 60, b, 0, 41),
                        () -> backend.copy(b, 0, a, 99, 2));
                for (int i = 0; i < outside.size(); i++) {
                    assertThrows(IndexOutOfBoundsException.class, outside.get(i), p + ": out-of-range copy #" + i);
                }
                // a negative offset or length is outside too, or an illegal argument (the CPU and OpenCL
                // backends say so): either refusal will do
                List<Executable> negative = List.of(() -> backend.copy(a, -1, b, 0, 1), () -> backend.copy(a, 0, b, -1, 1),
                        () -> backend.copy(a, 0, b, 0, -1));
                for (int i = 0; i < negative.size(); i++) {
                    Throwable e = assertThrows(RuntimeException.class, negative.get(i), p + ": negative copy #" + i);
                    assertTrue(e instanceof IndexOutOfBoundsException || e instanceof IllegalArgumentException,
                            p + ": negative copy #" + i + " threw " + e);
                }
            }
        }
    }

    @TestFactory
    List<DynamicTest> fillsWriteThePatternCountTimesFromTheOffsetAndNothingElse() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Placement p : placements(backend)) {
            for (int width : new int[] {1, 2, 4, 8}) {
                for (long count : new long[] {0, 1, 1003, 70_001}) {
                    String name = count + " elements of " + width + " bytes into " + p + " at 7";
                    tests.add(DynamicTest.dynamicTest(name, () -> {
                        byte[] pattern = new byte[width];
                        for (int i = 0; i < width; i++) {
                            pattern[i] = (byte) (0x11 * (i + 1));
                        }
                        long bytes = 7 + count * width + 9;
                        try (Buffer b = backend.allocate(p.device(), p.kind(), bytes)) {
                            guard(b);
                            backend.fill(b, 7, count, MemorySegment.ofArray(pattern));
                            byte[] got = read(b, 0, bytes);
                            byte[] want = guards((int) bytes);
                            for (long i = 0; i < count * width; i++) {
                                want[(int) (7 + i)] = pattern[(int) (i % width)];
                            }
                            assertArrayEquals(want, got, name);
                        }
                    }));
                }
            }
        }
        return tests;
    }

    @Test
    void fillsOfANegativeCountOrOutsideTheBufferAreRefused() {
        for (Placement p : placements(backend)) {
            try (Buffer b = backend.allocate(p.device(), p.kind(), 64)) {
                MemorySegment one = MemorySegment.ofArray(new byte[] {1});
                assertThrows(IllegalArgumentException.class, () -> backend.fill(b, 0, -1, one), p + ": negative count");
                assertThrows(IndexOutOfBoundsException.class, () -> backend.fill(b, 60, 5, one), p + ": fill past the end");
                assertThrows(IndexOutOfBoundsException.class,
                        () -> backend.fill(b, 0, 9, MemorySegment.ofArray(new byte[8])), p + ": 72 bytes into 64");
            }
        }
    }

    // ---- slices ----

    @Test
    void slicesAreViewsThatShareTheirOwnersMemoryAndCannotBeClosed() {
        for (Placement p : placements(backend)) {
            try (Buffer owner = backend.allocate(p.device(), p.kind(), 1000)) {
                guard(owner);
                Buffer view = owner.slice(100, 300);
                Buffer inner = view.slice(50, 10);
                assertAll(p.toString(),
                        () -> assertTrue(view.isView() && inner.isView(), "slices are views"),
                        () -> assertEquals(300, view.byteSize()),
                        () -> assertEquals(10, inner.byteSize()),
                        () -> assertEquals(owner.kind(), view.kind()),
                        () -> assertEquals(owner.device(), view.device()),
                        () -> assertThrows(UnsupportedOperationException.class, view::close, "close() on a view"),
                        () -> assertThrows(UnsupportedOperationException.class, inner::close, "close() on a view of a view"));
                if (p.kind().hostAccessible()) {
                    assertEquals(owner.address() + 150, inner.address(), p + ": a view's address is its owner's plus the offset");
                }
                backend.fill(inner, 0, 10, MemorySegment.ofArray(new byte[] {7}));
                write(view, 0, new byte[] {1, 2, 3});
                byte[] got = read(owner, 0, 1000);
                byte[] want = guards(1000);
                want[100] = 1;
                want[101] = 2;
                want[102] = 3;
                Arrays.fill(want, 150, 160, (byte) 7);
                assertArrayEquals(want, got, p + ": writes through views land in the owner at their offsets, and only there");
                assertTrue(view.isOpen(), "the view stays open after a failed close");
            }
        }
    }

    @Test
    void slicesOutsideTheBufferAreRefused() {
        for (Placement p : placements(backend)) {
            try (Buffer b = backend.allocate(p.device(), p.kind(), 100)) {
                assertEquals(0, b.slice(100, 0).byteSize(), p + ": an empty slice at the end");
                for (long[] bad : new long[][] {{-1, 1}, {0, 101}, {100, 1}, {50, -1}, {Long.MAX_VALUE, 2}}) {
                    assertThrows(IndexOutOfBoundsException.class, () -> b.slice(bad[0], bad[1]),
                            p + ": slice(" + bad[0] + ", " + bad[1] + ") of 100 bytes");
                }
            }
        }
    }

    // ---- the lifecycle table ----

    /** One use of a buffer: each must fail with IllegalStateException once the memory is closed. */
    private record Use(String name, Consumer<Buffer> op) {
    }

    private List<Use> uses() {
        MemorySegment one = MemorySegment.ofArray(new byte[] {1});
        Placement h = host();
        return List.of(
                new Use("address()", Buffer::address),
                new Use("segment()", Buffer::segment),
                new Use("slice(0, 1)", b -> b.slice(0, 1)),
                new Use("fill", b -> backend.fill(b, 0, 1, one)),
                new Use("copy from it", b -> {
                    try (Buffer other = backend.allocate(h.device(), h.kind(), 8)) {
                        backend.copy(b, 0, other, 0, 8);
                    }
                }),
                new Use("copy into it", b -> {
                    try (Buffer other = backend.allocate(h.device(), h.kind(), 8)) {
                        backend.copy(other, 0, b, 0, 8);
                    }
                }),
                new Use("copy within it", b -> backend.copy(b, 0, b, 8, 8)));
    }

    @TestFactory
    List<DynamicTest> everyUseOfAClosedBufferOrOfAViewOfItFailsNamingIt() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Placement p : placements(backend)) {
            for (Use use : uses()) {
                for (boolean viaView : new boolean[] {false, true}) {
                    String name = use.name() + " on a closed " + (viaView ? "view of " : "") + p;
                    tests.add(DynamicTest.dynamicTest(name, () -> {
                        Buffer owner = backend.allocate(p.device(), p.kind(), 64);
                        Buffer view = owner.slice(16, 32);
                        String description = owner.toString();
                        owner.close();
                        Buffer target = viaView ? view : owner;
                        assertFalse(target.isOpen(), name + ": isOpen() after close");
                        IllegalStateException e = assertThrows(IllegalStateException.class, () -> use.op().accept(target),
                                name);
                        assertNotNull(e.getMessage(), name + ": no message");
                        assertAll(name + ": the description stays readable after close",
                                () -> assertEquals(p.kind(), target.kind()),
                                () -> assertEquals(viaView ? 32 : 64, target.byteSize()),
                                () -> assertNotNull(target.device()),
                                () -> assertEquals(viaView, target.isView()),
                                () -> assertNotNull(description));
                    }));
                }
            }
        }
        return tests;
    }

    @TestFactory
    List<DynamicTest> buffersLiveAndDieIndependentlyInEveryOrder() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Placement p : placements(backend)) {
            for (int[] order : new int[][] {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}) {
                String name = "three " + p + " buffers closed in the order " + Arrays.toString(order);
                tests.add(DynamicTest.dynamicTest(name, () -> {
                    Buffer[] buffers = new Buffer[3];
                    byte[][] contents = new byte[3][];
                    Random r = new Random(SEED);
                    for (int i = 0; i < 3; i++) {
                        buffers[i] = backend.allocate(p.device(), p.kind(), 4096 + i);
                        contents[i] = random(r, 4096 + i);
                        write(buffers[i], 0, contents[i]);
                    }
                    boolean[] closed = new boolean[3];
                    for (int step : order) {
                        buffers[step].close();
                        closed[step] = true;
                        for (int i = 0; i < 3; i++) {
                            if (closed[i]) {
                                assertFalse(buffers[i].isOpen(), name + ": buffer " + i + " is closed");
                            } else {
                                assertArrayEquals(contents[i], read(buffers[i].slice(0, 4096 + i), 0, 4096 + i),
                                        name + ": buffer " + i + " changed when buffer " + step + " was closed");
                            }
                        }
                    }
                }));
            }
        }
        return tests;
    }

    @Test
    void closingABufferTwiceThrowsAndClosingAViewNeverCloses() {
        for (Placement p : placements(backend)) {
            Buffer b = backend.allocate(p.device(), p.kind(), 128);
            Buffer view = b.slice(0, 64);
            assertThrows(UnsupportedOperationException.class, view::close, p + ": close() on a view");
            assertTrue(b.isOpen(), p + ": closing a view closed its owner");
            b.close();
            assertThrows(IllegalStateException.class, b::close, p + ": a second close()");
        }
    }

    @Test
    void buffersAllocatedOnOneThreadAreUsedAndClosedOnAnother() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            for (Placement p : placements(backend)) {
                Buffer b = backend.allocate(p.device(), p.kind(), 256);
                byte[] data = random(new Random(SEED), 256);
                other.submit(() -> {
                    write(b, 0, data);
                    return null;
                }).get(60, TimeUnit.SECONDS);
                assertArrayEquals(data, read(b, 0, 256), p + ": written on another thread");
                other.submit(() -> {
                    b.close();
                    return null;
                }).get(60, TimeUnit.SECONDS);
                assertFalse(b.isOpen(), p + ": closed on another thread");
            }
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void racingClosesCloseOnceAndEveryOtherCallerGetsIllegalState() throws Exception {
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (Placement p : placements(backend)) {
                for (int round = 0; round < 20; round++) {
                    Buffer b = backend.allocate(p.device(), p.kind(), 4096);
                    CountDownLatch start = new CountDownLatch(1);
                    AtomicInteger closedIt = new AtomicInteger();
                    AtomicInteger refused = new AtomicInteger();
                    List<Future<?>> futures = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        futures.add(pool.submit(() -> {
                            start.await();
                            try {
                                b.close();
                                closedIt.incrementAndGet();
                            } catch (IllegalStateException e) {
                                refused.incrementAndGet();
                            }
                            return null;
                        }));
                    }
                    start.countDown();
                    for (Future<?> f : futures) {
                        f.get(60, TimeUnit.SECONDS);
                    }
                    if (closedIt.get() != 1 || refused.get() != threads - 1) {
                        fail(p + ", round " + round + ": " + closedIt + " of " + threads + " racing close() calls closed the"
                                + " buffer and " + refused + " were refused; exactly one must close it");
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
