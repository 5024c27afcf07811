// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.dlpack;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.ExternalBuffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class DLPackTest {

    // Byte offsets of DLManagedTensorVersioned on LP64, written out by hand from the ABI so that a
    // mistake in DLPack's layouts cannot hide behind the same layouts in the test.
    private static final long MAJOR = 0;
    private static final long MINOR = 4;
    private static final long CTX = 8;
    private static final long DELETER = 16;
    private static final long FLAGS = 24;
    private static final long DATA = 32;
    private static final long DEVICE_TYPE = 40;
    private static final long DEVICE_ID = 44;
    private static final long NDIM = 48;
    private static final long CODE = 52;
    private static final long BITS = 53;
    private static final long LANES = 54;
    private static final long SHAPE = 56;
    private static final long STRIDES = 64;
    private static final long BYTE_OFFSET = 72;
    private static final long STRUCT_SIZE = 80;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle CALL_DELETER = LINKER.downcallHandle(FunctionDescriptor.ofVoid(ADDRESS));

    @TempDir
    static Path tmp;

    private static Arena libraryArena;
    private static NativeLib lib;

    /** The functions of src/test/c/zd_dlpack_test.c. */
    private record NativeLib(MethodHandle consume, MethodHandle deleteOnThread, MethodHandle produce,
                             MethodHandle produceStrided, MethodHandle deletedCount) {

        double consume(MemorySegment managed) throws Throwable {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment sum = a.allocate(JAVA_DOUBLE);
                long status = (long) consume.invokeExact(managed, sum);
                assertEquals(0L, status, "zd_consume error code (see the enum in zd_dlpack_test.c)");
                return sum.get(JAVA_DOUBLE, 0);
            }
        }

        int deleted() throws Throwable {
            return (int) deletedCount.invokeExact();
        }
    }

    private static synchronized NativeLib nativeLib() throws IOException, InterruptedException {
        if (lib != null) {
            return lib;
        }
        Path src = Path.of("src", "test", "c", "zd_dlpack_test.c").toAbsolutePath();
        assertTrue(Files.isRegularFile(src), "C test source missing at " + src + " (tests run from the api module)");
        assumeTrue(gccAvailable(), "gcc is not on the PATH, so the native DLPack consumer and producer cannot be built");
        Path so = tmp.resolve("libzd_dlpack_test.so");
        Process gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O2", "-pthread", "-I", src.getParent().toString(),
                "-o", so.toString(), src.toString()).redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, gcc.waitFor(), "gcc failed on " + src + ":\n" + out);
        libraryArena = Arena.ofShared();
        SymbolLookup symbols = SymbolLookup.libraryLookup(so, libraryArena);
        lib = new NativeLib(
                downcall(symbols, "zd_consume", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS)),
                downcall(symbols, "zd_delete_on_thread", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                downcall(symbols, "zd_produce", FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_INT)),
                downcall(symbols, "zd_produce_strided", FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_INT)),
                downcall(symbols, "zd_deleted_count", FunctionDescriptor.of(JAVA_INT)));
        return lib;
    }

    private static MethodHandle downcall(SymbolLookup symbols, String name, FunctionDescriptor fd) {
        MemorySegment fn = symbols.find(name).orElseThrow(() -> new AssertionError("symbol " + name + " not in library"));
        return LINKER.downcallHandle(fn, fd);
    }

    private static boolean gccAvailable() {
        try {
            Process p = new ProcessBuilder("gcc", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @AfterEach
    void everyExportWasReleased() {
        assertEquals(0, DLPack.liveExports(), "exports whose deleter never ran");
    }

    @AfterAll
    static void unloadLibrary() {
        if (libraryArena != null) {
            libraryArena.close();
        }
    }

    /** A float32 C-order host tensor holding value(i) = i + 0.5 at flat index i. */
    private static Tensor floats(long... shape) {
        Tensor t = Tensor.allocateHost(DataType.FLOAT32, shape);
        MemorySegment s = t.buffer().segment();
        for (long i = 0; i < t.elementCount(); i++) {
            s.setAtIndex(JAVA_FLOAT, i, i + 0.5f);
        }
        return t;
    }

    /** The sum of a float32 host tensor's elements, read through its own strides. */
    private static double javaSum(Tensor t) {
        MemorySegment s = t.buffer().segment();
        long[] shape = t.shape();
        long[] index = new long[shape.length];
        double sum = 0;
        for (long n = 0; n < t.elementCount(); n++) {
            sum += s.get(JAVA_FLOAT, t.byteOffsetOf(index));
            for (int d = shape.length - 1; d >= 0; d--) {
                if (++index[d] < shape[d]) {
                    break;
                }
                index[d] = 0;
            }
        }
        return sum;
    }

    @Test
    void nativeConsumerSumsAnExportedCOrderTensorAndItsDeleterReleasesTheExport() throws Throwable {
        NativeLib c = nativeLib();
        // example-begin: the package-info snippet
        try (Tensor t = floats(3, 4)) {
            MemorySegment managed = DLPack.export(t);
            assertEquals(1, DLPack.liveExports());
            double sum = c.consume(managed);
            assertEquals(0, DLPack.liveExports());
            // example-end
            assertEquals(javaSum(t), sum);
            assertEquals(12 * 11 / 2.0 + 6, sum);
            assertTrue(t.buffer().isOpen(), "export() lends; the deleter must not close the buffer");
        }
    }

    @Test
    void nativeConsumerReadsATransposedColumnSliceThroughItsStridesAndByteOffset() throws Throwable {
        NativeLib c = nativeLib();
        try (Tensor base = floats(5, 6)) {
            // Columns 2..4 of a [5, 6] matrix, transposed to [3, 5].
            Tensor view = Tensor.of(base.buffer(), 2L * Float.BYTES, DataType.FLOAT32, new long[]{3, 5}, new long[]{1, 6});
            double expected = 0;
            for (int i = 0; i < 5; i++) {
                for (int j = 2; j < 5; j++) {
                    expected += i * 6 + j + 0.5;
                }
            }
            assertEquals(expected, javaSum(view));
            assertEquals(expected, c.consume(DLPack.export(view)));
        }
    }

    @Test
    void nativeConsumerReadsAViewWithNegativeStridesAndAnInteriorByteOffset() throws Throwable {
        NativeLib c = nativeLib();
        try (Tensor base = floats(4, 6)) {
            // Rows 3..0 reversed, every second column from 1: starts at element [3, 1].
            Tensor view = Tensor.of(base.buffer(), base.byteOffsetOf(3, 1), DataType.FLOAT32,
                    new long[]{4, 3}, new long[]{-6, 2});
            double expected = 0;
            for (int i = 0; i < 4; i++) {
                for (int j = 1; j < 6; j += 2) {
                    expected += i * 6 + j + 0.5;
                }
            }
            assertEquals(expected, c.consume(DLPack.export(view)));
        }
    }

    @Test
    void nativeConsumerAcceptsRankZeroAndEmptyExports() throws Throwable {
        NativeLib c = nativeLib();
        try (Tensor scalar = Tensor.allocateHost(DataType.FLOAT32); Tensor empty = floats(0, 3)) {
            scalar.buffer().segment().set(JAVA_FLOAT, 0, 7.25f);
            assertEquals(7.25, c.consume(DLPack.export(scalar)));
            assertEquals(0.0, c.consume(DLPack.export(empty)));
        }
    }

    @Test
    void deleterCalledFromANativeThreadTheJvmHasNeverSeenReleasesTheExport() throws Throwable {
        NativeLib c = nativeLib();
        try (Tensor t = floats(8)) {
            MemorySegment managed = DLPack.export(t);
            assertEquals(0, (int) c.deleteOnThread().invokeExact(managed));
            assertEquals(0, DLPack.liveExports());
            assertTrue(t.buffer().isOpen());
        }
    }

    @Test
    void exportOwnedHandsTheTensorToTheConsumerWhoseDeleterClosesItsBuffer() throws Throwable {
        NativeLib c = nativeLib();
        Tensor t = floats(2, 3);
        Buffer buffer = t.buffer();
        double sum = c.consume(DLPack.exportOwned(t));
        assertEquals(6 * 5 / 2.0 + 3, sum);
        assertFalse(buffer.isOpen(), "the deleter of exportOwned must close " + buffer);
    }

    @Test
    void aSecondDeleterCallOnTheSamePointerIsIgnoredInsteadOfCrashing() throws Throwable {
        // The second call logs a warning on purpose: capture it here (and check it) instead of
        // letting it reach the console of a passing test run.
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger(DLPack.class.getName());
        List<java.util.logging.LogRecord> logged = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override public void publish(java.util.logging.LogRecord r) { logged.add(r); }
            @Override public void flush() { }
            @Override public void close() { }
        };
        boolean parents = jul.getUseParentHandlers();
        jul.addHandler(capture);
        jul.setUseParentHandlers(false);
        try (Tensor t = floats(4)) {
            MemorySegment managed = DLPack.export(t);
            MemorySegment deleter = managed.get(ADDRESS, DELETER);
            CALL_DELETER.invokeExact(deleter, managed);
            assertEquals(0, DLPack.liveExports());
            assertEquals(List.of(), logged.stream().map(java.util.logging.LogRecord::getMessage).toList(),
                    "the first deleter call logs nothing");
            CALL_DELETER.invokeExact(deleter, managed);
            assertEquals(0, DLPack.liveExports());
            assertTrue(t.buffer().isOpen());
            assertEquals(1, logged.size(), "the second call is reported once");
            assertTrue(logged.get(0).getMessage().contains("the deleter was called twice"), logged.get(0).getMessage());
        } finally {
            jul.removeHandler(capture);
            jul.setUseParentHandlers(parents);
        }
    }

    @Test
    void exportedStructCarriesVersionDeviceDtypeShapeStridesAndOffsetAtTheAbiOffsets() throws Throwable {
        try (Tensor base = Tensor.allocateHost(DataType.COMPLEX64, 4, 5)) {
            Tensor view = Tensor.of(base.buffer(), 16, DataType.COMPLEX64, new long[]{3, 2}, new long[]{5, 2});
            MemorySegment m = DLPack.export(view);
            try {
                assertEquals(STRUCT_SIZE, DLPack.MANAGED_TENSOR_VERSIONED_LAYOUT.byteSize());
                assertEquals(1, m.get(JAVA_INT, MAJOR));
                assertEquals(1, m.get(JAVA_INT, MINOR));
                assertTrue(m.get(ADDRESS, CTX).address() != 0, "manager_ctx holds the export id");
                assertEquals(0L, m.get(JAVA_LONG, FLAGS));
                assertFalse(DLPack.isReadOnly(m));
                assertEquals(base.buffer().address(), m.get(ADDRESS, DATA).address());
                assertEquals(1, m.get(JAVA_INT, DEVICE_TYPE));
                assertEquals(0, m.get(JAVA_INT, DEVICE_ID));
                assertEquals(2, m.get(JAVA_INT, NDIM));
                assertEquals(5, m.get(JAVA_BYTE, CODE));
                assertEquals(64, Byte.toUnsignedInt(m.get(JAVA_BYTE, BITS)));
                assertEquals(1, m.get(JAVA_SHORT, LANES));
                assertArrayEquals(new long[]{3, 2}, m.get(ADDRESS, SHAPE).reinterpret(16).toArray(JAVA_LONG));
                assertArrayEquals(new long[]{5, 2}, m.get(ADDRESS, STRIDES).reinterpret(16).toArray(JAVA_LONG));
                assertEquals(16L, m.get(JAVA_LONG, BYTE_OFFSET));
            } finally {
                CALL_DELETER.invokeExact(m.get(ADDRESS, DELETER), m);
            }
        }
    }

    @Test
    void boolExportsAsCodeSixWithEightBits() throws Throwable {
        try (Tensor t = Tensor.allocateHost(DataType.BOOL, 3)) {
            MemorySegment m = DLPack.export(t);
            assertEquals(6, m.get(JAVA_BYTE, CODE));
            assertEquals(8, m.get(JAVA_BYTE, BITS));
            CALL_DELETER.invokeExact(m.get(ADDRESS, DELETER), m);
        }
    }

    @Test
    void importOfAProducersTensorHasItsShapeAndValuesAndClosingCallsTheDeleterOnce() throws Throwable {
        NativeLib c = nativeLib();
        MemorySegment managed = (MemorySegment) c.produce().invokeExact(3, 5);
        assertFalse(DLPack.isReadOnly(managed));
        int deletedBefore = c.deleted();
        Tensor t = DLPack.importTensor(managed);
        assertArrayEquals(new long[]{3, 5}, t.shape());
        assertArrayEquals(new long[]{5, 1}, t.strides(), "NULL strides mean C order");
        assertEquals(DataType.FLOAT32, t.dataType());
        assertEquals(Device.CPU, t.device());
        assertEquals(MemoryKind.HOST, t.buffer().kind());
        assertEquals(15L * Float.BYTES, t.buffer().byteSize());
        MemorySegment s = t.buffer().segment();
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 5; j++) {
                assertEquals(i * 5 + j, s.get(JAVA_FLOAT, t.byteOffsetOf(i, j)), "element [" + i + ", " + j + "]");
            }
        }
        assertEquals(deletedBefore, c.deleted(), "importing must not release");
        t.close();
        assertEquals(deletedBefore + 1, c.deleted());
        assertThrows(IllegalStateException.class, t::close);
        assertEquals(deletedBefore + 1, c.deleted(), "a second close must not call the deleter again");
    }

    @Test
    void importOfAStridedReadOnlyProducerTensorHonoursByteOffsetStridesAndTheReadOnlyFlag() throws Throwable {
        NativeLib c = nativeLib();
        MemorySegment managed = (MemorySegment) c.produceStrided().invokeExact(4, 3);
        assertTrue(DLPack.isReadOnly(managed));
        int deletedBefore = c.deleted();
        try (Tensor t = DLPack.importTensor(managed)) {
            assertArrayEquals(new long[]{4, 3}, t.shape());
            assertArrayEquals(new long[]{1, 4}, t.strides());
            assertFalse(t.isContiguous());
            MemorySegment s = t.buffer().segment();
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 3; j++) {
                    assertEquals(i * 3 + j, s.get(JAVA_FLOAT, t.byteOffsetOf(i, j)), "element [" + i + ", " + j + "]");
                }
            }
            assertTrue(s.isReadOnly());
            assertThrows(IllegalArgumentException.class, () -> s.set(JAVA_FLOAT, t.byteOffsetOf(0, 0), 1f));
        }
        assertEquals(deletedBefore + 1, c.deleted());
    }

    @Test
    void failedImportLeavesOwnershipWithTheCallerAndCallsNoDeleter() throws Throwable {
        NativeLib c = nativeLib();
        MemorySegment managed = ((MemorySegment) c.produce().invokeExact(2, 2)).reinterpret(STRUCT_SIZE);
        int deletedBefore = c.deleted();
        managed.set(JAVA_INT, MAJOR, 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DLPack.importTensor(managed));
        assertTrue(e.getMessage().contains("version 2.1"), e.getMessage());
        assertEquals(deletedBefore, c.deleted());
        managed.set(JAVA_INT, MAJOR, 1);
        DLPack.importTensor(managed).close();
        assertEquals(deletedBefore + 1, c.deleted());
    }

    /** A valid float32 [2] CPU struct without a deleter, in {@code arena}. */
    private static MemorySegment handMade(Arena arena) {
        MemorySegment data = arena.allocate(JAVA_FLOAT, 2);
        MemorySegment shape = arena.allocateFrom(JAVA_LONG, 2L);
        MemorySegment m = arena.allocate(STRUCT_SIZE, 8);
        m.set(JAVA_INT, MAJOR, 1);
        m.set(ADDRESS, DATA, data);
        m.set(JAVA_INT, DEVICE_TYPE, 1);
        m.set(JAVA_INT, NDIM, 1);
        m.set(JAVA_BYTE, CODE, (byte) 2);
        m.set(JAVA_BYTE, BITS, (byte) 32);
        m.set(JAVA_SHORT, LANES, (short) 1);
        m.set(ADDRESS, SHAPE, shape);
        return m;
    }

    @Test
    void importRejectsMajorVersionTwoVectorLanesUnknownDtypesAndUnknownDevices() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ok = handMade(arena);
            try (Tensor t = DLPack.importTensor(ok)) {
                assertArrayEquals(new long[]{2}, t.shape());
            }

            MemorySegment v2 = handMade(arena);
            v2.set(JAVA_INT, MAJOR, 2);
            v2.set(JAVA_INT, MINOR, 0);
            assertMessage(v2, "version 2.0");

            MemorySegment lanes = handMade(arena);
            lanes.set(JAVA_SHORT, LANES, (short) 2);
            assertMessage(lanes, "code 2 bits 32 lanes 2");

            MemorySegment bfloat = handMade(arena);
            bfloat.set(JAVA_BYTE, CODE, (byte) 4);
            bfloat.set(JAVA_BYTE, BITS, (byte) 16);
            assertMessage(bfloat, "code 4 bits 16 lanes 1");

            MemorySegment vulkan = handMade(arena);
            vulkan.set(JAVA_INT, DEVICE_TYPE, 7);
            assertMessage(vulkan, "device type code 7");

            MemorySegment noShape = handMade(arena);
            noShape.set(ADDRESS, SHAPE, MemorySegment.NULL);
            assertMessage(noShape, "NULL shape");
        }
        assertThrows(IllegalArgumentException.class, () -> DLPack.importTensor(MemorySegment.NULL));
    }

    private static void assertMessage(MemorySegment managed, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DLPack.importTensor(managed));
        assertTrue(e.getMessage().contains(expected), "expected \"" + expected + "\" in: " + e.getMessage());
        assertTrue(e.getMessage().contains("0x" + Long.toHexString(managed.address())), e.getMessage());
    }

    @Test
    void everyDataTypeMapsToDlpackAndBackThroughAnExportImportRoundTrip() {
        List<DataType> types = new ArrayList<>(DataType.named());
        types.add(DataType.raw(24));
        for (DataType dt : types) {
            for (boolean owned : new boolean[]{false, true}) {
                Tensor original = Tensor.allocateHost(dt, 2, 3);
                MemorySegment bytes = original.buffer().segment();
                for (long i = 0; i < bytes.byteSize(); i++) {
                    bytes.set(JAVA_BYTE, i, (byte) (i * 7 + 1));
                }
                MemorySegment managed = owned ? DLPack.exportOwned(original) : DLPack.export(original);
                Tensor imported = DLPack.importTensor(managed);
                String what = dt + (owned ? " (owned)" : "");
                assertEquals(dt, imported.dataType(), what);
                assertEquals(dt.kind(), imported.dataType().kind(), what);
                assertArrayEquals(original.shape(), imported.shape(), what);
                assertArrayEquals(original.strides(), imported.strides(), what);
                assertEquals(-1L, bytes.mismatch(imported.segment()), what + ": bytes differ");
                assertEquals(1, DLPack.liveExports(), what);
                imported.close();
                assertEquals(0, DLPack.liveExports(), what);
                assertEquals(!owned, original.buffer().isOpen(), what + ": buffer open after the consumer released it");
                if (!owned) {
                    original.close();
                }
            }
        }
    }

    @Test
    void dataTypesWiderThan255BitsCannotBeExported() {
        try (Tensor t = Tensor.allocateHost(DataType.raw(256), 1)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DLPack.export(t));
            assertTrue(e.getMessage().contains("r256") && e.getMessage().contains("256 bits"), e.getMessage());
        }
    }

    @Test
    void deviceTensorsRoundTripAsExternalBuffersWithoutTouchingTheirMemory() {
        AtomicInteger released = new AtomicInteger();
        long fakeDevicePointer = 0x7f00_0000_1000L;
        Device gpu = new Device(DeviceType.CUDA, 1);
        ExternalBuffer onGpu = ExternalBuffer.of(fakeDevicePointer, 4096, gpu, MemoryKind.DEVICE, released::incrementAndGet);
        Tensor t = Tensor.of(onGpu, 64, DataType.FLOAT16, new long[]{4, 8}, new long[]{8, 1});
        MemorySegment m = DLPack.export(t);
        assertEquals(2, m.get(JAVA_INT, DEVICE_TYPE));
        assertEquals(1, m.get(JAVA_INT, DEVICE_ID));
        try (Tensor back = DLPack.importTensor(m)) {
            ExternalBuffer b = assertInstanceOf(ExternalBuffer.class, back.buffer());
            assertEquals(gpu, back.device());
            assertEquals(MemoryKind.DEVICE, b.kind());
            assertEquals(64, back.byteOffset());
            assertEquals(fakeDevicePointer, b.address());
            assertEquals(64 + 32L * 2, b.byteSize());
            assertThrows(UnsupportedOperationException.class, b::segment);
        }
        assertEquals(0, released.get(), "export() lends: the device buffer stays with its owner");
        onGpu.close();
        assertEquals(1, released.get());
    }

    @Test
    void exportRefusesAClosedBufferAndAHeapSegment() {
        Tensor t = Tensor.allocateHost(DataType.INT32, 4);
        t.close();
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> DLPack.export(t));
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());

        Tensor onHeap = Tensor.of(HostBuffer.wrap(MemorySegment.ofArray(new int[4])), DataType.INT32, 4);
        IllegalArgumentException heap = assertThrows(IllegalArgumentException.class, () -> DLPack.export(onHeap));
        assertTrue(heap.getMessage().contains("heap"), heap.getMessage());
    }
}
