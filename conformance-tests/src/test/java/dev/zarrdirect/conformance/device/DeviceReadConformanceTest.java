// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.device;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ReadSettings;
import dev.zarrdirect.core.plan.ReadPlan;
import dev.zarrdirect.core.plan.ReadPlanner;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.registry.BackendRegistry;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every available device backend reads, through {@code readToDevice}, byte for byte what the CPU
 * backend reads: whole arrays and partial selections, edge chunks, missing chunks (fill on the
 * device), every codec chain (device codecs, CPU fallbacks, sharding through the host).
 * Backends that are unavailable are listed with their probe's reason; with ZD_REQUIRE_DEVICE=NAME
 * a missing backend fails instead.
 */
class DeviceReadConformanceTest {

    static final long SEED = Long.getLong("zd.seed", System.nanoTime());

    /** Device contexts record where each buffer was allocated, so that a leak names its stack. */
    private static final String TRACK = "zarrdirect.trackBuffers";

    /**
     * Fails naming each buffer of the device backend still open once a check's reads are done and
     * their tensors closed: a read, failed or not, must give back all it took.
     */
    static void assertNoLiveBuffers(Backend backend) {
        switch (backend) {
            case dev.zarrdirect.opencl.OpenClBackend b -> b.assertNoLiveBuffers();
            case dev.zarrdirect.cuda.CudaBackend b -> b.assertNoLiveBuffers();
            case dev.zarrdirect.cpu.CpuBackend b -> b.assertNoLiveBuffers();
            default -> fail("no leak check for the " + backend.name() + " backend (" + backend.getClass().getName() + ")");
        }
    }

    static CodecMetadata c(String name, Map<String, Object> cfg) {
        return CodecMetadata.of(name, cfg);
    }

    static CodecMetadata blosc(String cname, long clevel, String shuffle, long typesize, long blocksize) {
        return c("blosc", Map.of("cname", cname, "clevel", clevel, "shuffle", shuffle, "typesize", typesize,
                "blocksize", blocksize));
    }

    static List<List<CodecMetadata>> chains() {
        CodecMetadata le = c("bytes", Map.of("endian", "little"));
        CodecMetadata be = c("bytes", Map.of("endian", "big"));
        CodecMetadata zstd = c("zstd", Map.of("level", 3L, "checksum", false));
        return List.of(
                List.of(le),
                List.of(be),
                List.of(le, zstd),
                List.of(le, c("zstd", Map.of("level", 19L, "checksum", true)), c("crc32c", Map.of())),
                List.of(be, c("gzip", Map.of("level", 1L))),
                // blosc on the device: every internal compressor, byte and bit shuffle, forced small
                // blocks (several units per chunk)
                List.of(le, blosc("lz4", 5, "shuffle", 4, 0)),
                List.of(le, blosc("lz4hc", 9, "bitshuffle", 4, 256)),
                List.of(le, blosc("blosclz", 5, "shuffle", 4, 128)),
                List.of(le, blosc("zstd", 3, "noshuffle", 4, 0)),
                List.of(le, blosc("zlib", 1, "shuffle", 4, 0)),
                List.of(le, c("numcodecs.zlib", Map.of("level", 6L))),
                List.of(le, c("gzip", Map.of("level", 9L)), c("crc32c", Map.of())),
                // netCDF-like: a byte shuffle (element size 2 over 4-byte elements too), then zlib
                List.of(le, c("numcodecs.shuffle", Map.of("elementsize", 2L)), c("numcodecs.zlib", Map.of("level", 4L))),
                List.of(le, c("numcodecs.shuffle", Map.of("elementsize", 5L))), // chunks of 48 elements: a tail of 1-4 bytes
                List.of(c("transpose", Map.of("order", List.of(2L, 0L, 1L))), le, zstd),
                List.of(c("sharding_indexed", Map.of("chunk_shape", List.of(1L, 3L, 8L),
                        "codecs", List.of(le.toJson(), zstd.toJson()),
                        "index_codecs", List.of(le.toJson(), c("crc32c", Map.of()).toJson()), "index_location", "end"))));
    }

    @TestFactory
    Stream<DynamicTest> everyDeviceBackendReadsWhatTheCpuReads() {
        BackendRegistry reg = BackendRegistry.discover();
        String required = System.getenv("ZD_REQUIRE_DEVICE");
        List<DynamicTest> tests = new ArrayList<>();
        for (BackendRegistry.Entry e : reg.entries()) {
            if (e.name().equals("cpu")) {
                continue;
            }
            if (!e.probe().available()) {
                assertNotEquals(e.name(), required, "backend " + e.name() + " is required but unavailable: " + e.probe().reason());
                System.out.println("device conformance: skipping " + e.name() + ": " + e.probe().reason());
                continue;
            }
            tests.add(DynamicTest.dynamicTest(e.name() + " reads what the CPU reads", () -> checkBackend(e.name())));
        }
        if (required != null && !required.isBlank()) {
            assertTrue(reg.availableNames().contains(required), "ZD_REQUIRE_DEVICE=" + required + " but found " + reg.availableNames());
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> manySmallBatchesDecodingAtOnceReadWhatTheCpuReads() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String name : availableDeviceBackends()) {
            tests.add(DynamicTest.dynamicTest(name + " in batches of 7, 3 decoding at once",
                    () -> checkManyBatches(name, new ReadSettings(3, 7, 0, 0, false))));
            // 1, 2, 4, 7, 7, ...: up to five small batches decode at once (3 x 7 tasks in flight)
            tests.add(DynamicTest.dynamicTest(name + " in batches ramping from 1 to 7",
                    () -> checkManyBatches(name, new ReadSettings(3, 7, 0, 1, false))));
            // chunks of 128 decoded bytes: batches of 5 by bytes, whatever the backend's count
            tests.add(DynamicTest.dynamicTest(name + " in batches cut at 700 decoded bytes",
                    () -> checkManyBatches(name, new ReadSettings(3, 0, 700, 0, false))));
            // host-decoded stages (gzip) one batch at a time, each copied once it is all decoded
            tests.add(DynamicTest.dynamicTest(name + " in batches of 7, host decodes not overlapped",
                    () -> checkManyBatches(name, new ReadSettings(3, 7, 0, 0, false, false))));
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> queuedReadsAndWindowPlansReadWhatTheCpuReads() {
        return availableDeviceBackends().stream().map(name -> DynamicTest.dynamicTest(
                name + " queued reads and window plans", () -> checkQueuedReads(name)));
    }

    @TestFactory
    Stream<DynamicTest> deltaChainsReadWhatTheCpuReads() {
        return availableDeviceBackends().stream().map(name -> DynamicTest.dynamicTest(
                name + " delta + zlib / blosc / zstd chains", () -> checkDelta(name)));
    }

    /**
     * numcodecs.delta before zlib, blosc (byte shuffle of the element size) or zstd, for element sizes
     * 1 to 8 (signed, unsigned with a same-size astype, floats): arrays of 135 chunks with edge chunks
     * and a missing one, read whole and in part, give the CPU's bytes; the delta stage runs on the device.
     */
    private void checkDelta(String name) {
        Random rnd = new Random(SEED + 2);
        long[] shape = {9, 11, 37};
        long[] chunks = {1, 4, 8};
        CodecMetadata le = c("bytes", Map.of("endian", "little"));
        // each type with one compressor after it (chain 0: zlib, 1: blosc, 2: zstd), every compressor twice
        record Case(DataType type, String dtype, String astype, int chain) {
        }
        List<Case> cases = List.of(new Case(DataType.INT8, "|i1", "|i1", 0), new Case(DataType.UINT16, "<u2", "<i2", 1),
                new Case(DataType.INT32, "<i4", "<i4", 2), new Case(DataType.UINT64, "<u8", "<u8", 1),
                new Case(DataType.FLOAT32, "<f4", "<f4", 0), new Case(DataType.FLOAT64, "<f8", "<f8", 2));
        try (ZarrContext cpu = ZarrContext.open("cpu", 2); ZarrContext dev = ZarrContext.builder().backend(name).threads(2).set(TRACK, "true").open()) {
            for (Case k : cases) {
                int size = k.type().byteSize();
                CodecMetadata delta = c("numcodecs.delta", Map.of("dtype", k.dtype(), "astype", k.astype()));
                List<List<CodecMetadata>> chains = List.of(switch (k.chain()) {
                    case 0 -> List.of(delta, le, c("numcodecs.zlib", Map.of("level", 1L)));
                    case 1 -> List.of(delta, le, blosc("lz4", 5, "shuffle", size, 0));
                    default -> List.of(delta, c("bytes", Map.of("endian", "big")), c("zstd", Map.of("level", 3L, "checksum", false)));
                });
                for (List<CodecMetadata> codecs : chains) {
                    Store store = new MemoryStore();
                    FillValue fill = k.type().equals(DataType.FLOAT32) ? FillValue.parse("NaN", k.type(), "test")
                            : FillValue.zero(k.type());
                    ZarrArray w = Zarr.createArray(cpu, store, "a", ArrayMetadata.create(shape, k.type(), chunks, fill, codecs));
                    try (Tensor t = Tensor.allocateHost(k.type(), shape)) {
                        for (long i = 0; i < t.elementCount(); i++) {
                            long at = i * size;
                            switch (k.type().kind()) {
                                case FLOAT -> {
                                    double v = 280 + 10 * Math.sin(i / 50.0) + rnd.nextGaussian();
                                    if (size == 4) {
                                        t.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, (float) v);
                                    } else {
                                        t.segment().set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, v);
                                    }
                                }
                                default -> {
                                    long v = rnd.nextInt(9) == 0 ? rnd.nextLong() : i % 37 + rnd.nextInt(3);
                                    for (int b = 0; b < size; b++) {
                                        t.segment().set(ValueLayout.JAVA_BYTE, at + b, (byte) (v >>> (8 * b)));
                                    }
                                }
                            }
                        }
                        w.write(t);
                    }
                    store.delete("a/" + w.metadata().chunkKey(new long[]{4, 1, 2}));
                    ZarrArray onCpu = Zarr.openArray(cpu, store, "a");
                    ZarrArray onDev = Zarr.openArray(dev, store, "a");
                    assertTrue(onDev.devicePath().startsWith("batched decode on"), name + " " + k + " " + codecs
                            + " runs every stage on the device: " + onDev.devicePath());
                    for (Selection sel : List.of(Selection.all(shape), Selection.parse("1:8,3:10,5:36", shape))) {
                        String what = name + " " + k + " " + codecs.stream().map(CodecMetadata::name).toList() + " " + sel
                                + " via " + onDev.devicePath() + " (seed " + SEED + ")";
                        try (Tensor expect = onCpu.read(sel); Tensor got = onDev.readToDevice(sel);
                             HostBuffer back = HostBuffer.allocate(expect.byteSize())) {
                            dev.backend().copy(got.buffer(), got.byteOffset(), back, 0, expect.byteSize());
                            long m = expect.segment().mismatch(back.segment());
                            assertEquals(-1, m, what + ": first difference at byte " + m);
                        }
                    }
                }
            }
            assertNoLiveBuffers(dev.backend());
        }
    }

    /** The device backends (every one but cpu) that are available here. */
    private static List<String> availableDeviceBackends() {
        return BackendRegistry.discover().entries().stream()
                .filter(e -> !e.name().equals("cpu") && e.probe().available())
                .map(BackendRegistry.Entry::name).toList();
    }

    /**
     * Reads queued one after another (readToDeviceAsync, several in flight, small batches so that
     * their batches interleave in the pipeline) give the CPU's bytes; a queued read of a corrupt chunk
     * fails alone, naming it, while the reads queued before and after it succeed; overlapping windows
     * read as one plan give each window's bytes.
     */
    private void checkQueuedReads(String name) {
        Random rnd = new Random(SEED + 1);
        long[] shape = {16, 6, 24};
        CodecMetadata le = c("bytes", Map.of("endian", "little"));
        CodecMetadata zstd = c("zstd", Map.of("level", 3L, "checksum", false));
        List<List<CodecMetadata>> chains = List.of(List.of(le, zstd),
                List.of(c("sharding_indexed", Map.of("chunk_shape", List.of(1L, 3L, 8L),
                        "codecs", List.of(le.toJson(), zstd.toJson()),
                        "index_codecs", List.of(le.toJson()), "index_location", "start"))));
        ReadSettings small = new ReadSettings(2, 3, 0, 0, false);
        try (ZarrContext cpu = ZarrContext.open("cpu", 2);
             ZarrContext dev = ZarrContext.builder().backend(name).threads(3).readSettings(small).set(TRACK, "true").open()) {
            for (List<CodecMetadata> codecs : chains) {
                boolean sharded = codecs.size() == 1;
                Store store = new MemoryStore();
                ZarrArray w = Zarr.createArray(cpu, store, "a", ArrayMetadata.create(shape, DataType.FLOAT32,
                        sharded ? new long[]{2, 6, 24} : new long[]{2, 3, 8}, FillValue.parse("NaN", DataType.FLOAT32, "t"),
                        codecs));
                try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, shape)) {
                    for (long i = 0; i < t.elementCount(); i++) {
                        t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) rnd.nextGaussian());
                    }
                    w.write(t);
                }
                ZarrArray onCpu = Zarr.openArray(cpu, store, "a");
                ZarrArray onDev = Zarr.openArray(dev, store, "a");
                String what = name + " " + codecs.stream().map(CodecMetadata::name).toList() + " (seed " + SEED + ")";
                // chunk [5, 1, 1] (time steps 10..11) is corrupt: only the window holding it fails
                if (!sharded) {
                    byte[] junk = new byte[40];
                    rnd.nextBytes(junk);
                    store.set("a/" + w.metadata().chunkKey(new long[]{5, 1, 1}), java.lang.foreign.MemorySegment.ofArray(junk));
                }
                List<Selection> windows = new ArrayList<>();
                List<java.util.concurrent.CompletableFuture<Tensor>> queued = new ArrayList<>();
                for (long s0 = 0; s0 + 3 <= shape[0]; s0 += 2) {
                    Selection sel = new Selection(new long[]{s0, 0, 1}, new long[]{s0 + 3, 6, 23});
                    windows.add(sel);
                    queued.add(onDev.readToDeviceAsync(sel));
                }
                for (int i = 0; i < windows.size(); i++) {
                    Selection sel = windows.get(i);
                    boolean bad = !sharded && sel.start()[0] <= 11 && sel.stop()[0] > 10;
                    if (bad) {
                        java.util.concurrent.CompletionException x = assertThrows(java.util.concurrent.CompletionException.class,
                                queued.get(i)::join, what + " window " + sel);
                        assertTrue(String.valueOf(x.getCause()).contains("[5, 1, 1]"), what + ": " + x.getCause());
                        continue;
                    }
                    try (Tensor expect = onCpu.read(sel); Tensor got = queued.get(i).join();
                         HostBuffer back = HostBuffer.allocate(expect.byteSize())) {
                        dev.backend().copy(got.buffer(), got.byteOffset(), back, 0, expect.byteSize());
                        long m = expect.segment().mismatch(back.segment());
                        assertEquals(-1, m, what + " queued window " + sel + ": first difference at byte " + m);
                    }
                }
                // the good windows as one plan, stacked: the chunks they share are read once
                List<ReadPlanner.Request> requests = new ArrayList<>();
                List<Selection> good = windows.stream().filter(sel -> sharded || sel.stop()[0] <= 10).toList();
                for (int i = 0; i < good.size(); i++) {
                    requests.add(new ReadPlanner.Request(good.get(i).start(), good.get(i).stop(), new long[]{3L * i, 0, 0}));
                }
                long[] dest = {3L * good.size(), 6, 22};
                ReadPlan plan = onDev.plan(requests, dest);
                assertTrue(plan.placementCount() > plan.chunkCount(), what + ": overlapping windows share chunks: " + plan);
                try (Tensor got = onDev.readToDeviceAsync(plan).join();
                     HostBuffer back = HostBuffer.allocate(got.byteSize())) {
                    dev.backend().copy(got.buffer(), got.byteOffset(), back, 0, got.byteSize());
                    long per = 3L * 6 * 22 * 4;
                    for (int i = 0; i < good.size(); i++) {
                        try (Tensor expect = onCpu.read(good.get(i))) {
                            long m = expect.segment().mismatch(back.segment().asSlice(i * per, per));
                            assertEquals(-1, m, what + " window " + i + " of the plan: first difference at byte " + m);
                        }
                    }
                }
            }
            assertNoLiveBuffers(dev.backend());
        }
    }

    /**
     * Arrays of 135 chunks (plain, and in shards of 15 inner chunks) read in device batches of 7 with
     * three batches decoding at once: the same bytes as the CPU, missing chunks filled; a corrupt
     * chunk in a middle batch fails the read naming that chunk, and the next read works.
     */
    private void checkManyBatches(String name, ReadSettings settings) {
        Random rnd = new Random(SEED);
        long[] shape = {9, 12, 40};
        CodecMetadata le = c("bytes", Map.of("endian", "little"));
        CodecMetadata zstd = c("zstd", Map.of("level", 3L, "checksum", false));
        // gzip has no device implementation: its batches are decoded on the host (two at once, copied while decoding)
        List<List<CodecMetadata>> chains = List.of(List.of(le, zstd), List.of(le, c("gzip", Map.of("level", 1L))),
                List.of(c("sharding_indexed", Map.of("chunk_shape", List.of(1L, 4L, 8L),
                        "codecs", List.of(le.toJson(), zstd.toJson()),
                        "index_codecs", List.of(le.toJson(), c("crc32c", Map.of()).toJson()), "index_location", "end"))));
        try (ZarrContext cpu = ZarrContext.open("cpu", 2); ZarrContext dev = ZarrContext.builder().backend(name).threads(3).readSettings(settings).set(TRACK, "true")
                .open()) {
            for (List<CodecMetadata> codecs : chains) {
                boolean sharded = codecs.size() == 1;
                long[] chunks = sharded ? new long[]{1, 12, 40} : new long[]{1, 4, 8};
                Store store = new MemoryStore();
                ArrayMetadata md = ArrayMetadata.create(shape, DataType.FLOAT32, chunks,
                        FillValue.parse("NaN", DataType.FLOAT32, "test"), codecs);
                ZarrArray w = Zarr.createArray(cpu, store, "a", md);
                try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, shape)) {
                    for (long i = 0; i < t.elementCount(); i++) {
                        t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) (i % 40 + rnd.nextGaussian()));
                    }
                    w.write(t);
                }
                store.delete("a/" + w.metadata().chunkKey(new long[]{4, 0, 0}));
                ZarrArray onCpu = Zarr.openArray(cpu, store, "a");
                ZarrArray onDev = Zarr.openArray(dev, store, "a");
                for (Selection sel : List.of(Selection.all(shape), Selection.parse("1:8,3:11,5:37", shape))) {
                    String what = name + " " + codecs.stream().map(CodecMetadata::name).toList() + " " + sel + " (seed " + SEED + ")";
                    try (Tensor expect = onCpu.read(sel); Tensor got = onDev.readToDevice(sel);
                         HostBuffer back = HostBuffer.allocate(expect.byteSize())) {
                        dev.backend().copy(got.buffer(), got.byteOffset(), back, 0, expect.byteSize());
                        long m = expect.segment().mismatch(back.segment());
                        assertEquals(-1, m, what + ": first difference at byte " + m);
                    }
                }
                // the checksum on a device backend decodes there (checksum --backend cuda relies on it)
                assertEquals(ArrayChecksum.sha256(onCpu), ArrayChecksum.sha256(onDev), name + " checksum " + codecs);
                if (!sharded) {
                    // Chunk [6, 1, 2] sits in a middle batch; garbage in it fails the whole read, by name.
                    String key = "a/" + w.metadata().chunkKey(new long[]{6, 1, 2});
                    byte[] junk = new byte[64];
                    rnd.nextBytes(junk);
                    store.set(key, java.lang.foreign.MemorySegment.ofArray(junk));
                    RuntimeException e = assertThrows(RuntimeException.class, () -> onDev.readToDevice(Selection.all(shape)).close());
                    assertTrue(String.valueOf(e.getMessage()).contains("[6, 1, 2]"), name + ": " + e);
                    try (Tensor got = onDev.readToDevice(Selection.parse("0:6", shape))) {
                        assertEquals(6 * 12 * 40, got.elementCount());
                    }
                }
            }
            assertNoLiveBuffers(dev.backend());
        }
    }


    private void checkBackend(String name) {
        Random rnd = new Random(SEED);
        try (ZarrContext cpu = ZarrContext.open("cpu", 2); ZarrContext dev = ZarrContext.builder().backend(name).threads(2).set(TRACK, "true").open()) {
            Backend b = dev.backend();
            long[] shape = {5, 7, 19};
            long[] chunks = {2, 3, 8};
            for (List<CodecMetadata> codecs : chains()) {
                for (DataType dt : List.of(DataType.FLOAT32, DataType.INT16, DataType.UINT8, DataType.FLOAT64, DataType.COMPLEX64)) {
                    Store store = new MemoryStore();
                    ArrayMetadata md = ArrayMetadata.create(shape, dt, chunks, FillValue.zero(dt), codecs);
                    if (dt.equals(DataType.FLOAT32)) {
                        md = md.withFillValue(FillValue.parse("NaN", dt, "test"));
                    }
                    ZarrArray w = Zarr.createArray(cpu, store, "a", md);
                    try (Tensor t = Tensor.allocateHost(dt, shape)) {
                        for (long i = 0; i < t.byteSize(); i++) {
                            t.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (rnd.nextInt(5) == 0 ? rnd.nextInt(256) : i % 7));
                        }
                        if (dt.equals(DataType.FLOAT32)) {
                            for (long i = 0; i < t.elementCount(); i++) {
                                t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) rnd.nextGaussian());
                            }
                        }
                        w.write(t);
                    }
                    // Leave one chunk out so the device fills it.
                    store.delete("a/" + w.metadata().chunkKey(new long[]{1, 1, 1}));
                    ZarrArray onCpu = Zarr.openArray(cpu, store, "a");
                    ZarrArray onDev = Zarr.openArray(dev, store, "a");
                    List<Selection> sels = new ArrayList<>(List.of(Selection.all(shape), Selection.parse("1:4,2:7,5:17", shape),
                            Selection.parse("4,6,18", shape), Selection.parse("0:0", shape)));
                    // Writing from device memory: copied back and encoded on the CPU, read back the same.
                    try (Tensor all = onDev.readToDevice(Selection.all(shape))) {
                        ZarrArray copy = Zarr.createArray(dev, store, "copy", md);
                        copy.write(all);
                        assertEquals(ArrayChecksum.sha256(onCpu),
                                ArrayChecksum.sha256(Zarr.openArray(cpu, store, "copy")),
                                name + " write from device memory of " + dt + " " + codecs);
                    }
                    if (name.equals("cuda")) {
                        // Unified memory as the destination: the same bytes.
                        try (Tensor expect = onCpu.read(Selection.all(shape));
                             Tensor got = onDev.readToDevice(Selection.all(shape), MemoryKind.MANAGED);
                             HostBuffer back = HostBuffer.allocate(expect.byteSize())) {
                            assertEquals(MemoryKind.MANAGED, got.buffer().kind());
                            b.copy(got.buffer(), 0, back, 0, expect.byteSize());
                            assertEquals(-1, expect.segment().mismatch(back.segment()), name + " MANAGED read of " + dt + " " + codecs);
                        }
                    }
                    for (Selection sel : sels) {
                        String what = name + " " + dt + " " + codecs.stream().map(CodecMetadata::name).toList() + " " + sel
                                + " via " + onDev.devicePath() + " (seed " + SEED + ")";
                        try (Tensor expect = onCpu.read(sel); Tensor got = onDev.readToDevice(sel)) {
                            assertEquals(expect.elementCount(), got.elementCount(), what);
                            try (HostBuffer back = HostBuffer.allocate(Math.max(1, expect.byteSize()))) {
                                Buffer host = back.slice(0, expect.byteSize());
                                if (expect.byteSize() > 0) {
                                    b.copy(got.buffer(), got.byteOffset(), host, 0, expect.byteSize());
                                }
                                long m = expect.segment().mismatch(host.segment());
                                assertEquals(-1, m, what + ": first difference at byte " + m);
                            }
                        }
                    }
                }
            }
            assertNoLiveBuffers(dev.backend());
        }
    }
}
