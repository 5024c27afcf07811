// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.ChecksumMismatchException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ArrayToBytesCodec;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.testing.BackendContract.Placement;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What every device codec must do, run once per backend: for each codec the backend's
 * {@link Backend#codecs() provider} offers, decoding gives byte for byte what the CPU codec gives on
 * seeded random data of sizes around the 128 KiB zstd block limit (0 and 1 included); encoding, where
 * the device does it, too; damaged input (truncated, garbage, a flipped bit) is rejected where the CPU
 * rejects it, failing only its own chunk with a message naming it; and no run writes a byte outside
 * its output: every output is a slice of a larger buffer whose guard bytes before and after must
 * survive. Codecs the backend does not offer are reported as aborted, not passed.
 *
 * <p>The reference is the codec of the provider named {@code cpu}, found through
 * {@link ServiceLoader} at run time: put zarr-direct's {@code backend-cpu} on the test class path.
 * Each chunk's label carries the seed; {@code -Dzd.seed=N} replays a run.
 *
 * {@snippet :
 * class MyDeviceCodecsTest extends DeviceCodecContract {
 *     @Override protected Backend openBackend() { return MyBackends.openOrAbort(); }
 *     @Override protected void assertNoLiveBuffers(Backend b) { ((MyBackend) b).assertNoLiveBuffers(); }
 *     @Override protected Placement codecMemory(Backend b) { return new Placement(b.defaultDevice(), MemoryKind.DEVICE); }
 *     @Override protected Placement hostMemory(Backend b) { return new Placement(Device.CPU, MemoryKind.HOST); }
 * }
 * }
 */
public abstract class DeviceCodecContract {

    /** The byte around every output; a changed one means a write out of bounds. */
    protected static final byte GUARD = (byte) 0x5A;

    /** The byte every output holds before a run. */
    protected static final byte POISON = (byte) 0xCD;

    /** Guard bytes before and after each output. */
    protected static final int GUARD_BYTES = 64;

    /** The seed of this run's random data, in every label; replay with {@code -Dzd.seed=N}. */
    protected static final long SEED = Long.getLong("zd.seed", System.nanoTime());

    /** zstd's Block_Maximum_Size, around which sizes are chosen. */
    private static final int BLOCK = 128 << 10;

    /** The backend under test, opened before each test and closed after it. */
    protected Backend backend;

    private CodecProvider cpu;

    /** For subclasses. */
    protected DeviceCodecContract() {
    }

    /**
     * Opens the backend whose codecs are tested, or aborts the test naming why it is unavailable
     * (see {@link BackendContract#openBackend()}).
     *
     * @return the backend; the contract closes it
     */
    protected abstract Backend openBackend();

    /**
     * Fails unless every buffer of {@code backend} is closed (see
     * {@link BackendContract#assertNoLiveBuffers(Backend)}); called after each test.
     *
     * @param backend the backend under test
     */
    protected abstract void assertNoLiveBuffers(Backend backend);

    /**
     * Where the codecs' inputs and outputs live: the backend's device memory, normally.
     *
     * @param backend the open backend
     * @return the placement of every buffer handed to a codec
     */
    protected abstract Placement codecMemory(Backend backend);

    /**
     * Host-accessible memory of the backend, through which data reaches {@link #codecMemory}.
     *
     * @param backend the open backend
     * @return a placement whose kind is host-accessible
     */
    protected abstract Placement hostMemory(Backend backend);

    @BeforeEach
    void openTheBackendAndTheCpuReference() {
        cpu = ServiceLoader.load(CodecProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("cpu")).findFirst()
                .orElseThrow(() -> new AssertionError("DeviceCodecContract compares with the CPU codecs: no CodecProvider"
                        + " named \"cpu\" on the class path; add dev.zarrdirect:zarr-direct-backend-cpu in test scope"));
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

    // ---- the cases ----

    /** What a case runs: a bytes-to-bytes codec, or an array codec with its chunk shape. */
    private record Case(String codec, Map<String, Object> config, ChunkSpec spec, int kind) {
        /**
         * In a fixed order: the seeds of a case's data hash this text, and a {@code Map.of}'s order
         * changes from one JVM to the next, which made {@code -Dzd.seed=N} replay other data.
         */
        @Override
        public String toString() {
            return codec + " " + new java.util.TreeMap<>(config) + (spec == null ? "" : " on " + spec);
        }
    }

    private static final int BYTES = 0;
    private static final int ARRAY = 1;

    private static List<Case> bytesCases() {
        List<Case> c = new ArrayList<>();
        c.add(new Case("zstd", Map.of("level", 1L), null, BYTES));
        c.add(new Case("zstd", Map.of("level", 3L, "checksum", true), null, BYTES));
        c.add(new Case("zstd", Map.of("level", -5L), null, BYTES));
        c.add(new Case("zstd", Map.of("level", 19L), null, BYTES));
        String[] shuffles = {"noshuffle", "shuffle", "bitshuffle"};
        String[] cnames = {"lz4", "lz4hc", "blosclz", "zlib", "zstd"};
        for (int i = 0; i < cnames.length; i++) {
            c.add(new Case("blosc", Map.of("cname", cnames[i], "clevel", 5L, "shuffle", shuffles[i % 3], "typesize", 4L),
                    null, BYTES));
        }
        c.add(new Case("blosc", Map.of("cname", "lz4", "clevel", 9L, "shuffle", "bitshuffle", "typesize", 8L,
                "blocksize", 16_384L), null, BYTES));
        c.add(new Case("gzip", Map.of("level", 5L), null, BYTES));
        c.add(new Case("numcodecs.zlib", Map.of("level", 1L), null, BYTES));
        c.add(new Case("zlib", Map.of("level", 9L), null, BYTES));
        c.add(new Case("numcodecs.shuffle", Map.of("elementsize", 4L), null, BYTES));
        c.add(new Case("numcodecs.shuffle", Map.of("elementsize", 8L), null, BYTES));
        c.add(new Case("crc32c", Map.of(), null, BYTES));
        return c;
    }

    private static List<Case> arrayCases() {
        List<Case> c = new ArrayList<>();
        for (DataType t : List.of(DataType.UINT8, DataType.INT16, DataType.FLOAT32, DataType.INT64, DataType.FLOAT64,
                DataType.COMPLEX64, DataType.COMPLEX128)) {
            for (String endian : List.of("little", "big")) {
                c.add(new Case("bytes", Map.of("endian", endian), new ChunkSpec(t, new long[] {3, 1001}), ARRAY));
            }
        }
        c.add(new Case("bytes", Map.of("endian", "big"), new ChunkSpec(DataType.INT32, new long[] {0}), ARRAY));
        c.add(new Case("transpose", Map.of("order", List.of(2L, 0L, 1L)), new ChunkSpec(DataType.FLOAT32,
                new long[] {3, 5, 7}), ARRAY));
        c.add(new Case("transpose", Map.of("order", List.of(1L, 0L)), new ChunkSpec(DataType.UINT16,
                new long[] {17, 300}), ARRAY));
        c.add(new Case("transpose", Map.of("order", List.of(3L, 1L, 0L, 2L)), new ChunkSpec(DataType.FLOAT64,
                new long[] {2, 3, 4, 5}), ARRAY));
        c.add(new Case("transpose", Map.of("order", List.of(0L, 1L)), new ChunkSpec(DataType.UINT8,
                new long[] {6, 0}), ARRAY));
        Random r = new Random(SEED);
        DataType[] types = {DataType.UINT8, DataType.INT16, DataType.FLOAT32, DataType.FLOAT64, DataType.COMPLEX128};
        for (int round = 0; round < 5; round++) {
            int rank = 1 + round;
            long[] shape = new long[rank];
            List<Long> order = new ArrayList<>();
            for (int i = 0; i < rank; i++) {
                shape[i] = 1 + r.nextInt(rank > 3 ? 9 : 70);
                order.add((long) i);
            }
            Collections.shuffle(order, r);
            c.add(new Case("transpose", Map.of("order", order), new ChunkSpec(types[round], shape), ARRAY));
        }
        for (String dtype : List.of("|i1", "<u2", "<i4", "<i8", "<f8")) {
            c.add(new Case("numcodecs.delta", Map.of("dtype", dtype), new ChunkSpec(type(dtype),
                    new long[] {5000}), ARRAY));
        }
        c.add(new Case("numcodecs.delta", Map.of("dtype", "<u4", "astype", "<i4"), new ChunkSpec(DataType.UINT32,
                new long[] {2049}), ARRAY));
        return c;
    }

    private static DataType type(String dtype) {
        return switch (dtype) {
            case "|i1" -> DataType.INT8;
            case "<u2" -> DataType.UINT16;
            case "<i4" -> DataType.INT32;
            case "<i8" -> DataType.INT64;
            case "<f8" -> DataType.FLOAT64;
            default -> throw new IllegalArgumentException(dtype);
        };
    }

    private static boolean compresses(String codec) {
        return switch (codec) {
            case "zstd", "blosc", "gzip", "numcodecs.zlib", "zlib" -> true;
            default -> false;
        };
    }

    // ---- the tests ----

    @TestFactory
    List<DynamicTest> bytesCodecsDecodeWhatTheCpuDecodesByteForByte() {
        return forEach(bytesCases(), this::bytesCodecMatches);
    }

    @TestFactory
    List<DynamicTest> arrayCodecsMatchTheCpuBothWays() {
        return forEach(arrayCases(), this::arrayCodecMatches);
    }

    @TestFactory
    List<DynamicTest> damagedInputFailsWhereTheCpuFailsAndOnlyItsOwnChunk() {
        List<Case> damageable = bytesCases().stream().filter(c -> compresses(c.codec()) || c.codec().equals("crc32c"))
                .toList();
        return forEach(damageable, this::damagedInputIsRejectedLikeTheCpu);
    }

    /**
     * Blosc records its compressor in every frame, and writers mix them (a store rewritten in part
     * with another {@code cname}): a device codec made for one {@code cname} decodes one batch of
     * frames of every compressor, each as the CPU does, whatever kernel its first pass picks.
     */
    @TestFactory
    List<DynamicTest> bloscFramesOfAnotherCompressorThanTheMetadataSaysDecodeLikeTheCpu() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String metadata : List.of("lz4", "zstd", "zlib")) {
            Case c = new Case("blosc", Map.of("cname", metadata, "clevel", 5L, "shuffle", "shuffle", "typesize", 4L), null,
                    BYTES);
            tests.add(DynamicTest.dynamicTest("metadata cname " + metadata, () -> {
                if (!backend.codecs().codecNames().contains("blosc")) {
                    Assumptions.abort(backend.name() + " offers no blosc codec");
                }
                Random r = new Random(SEED ^ c.toString().hashCode());
                BytesToBytesCodec dev = (BytesToBytesCodec) device(c);
                List<byte[]> encoded = new ArrayList<>();
                List<byte[]> data = new ArrayList<>();
                List<String> labels = new ArrayList<>();
                int i = 0;
                // the last in blocks of 1 MiB, larger than a first pass's scratch: where the metadata says
                // another compressor, it is retried for that, with no frame of the batch outgrowing the
                // scratch, and its second pass needs scratch for its blocks all the same
                for (String cname : List.of("lz4", "zlib", "zstd", "blosclz", "lz4hc", "zlib", "zlib+")) {
                    boolean large = cname.endsWith("+");
                    String name = large ? cname.substring(0, cname.length() - 1) : cname;
                    BytesToBytesCodec enc = (BytesToBytesCodec) cpu.create("blosc", Map.of("cname", name, "clevel", 5L,
                            "shuffle", i % 2 == 0 ? "shuffle" : "bitshuffle", "typesize", 4L,
                            "blocksize", large ? 1L << 20 : 0L), Device.CPU).orElseThrow();
                    int size = large ? 4 * (300_000 + r.nextInt(100_000)) : 4 * (1000 + r.nextInt(60_000));
                    byte[] d = Data.mixed(r, size);
                    String label = label(c, i++, size, "written with cname " + cname);
                    encoded.add(onHost(List.of(d), List.of(enc.maxEncodedSize(size)), List.of(label), enc::encode)
                            .outputs().getFirst());
                    data.add(d);
                    labels.add(label);
                }
                Run got = onDevice(encoded, data.stream().mapToLong(d -> d.length).toArray(), labels, dev::decode);
                for (int k = 0; k < data.size(); k++) {
                    String where = labels.get(k) + " decoded on " + backend.name();
                    ZarrDirectException f = got.failures().get(k);
                    assertEquals(null, f, () -> where + ": " + f);
                    assertArrayEquals(data.get(k), got.outputs().get(k), where);
                }
            }));
        }
        return tests;
    }

    private List<DynamicTest> forEach(List<Case> cases, java.util.function.Consumer<Case> body) {
        List<DynamicTest> tests = new ArrayList<>();
        for (Case c : cases) {
            tests.add(DynamicTest.dynamicTest(c.toString(), () -> {
                if (!backend.codecs().codecNames().contains(c.codec())) {
                    Assumptions.abort(backend.name() + " offers no " + c.codec() + " codec; it offers "
                            + backend.codecs().codecNames());
                }
                body.accept(c);
            }));
        }
        return tests;
    }

    private Codec device(Case c) {
        Device d = codecMemory(backend).device();
        // A provider may offer a codec for some configurations only (a plugin's, or a backend's
        // before its kernels cover a compressor); the registry then takes the CPU codec, so there is
        // nothing of the device's to test.
        Codec codec = backend.codecs().create(c.codec(), c.config(), d).orElse(null);
        if (codec == null) {
            Assumptions.abort(backend.name() + " offers " + c.codec() + " but not for " + c.config() + " on " + d);
        }
        assertEquals(c.codec(), codec.name(), "the codec's name");
        assertEquals(d, codec.device(), "the codec's device");
        return codec;
    }

    private Codec reference(Case c) {
        return cpu.create(c.codec(), c.config(), Device.CPU).orElseThrow(() -> new AssertionError(
                "the CPU provider has no " + c.codec() + " codec " + c.config() + " to compare with"));
    }

    private static int[] sizes(Random r) {
        return new int[] {0, 1, BLOCK - 1, BLOCK + 1, 2 + r.nextInt(5000), 5000 + r.nextInt(200_000)};
    }

    private void bytesCodecMatches(Case c) {
        Random r = new Random(SEED ^ c.toString().hashCode());
        BytesToBytesCodec ref = (BytesToBytesCodec) reference(c);
        BytesToBytesCodec dev = (BytesToBytesCodec) device(c);
        List<byte[]> data = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        int i = 0;
        for (int size : sizes(r)) {
            data.add(Data.mixed(r, size));
            labels.add(label(c, i++, size, "intact"));
        }
        List<byte[]> encoded = onHost(data, data.stream().map(d -> ref.maxEncodedSize(d.length)).toList(), labels,
                ref::encode).outputs();
        long[] sizes = data.stream().mapToLong(d -> d.length).toArray();
        Run want = onHost(encoded, Arrays.stream(sizes).boxed().toList(), labels, ref::decode);
        Run got = onDevice(encoded, sizes, labels, dev::decode);
        for (int k = 0; k < data.size(); k++) {
            String where = labels.get(k) + " decoded on " + backend.name();
            assertEquals(null, want.failures().get(k), "the CPU reference failed on " + where);
            ZarrDirectException f = got.failures().get(k);
            assertEquals(null, f, () -> where + ": " + f);
            assertArrayEquals(want.outputs().get(k), got.outputs().get(k), where);
        }
        encodeMatchesWhereTheDeviceEncodes(c, data, data.stream().map(d -> ref.maxEncodedSize(d.length)).toList(),
                labels, ref::encode, dev::encode);
    }

    private void arrayCodecMatches(Case c) {
        Random r = new Random(SEED ^ c.toString().hashCode());
        Codec ref = reference(c);
        Codec dev = device(c);
        ChunkSpec spec = c.spec();
        List<byte[]> data = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            data.add(Data.elements(r, spec.dataType(), (int) spec.byteSize(), i));
            labels.add(label(c, i, (int) spec.byteSize(), "kind " + i));
        }
        long size = spec.byteSize();
        List<Long> sizes = Collections.nCopies(data.size(), size);
        long[] sizeArray = sizes.stream().mapToLong(Long::longValue).toArray();
        Run want = onHost(data, sizes, labels, b -> arrayCall(ref, true, spec, b));
        Run got = onDevice(data, sizeArray, labels, b -> arrayCall(dev, true, spec, b));
        for (int k = 0; k < data.size(); k++) {
            String where = labels.get(k) + " decoded on " + backend.name();
            assertEquals(null, want.failures().get(k), "the CPU reference failed on " + where);
            ZarrDirectException f = got.failures().get(k);
            assertEquals(null, f, () -> where + ": " + f);
            assertArrayEquals(want.outputs().get(k), got.outputs().get(k), where);
        }
        encodeMatchesWhereTheDeviceEncodes(c, data, sizes, labels, b -> arrayCall(ref, false, spec, b),
                b -> arrayCall(dev, false, spec, b));
    }

    private static void arrayCall(Codec codec, boolean decode, ChunkSpec spec, CodecBatch b) {
        switch (codec) {
            case ArrayToBytesCodec a -> {
                if (decode) {
                    a.decode(spec, b);
                } else {
                    a.encode(spec, b);
                }
            }
            case ArrayToArrayCodec a -> {
                if (decode) {
                    a.decode(spec, b);
                } else {
                    a.encode(spec, b);
                }
            }
            case BytesToBytesCodec a -> throw new AssertionError(a.name() + " is not an array codec");
        }
    }

    private void encodeMatchesWhereTheDeviceEncodes(Case c, List<byte[]> data, List<Long> outSizes, List<String> labels,
                                                    java.util.function.Consumer<CodecBatch> ref,
                                                    java.util.function.Consumer<CodecBatch> dev) {
        Run want = onHost(data, outSizes, labels, ref);
        Run got;
        try {
            got = onDevice(data, outSizes.stream().mapToLong(Long::longValue).toArray(), labels, dev);
        } catch (UnsupportedOperationException e) {
            // Encoding on the device is optional (zstd encodes on the CPU only); saying so is the contract.
            assertNotNull(e.getMessage(), c + ": an encode refused without a message");
            return;
        }
        for (int k = 0; k < data.size(); k++) {
            String where = labels.get(k) + " encoded on " + backend.name();
            ZarrDirectException f = got.failures().get(k);
            assertEquals(null, f, () -> where + ": " + f);
            assertArrayEquals(want.outputs().get(k), got.outputs().get(k), where);
        }
    }

    private void damagedInputIsRejectedLikeTheCpu(Case c) {
        Random r = new Random(SEED ^ c.toString().hashCode() ^ 0x5DEECE66DL);
        BytesToBytesCodec ref = (BytesToBytesCodec) reference(c);
        BytesToBytesCodec dev = (BytesToBytesCodec) device(c);
        List<byte[]> inputs = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            int size = i == 0 ? 0 : 1 + r.nextInt(i < 6 ? 3000 : 150_000);
            byte[] d = Data.mixed(r, size);
            byte[] enc = onHost(List.of(d), List.of(ref.maxEncodedSize(size)), List.of("reference"), ref::encode)
                    .outputs().getFirst();
            String what;
            switch (i % 4) {
                case 0, 1 -> {
                    int cut = enc.length <= 1 ? 0 : r.nextInt(enc.length);
                    enc = Arrays.copyOf(enc, cut);
                    what = "truncated to " + cut + " of its bytes";
                }
                case 2 -> {
                    enc = new byte[1 + r.nextInt(300)];
                    r.nextBytes(enc);
                    what = "garbage of " + enc.length + " bytes";
                }
                default -> {
                    int bit = r.nextInt(8 * enc.length);
                    enc[bit / 8] ^= (byte) (1 << (bit % 8));
                    what = "bit " + bit + " flipped";
                }
            }
            inputs.add(enc);
            sizes.add((long) size);
            labels.add(label(c, i, size, what));
        }
        Run want = onHost(inputs, sizes, labels, ref::decode);
        Run got = onDevice(inputs, sizes.stream().mapToLong(Long::longValue).toArray(), labels, dev::decode);
        for (int k = 0; k < inputs.size(); k++) {
            String where = labels.get(k) + " on " + backend.name();
            ZarrDirectException cpuFailure = want.failures().get(k);
            ZarrDirectException devFailure = got.failures().get(k);
            if (cpuFailure != null) {
                if (devFailure == null) {
                    fail(where + ": the CPU refuses it (" + cpuFailure.getMessage() + ") but the device decodes it");
                }
                assertTrue(devFailure.getMessage().contains(labels.get(k)), where + ": the message names the chunk: "
                        + devFailure.getMessage());
                if (cpuFailure instanceof ChecksumMismatchException cpuMismatch) {
                    ChecksumMismatchException gotMismatch = assertInstanceOf(ChecksumMismatchException.class, devFailure,
                            where);
                    assertEquals(cpuMismatch.stored(), gotMismatch.stored(), where + ": the stored checksum");
                    assertEquals(cpuMismatch.computed(), gotMismatch.computed(), where + ": the computed checksum");
                }
            } else {
                assertEquals(null, devFailure, () -> where + ": the CPU decodes it, the device fails: " + devFailure);
                assertArrayEquals(want.outputs().get(k), got.outputs().get(k), where);
            }
        }
    }

    private static String label(Case c, int i, int size, String how) {
        return "chunk [" + i + "] (" + size + " bytes, " + how + ", " + c + ", seed " + SEED + ")";
    }

    // ---- running a batch ----

    /** Per item: the bytes written (null on failure) and the failure (null on success). */
    private record Run(List<byte[]> outputs, List<ZarrDirectException> failures) {
    }

    private static Run onHost(List<byte[]> inputs, List<Long> outSizes, List<String> labels,
                              java.util.function.Consumer<CodecBatch> stage) {
        List<HostBuffer> owned = new ArrayList<>();
        try {
            List<CodecBatch.Item> items = new ArrayList<>();
            for (int i = 0; i < inputs.size(); i++) {
                HostBuffer in = HostBuffer.allocate(inputs.get(i).length);
                owned.add(in);
                MemorySegment.copy(MemorySegment.ofArray(inputs.get(i)), 0, in.segment(), 0, inputs.get(i).length);
                HostBuffer out = HostBuffer.allocate(outSizes.get(i));
                owned.add(out);
                items.add(new CodecBatch.Item(in, out, labels.get(i)));
            }
            CodecBatch b = new CodecBatch(items);
            stage.accept(b);
            List<byte[]> outs = new ArrayList<>();
            List<ZarrDirectException> failures = new ArrayList<>();
            for (int i = 0; i < inputs.size(); i++) {
                failures.add(b.failure(i));
                outs.add(b.failure(i) == null ? b.output(i).segment().asSlice(0, b.written(i))
                        .toArray(ValueLayout.JAVA_BYTE) : null);
            }
            return new Run(outs, failures);
        } finally {
            owned.forEach(HostBuffer::close);
        }
    }

    /**
     * Runs {@code stage} on one batch in {@link #codecMemory}, laid out both ways a caller may lay
     * it out: packed (inputs at odd offsets of one buffer, outputs in another) and separate (each
     * item its own buffers). Outputs are poisoned first and surrounded by guard bytes, which must
     * survive whether an item succeeds or fails; both layouts must give the same results.
     */
    private Run onDevice(List<byte[]> inputs, long[] outSizes, List<String> labels,
                         java.util.function.Consumer<CodecBatch> stage) {
        Run packed = onDevice(inputs, outSizes, labels, stage, false);
        Run separate = onDevice(inputs, outSizes, labels, stage, true);
        for (int i = 0; i < inputs.size(); i++) {
            String where = labels.get(i) + " on " + backend.name();
            assertEquals(packed.failures().get(i) == null, separate.failures().get(i) == null, where
                    + ": packed and separate buffers disagree: " + packed.failures().get(i) + " vs "
                    + separate.failures().get(i));
            if (packed.outputs().get(i) != null) {
                assertArrayEquals(packed.outputs().get(i), separate.outputs().get(i), where
                        + ": packed and separate buffers give different bytes");
            }
        }
        return packed;
    }

    private Run onDevice(List<byte[]> inputs, long[] outSizes, List<String> labels,
                         java.util.function.Consumer<CodecBatch> stage, boolean separate) {
        Placement where = codecMemory(backend);
        Placement host = hostMemory(backend);
        int n = inputs.size();
        // packed: one input buffer and one output buffer; separate: a pair per item
        int buffers = separate ? n : 1;
        long[] inAt = new long[n];
        long[] outAt = new long[n];
        long[] inTotal = new long[buffers];
        long[] outTotal = new long[buffers];
        for (int i = 0; i < n; i++) {
            int b = separate ? i : 0;
            inTotal[b] += separate ? 0 : 1;
            inAt[i] = inTotal[b];
            inTotal[b] += inputs.get(i).length + (separate ? 0 : 3);
            outTotal[b] += outTotal[b] == 0 ? GUARD_BYTES : 0;
            outAt[i] = outTotal[b];
            outTotal[b] += outSizes[i] + GUARD_BYTES;
        }
        List<Buffer> owned = new ArrayList<>();
        try {
            Buffer[] in = new Buffer[buffers];
            Buffer[] out = new Buffer[buffers];
            Buffer[] outHost = new Buffer[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = own(owned, backend.allocate(where.device(), where.kind(), inTotal[b]));
                out[b] = own(owned, backend.allocate(where.device(), where.kind(), outTotal[b]));
                outHost[b] = own(owned, backend.allocate(host.device(), host.kind(), outTotal[b]));
                outHost[b].segment().fill(GUARD);
                try (Buffer inHost = backend.allocate(host.device(), host.kind(), inTotal[b])) {
                    for (int i = 0; i < n; i++) {
                        if ((separate ? i : 0) == b) {
                            MemorySegment.copy(MemorySegment.ofArray(inputs.get(i)), 0, inHost.segment(), inAt[i],
                                    inputs.get(i).length);
                            outHost[b].segment().asSlice(outAt[i], outSizes[i]).fill(POISON);
                        }
                    }
                    backend.copy(inHost, 0, in[b], 0, inTotal[b]);
                }
                backend.copy(outHost[b], 0, out[b], 0, outTotal[b]);
            }
            List<CodecBatch.Item> items = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int b = separate ? i : 0;
                items.add(new CodecBatch.Item(in[b].slice(inAt[i], inputs.get(i).length),
                        out[b].slice(outAt[i], outSizes[i]), labels.get(i)));
            }
            CodecBatch batch = new CodecBatch(items);
            stage.accept(batch);
            String layout = separate ? "separate" : "packed";
            List<byte[]> outs = new ArrayList<>();
            List<ZarrDirectException> failures = new ArrayList<>();
            for (int b = 0; b < buffers; b++) {
                backend.copy(out[b], 0, outHost[b], 0, outTotal[b]);
                MemorySegment staged = outHost[b].segment();
                long guardFrom = 0;
                for (int i = 0; i <= n; i++) {
                    if (i < n && (separate ? i : 0) != b) {
                        continue;
                    }
                    long guardTo = i < n ? outAt[i] : outTotal[b];
                    for (long g = guardFrom; g < guardTo; g++) {
                        if (staged.get(ValueLayout.JAVA_BYTE, g) != GUARD) {
                            fail("a codec on " + backend.name() + " wrote outside its output: guard byte " + g + " of "
                                    + layout + " output buffer " + b + " changed (outputs at " + Arrays.toString(outAt)
                                    + ", sizes " + Arrays.toString(outSizes) + "; " + labels.get(Math.min(i, n - 1)) + ")");
                        }
                    }
                    if (i < n) {
                        guardFrom = outAt[i] + outSizes[i];
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                failures.add(batch.failure(i));
                outs.add(batch.failure(i) == null ? outHost[separate ? i : 0].segment().asSlice(outAt[i], batch.written(i))
                        .toArray(ValueLayout.JAVA_BYTE) : null);
            }
            return new Run(outs, failures);
        } finally {
            owned.forEach(Buffer::close);
        }
    }

    private static Buffer own(List<Buffer> owned, Buffer b) {
        owned.add(b);
        return b;
    }

    /** Seeded test data. */
    private static final class Data {

        private Data() {
        }

        /** Runs, repeats of earlier bytes, text and noise: every block and literal kind of the compressors. */
        static byte[] mixed(Random r, int n) {
            byte[] b = new byte[n];
            int i = 0;
            while (i < n) {
                int kind = r.nextInt(4);
                int len = Math.min(n - i, 1 + r.nextInt(kind == 0 ? 4000 : 300));
                switch (kind) {
                    case 0 -> Arrays.fill(b, i, i + len, (byte) r.nextInt());
                    case 1 -> {
                        if (i > 0) {
                            int from = r.nextInt(i);
                            for (int k = 0; k < len; k++) {
                                b[i + k] = b[from + k % (i - from)];
                            }
                        }
                    }
                    case 2 -> {
                        for (int k = 0; k < len; k++) {
                            b[i + k] = (byte) ('a' + r.nextInt(6));
                        }
                    }
                    default -> {
                        for (int k = 0; k < len; k++) {
                            b[i + k] = (byte) r.nextInt();
                        }
                    }
                }
                i += len;
            }
            return b;
        }

        /**
         * {@code bytes} bytes of little-endian elements of {@code type}: random bits (kind 0), a ramp
         * (1), the extremes (2), runs (3); floats are finite, so no NaN payload can differ by device.
         */
        static byte[] elements(Random r, DataType type, int bytes, int kind) {
            ByteBuffer b = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
            int size = type.byteSize();
            boolean floating = type.kind() == DataType.Kind.FLOAT || type.kind() == DataType.Kind.COMPLEX;
            int lanes = type.kind() == DataType.Kind.COMPLEX ? 2 : 1;
            int lane = size / lanes;
            for (int k = 0; k + lane <= bytes; k += lane) {
                long v = switch (kind) {
                    case 0 -> r.nextLong();
                    case 1 -> k / lane / 3 + r.nextInt(5);
                    case 2 -> (k / lane) % 2 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
                    default -> (k / lane / 50) % 7;
                };
                if (floating) {
                    double d = kind == 2 ? ((k / lane) % 2 == 0 ? -1e30 : 1e30) : (double) (v % 1_000_000) / 8;
                    if (lane == 4) {
                        b.putFloat(k, (float) d);
                    } else {
                        b.putDouble(k, d);
                    }
                } else {
                    switch (lane) {
                        case 1 -> b.put(k, (byte) v);
                        case 2 -> b.putShort(k, (short) v);
                        case 4 -> b.putInt(k, (int) v);
                        default -> b.putLong(k, v);
                    }
                }
            }
            return b.array();
        }
    }
}
