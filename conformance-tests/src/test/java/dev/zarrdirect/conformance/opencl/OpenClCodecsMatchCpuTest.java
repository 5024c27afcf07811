// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.opencl;

import com.github.luben.zstd.ZstdCompressCtx;
import dev.zarrdirect.api.ChecksumMismatchException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ArrayToBytesCodec;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.DeltaSpec;
import dev.zarrdirect.conformance.device.DeltaTestData;
import dev.zarrdirect.conformance.opencl.OpenClHarness.Layout;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What is OpenCL's own in its codecs, beyond the device-codec contract that every backend runs
 * ({@link OpenClCodecContractTest}): zstd over every frame kind (several frames, skippable frames,
 * no content size) and sizes {0, 1, blockMax-1, blockMax, blockMax+1, 3 seeded random} in all three
 * batch layouts, one launch for a packed batch, one per item for separate buffers, and host buffers
 * that the codec stages itself ({@link Layout#HOST}, the only layout left here for crc32c, bytes and
 * transpose, whose device layouts the contract covers); damaged zstd frames in every layout; the
 * delta kernel's tile boundaries and in-place decoding. The seed is in every message; rerun with
 * {@code -Dzd.seed=N}.
 */
@Timeout(600)
class OpenClCodecsMatchCpuTest {

    static final long SEED = Long.getLong("zd.seed", System.nanoTime());
    /** zstd's Block_Maximum_Size. */
    static final int BLOCK_MAX = 128 << 10;
    static final int[] LEVELS = {1, 3, -5, 9, 19};

    static OpenClHarness h;

    @BeforeAll
    static void open() {
        h = OpenClHarness.openOrSkip();
    }

    @AfterAll
    static void close() {
        if (h != null) {
            h.close();
        }
    }

    static int[] sizes(SplittableRandom r) {
        return new int[]{0, 1, BLOCK_MAX - 1, BLOCK_MAX, BLOCK_MAX + 1, r.nextInt(2, 5000), r.nextInt(5000, 300_000),
                r.nextInt(300_000, 700_000)};
    }

    /** Test data of one of five kinds, covering raw, RLE and compressed blocks and every literal mode. */
    static byte[] data(SplittableRandom r, int n, int kind) {
        byte[] b = new byte[n];
        switch (kind % 5) {
            case 0 -> r.nextBytes(b);                                  // incompressible: raw blocks/literals
            case 1 -> Arrays.fill(b, (byte) 7);                        // one byte: RLE blocks
            case 2 -> {                                                // text: Huffman literals, many sequences
                String[] words = {"temperature ", "geopotential ", "u10 ", "v10 ", "era5 ", "lat ", "lon ", "\n"};
                int i = 0;
                while (i < n) {
                    byte[] w = words[r.nextInt(words.length)].getBytes(StandardCharsets.US_ASCII);
                    for (int k = 0; k < w.length && i < n; k++) {
                        b[i++] = r.nextInt(50) == 0 ? (byte) r.nextInt(256) : w[k];
                    }
                }
            }
            case 3 -> {                                                // a smooth float field with noise
                for (int i = 0; i + 4 <= n; i += 4) {
                    int f = Float.floatToIntBits((float) (280 + 10 * Math.sin(i / 400.0)) + r.nextInt(8) / 64f);
                    b[i] = (byte) f;
                    b[i + 1] = (byte) (f >> 8);
                    b[i + 2] = (byte) (f >> 16);
                    b[i + 3] = (byte) (f >> 24);
                }
            }
            default -> {                                               // long runs and repeats: RLE literal/seq modes
                int i = 0;
                while (i < n) {
                    int run = r.nextInt(1, 300);
                    byte v = (byte) r.nextInt(4);
                    for (int k = 0; k < run && i < n; k++) {
                        b[i++] = v;
                    }
                }
            }
        }
        return b;
    }

    static byte[] frame(byte[] data, int level, boolean checksum, boolean contentSize) {
        try (ZstdCompressCtx c = new ZstdCompressCtx()) {
            c.setLevel(level);
            c.setChecksum(checksum);
            c.setContentSize(contentSize);
            return c.compress(data);
        }
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    static byte[] skippable(int payload) {
        byte[] s = new byte[8 + payload];
        int magic = 0x184D2A53;
        for (int k = 0; k < 4; k++) {
            s[k] = (byte) (magic >>> (8 * k));
            s[4 + k] = (byte) (payload >>> (8 * k));
        }
        return s;
    }

    /** One zstd chunk: its data, its encoded bytes and how they were made. */
    record ZChunk(byte[] data, byte[] encoded, String how) {
    }

    static ZChunk zchunk(SplittableRandom r, int size, int i) {
        byte[] d = data(r, size, i);
        int level = LEVELS[i % LEVELS.length];
        boolean checksum = i % 2 == 1;
        boolean contentSize = i % 3 != 2;
        byte[] enc;
        String how = "level " + level + (checksum ? ", checksum" : "") + (contentSize ? "" : ", no content size");
        if (i % 4 == 3 && size > 1) {
            enc = concat(frame(Arrays.copyOf(d, size / 2), level, checksum, contentSize),
                    frame(Arrays.copyOfRange(d, size / 2, size), level, checksum, contentSize));
            how += ", two frames";
        } else if (i % 5 == 4) {
            enc = concat(skippable(i), frame(d, level, checksum, contentSize));
            how += ", after a skippable frame";
        } else {
            enc = frame(d, level, checksum, contentSize);
        }
        return new ZChunk(d, enc, "kind " + (i % 5) + ", " + how);
    }

    static String label(int i, int size, String how) {
        return "chunk [" + i + "] (" + size + " bytes, " + how + ", seed " + SEED + ")";
    }

    // ------------------------------------------------------------------ zstd

    @ParameterizedTest(name = "zstd on opencl matches the CPU codec, {0} batch")
    @EnumSource(Layout.class)
    void zstdDecodeMatchesTheCpuCodecOnEverySizeAndFrameKind(Layout layout) {
        assumeZstd();
        SplittableRandom r = new SplittableRandom(SEED);
        List<ZChunk> chunks = new ArrayList<>();
        int i = 0;
        for (int size : sizes(r)) {
            for (int v = 0; v < 2; v++) {
                chunks.add(zchunk(r, size, i++));
            }
        }
        List<byte[]> inputs = chunks.stream().map(ZChunk::encoded).toList();
        long[] outSizes = chunks.stream().mapToLong(c -> c.data().length).toArray();
        List<String> labels = new ArrayList<>();
        for (int k = 0; k < chunks.size(); k++) {
            labels.add(label(k, chunks.get(k).data().length, chunks.get(k).how()));
        }
        List<HostBuffer> keep = new ArrayList<>();
        try {
            BytesToBytesCodec cpu = (BytesToBytesCodec) h.cpuCodec("zstd", Map.of());
            CodecBatch ref = OpenClHarness.hostBatch(inputs, outSizes, labels, keep, cpu::decode);
            BytesToBytesCodec gpu = (BytesToBytesCodec) h.gpuCodec("zstd", Map.of());
            try (OpenClHarness.Run run = h.new Run(layout, inputs, outSizes, labels)) {
                gpu.decode(run.batch);
                for (int k = 0; k < chunks.size(); k++) {
                    String where = "seed " + SEED + ", " + layout + ", " + labels.get(k);
                    assertNull(ref.failure(k), () -> "CPU reference failed: " + where);
                    assertArrayEquals(chunks.get(k).data(), OpenClHarness.bytes(ref.output(k), outSizes[k]), where);
                    int kk = k;
                    assertNull(run.batch.failure(k), () -> where + ": " + run.batch.failure(kk));
                    assertEquals(outSizes[k], run.batch.written(k), where);
                    assertArrayEquals(chunks.get(k).data(), run.output(k, outSizes[k]), where);
                    run.checkGuards(k, outSizes[k], where);
                }
            }
        } finally {
            keep.forEach(HostBuffer::close);
        }
    }

    @ParameterizedTest(name = "damaged zstd frames fail alone, {0} batch")
    @EnumSource(Layout.class)
    void damagedZstdFramesFailOnlyTheirOwnChunkAndWriteNothingOutsideIt(Layout layout) {
        assumeZstd();
        SplittableRandom r = new SplittableRandom(SEED ^ 0x5DEECE66DL);
        int n = 16;
        List<byte[]> inputs = new ArrayList<>();
        List<byte[]> originals = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        String[] damage = new String[n];
        for (int i = 0; i < n; i++) {
            int size = i < 8 ? sizes(r)[i] : r.nextInt(1, 200_000);
            byte[] d = data(r, size, i / 2);
            byte[] enc = frame(d, LEVELS[i % LEVELS.length], true, true);
            String what;
            switch (i % 4) {
                case 1 -> {
                    int cut = r.nextInt(1, enc.length);
                    enc = Arrays.copyOf(enc, cut);
                    what = "truncated to " + cut + " bytes";
                }
                case 3 -> {
                    int bit = r.nextInt(8 * enc.length);
                    enc[bit / 8] ^= (byte) (1 << (bit % 8));
                    what = "bit " + bit + " flipped";
                }
                default -> what = i % 8 == 2 ? "garbage" : null;
            }
            if ("garbage".equals(what)) {
                enc = new byte[r.nextInt(1, 300)];
                r.nextBytes(enc);
            }
            damage[i] = what;
            inputs.add(enc);
            originals.add(d);
            labels.add(label(i, size, what == null ? "intact" : what));
        }
        long[] outSizes = originals.stream().mapToLong(o -> o.length).toArray();
        List<HostBuffer> keep = new ArrayList<>();
        try {
            CodecBatch ref = OpenClHarness.hostBatch(inputs, outSizes, labels, keep,
                    ((BytesToBytesCodec) h.cpuCodec("zstd", Map.of()))::decode);
            try (OpenClHarness.Run run = h.new Run(layout, inputs, outSizes, labels)) {
                ((BytesToBytesCodec) h.gpuCodec("zstd", Map.of())).decode(run.batch);
                for (int i = 0; i < n; i++) {
                    String where = "seed " + SEED + ", " + layout + ", " + labels.get(i);
                    ZarrDirectException got = run.batch.failure(i);
                    run.checkGuards(i, got == null ? outSizes[i] : -1, where);
                    if (damage[i] == null) {
                        assertNull(got, () -> where + ": " + got);
                        assertArrayEquals(originals.get(i), run.output(i, outSizes[i]), where);
                    } else if (damage[i].startsWith("truncated") || damage[i].equals("garbage")) {
                        assertNotNull(ref.failure(i), "the CPU reference accepted " + where);
                        assertInstanceOf(CorruptChunkException.class, got, where);
                        assertTrue(got.getMessage().contains(labels.get(i)), "the message names the chunk: " + got);
                    } else if (ref.failure(i) == null) {
                        assertNull(got, () -> where + ": the CPU decodes it, the device fails: " + got);
                        assertArrayEquals(originals.get(i), run.output(i, outSizes[i]), where);
                    } else if (got == null) {
                        // The backends agree on damaged frames (ZstdBackendsAgreeOnDamagedFramesTest)
                        fail(where + ": the CPU refuses it (" + ref.failure(i).getMessage() + "), the device decodes it");
                    } else {
                        assertInstanceOf(CorruptChunkException.class, got, where);
                        assertTrue(got.getMessage().contains(labels.get(i)), "the message names the chunk: " + got);
                    }
                }
            }
        } finally {
            keep.forEach(HostBuffer::close);
        }
    }

    @Test
    void zstdEncodingIsRefusedWithAPointerToTheCpuCodec() {
        assumeZstd();
        BytesToBytesCodec gpu = (BytesToBytesCodec) h.gpuCodec("zstd", Map.of("level", 3L));
        try (OpenClHarness.Run run = h.new Run(Layout.PACKED, List.of(new byte[10]), new long[]{64}, List.of("c"))) {
            var e = assertThrows(UnsupportedOperationException.class, () -> gpu.encode(run.batch));
            assertTrue(e.getMessage().contains("cpu zstd codec"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> h.gpuCodec("zstd", Map.of("level", 99L)));
    }

    static void assumeZstd() {
        if (!h.gpu.codecNames().contains("zstd")) {
            if ("1".equals(System.getenv("ZD_REQUIRE_OPENCL"))) {
                fail("ZD_REQUIRE_OPENCL=1 but the opencl provider offers no zstd: " + h.gpu.codecNames());
            }
            org.junit.jupiter.api.Assumptions.assumeTrue(false, "the kernels module's zstd decoder is not on the class"
                    + " path; zstd falls back to the CPU codec");
        }
    }

    // ------------------------------------------------------------------ crc32c

    @ParameterizedTest(name = "crc32c on opencl matches the CPU codec, host buffers staged by the codec")
    @EnumSource(value = Layout.class, names = "HOST")
    void crc32cMatchesTheCpuCodecBothWaysAndReportsBothValuesOnMismatch(Layout layout) {
        SplittableRandom r = new SplittableRandom(SEED + 1);
        BytesToBytesCodec cpu = (BytesToBytesCodec) h.cpuCodec("crc32c", Map.of());
        BytesToBytesCodec gpu = (BytesToBytesCodec) h.gpuCodec("crc32c", Map.of());
        List<byte[]> data = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        int i = 0;
        for (int size : sizes(r)) {
            data.add(data(r, size, i));
            labels.add(label(i++, size, "crc32c"));
        }
        long[] encSizes = data.stream().mapToLong(d -> d.length + 4L).toArray();
        List<HostBuffer> keep = new ArrayList<>();
        try {
            CodecBatch cpuEnc = OpenClHarness.hostBatch(data, encSizes, labels, keep, cpu::encode);
            cpuEnc.throwIfFailed();
            List<byte[]> encoded = new ArrayList<>();
            for (int k = 0; k < data.size(); k++) {
                encoded.add(OpenClHarness.bytes(cpuEnc.output(k), encSizes[k]));
            }
            try (OpenClHarness.Run run = h.new Run(layout, data, encSizes, labels)) {
                gpu.encode(run.batch);
                for (int k = 0; k < data.size(); k++) {
                    String where = "seed " + SEED + ", " + layout + ", " + labels.get(k);
                    assertEquals(encSizes[k], run.batch.written(k), where);
                    assertArrayEquals(encoded.get(k), run.output(k, encSizes[k]), where);
                    run.checkGuards(k, encSizes[k], where);
                }
            }
            // Damage every third chunk: its data or its stored checksum.
            List<byte[]> damaged = new ArrayList<>();
            for (int k = 0; k < encoded.size(); k++) {
                byte[] e = encoded.get(k).clone();
                if (k % 3 == 1) {
                    int bit = r.nextInt(8 * e.length);
                    e[bit / 8] ^= (byte) (1 << (bit % 8));
                }
                damaged.add(e);
            }
            long[] decSizes = data.stream().mapToLong(d -> d.length).toArray();
            CodecBatch cpuDec = OpenClHarness.hostBatch(damaged, decSizes, labels, keep, cpu::decode);
            try (OpenClHarness.Run run = h.new Run(layout, damaged, decSizes, labels)) {
                gpu.decode(run.batch);
                for (int k = 0; k < data.size(); k++) {
                    String where = "seed " + SEED + ", " + layout + ", " + labels.get(k);
                    run.checkGuards(k, -1, where);
                    if (k % 3 == 1) {
                        var want = assertInstanceOf(ChecksumMismatchException.class, cpuDec.failure(k), where);
                        var got = assertInstanceOf(ChecksumMismatchException.class, run.batch.failure(k), where);
                        assertEquals(want.stored(), got.stored(), where);
                        assertEquals(want.computed(), got.computed(), where);
                        assertTrue(got.getMessage().contains(labels.get(k)), got.getMessage());
                    } else {
                        int kk = k;
                        assertNull(run.batch.failure(k), () -> where + ": " + run.batch.failure(kk));
                        assertArrayEquals(data.get(k), run.output(k, decSizes[k]), where);
                    }
                }
            }
        } finally {
            keep.forEach(HostBuffer::close);
        }
    }

    @Test
    void crc32cRejectsChunksShorterThanTheChecksumAlone() {
        BytesToBytesCodec gpu = (BytesToBytesCodec) h.gpuCodec("crc32c", Map.of());
        byte[] ok = {1, 2, 3, 4, 5, 6, 7, 8};
        List<HostBuffer> keep = new ArrayList<>();
        try {
            CodecBatch enc = OpenClHarness.hostBatch(List.of(ok), new long[]{12}, List.of("ok"), keep,
                    ((BytesToBytesCodec) h.cpuCodec("crc32c", Map.of()))::encode);
            byte[] good = OpenClHarness.bytes(enc.output(0), 12);
            try (OpenClHarness.Run run = h.new Run(Layout.PACKED, List.of(new byte[3], good), new long[]{0, 8},
                    List.of("chunk [0] short", "chunk [1] fine"))) {
                gpu.decode(run.batch);
                var e = assertInstanceOf(CorruptChunkException.class, run.batch.failure(0));
                assertTrue(e.getMessage().contains("chunk [0] short is truncated: 3 bytes"), e.getMessage());
                assertNull(run.batch.failure(1));
                assertArrayEquals(ok, run.output(1, 8));
            }
        } finally {
            keep.forEach(HostBuffer::close);
        }
    }

    // ------------------------------------------------------------------ bytes

    @ParameterizedTest(name = "bytes on opencl matches the CPU codec, host buffers staged by the codec")
    @EnumSource(value = Layout.class, names = "HOST")
    void bytesMatchesTheCpuCodecForEveryTypeAndEndianness(Layout layout) {
        SplittableRandom r = new SplittableRandom(SEED + 2);
        DataType[] types = {DataType.UINT8, DataType.INT16, DataType.FLOAT32, DataType.FLOAT64, DataType.COMPLEX64,
                DataType.COMPLEX128, DataType.BOOL};
        for (DataType t : types) {
            for (String endian : new String[]{"little", "big"}) {
                int e = t.byteSize();
                long[] counts = {0, 1, BLOCK_MAX / e - 1, BLOCK_MAX / e, BLOCK_MAX / e + 1, r.nextInt(2, 90_000)};
                for (long count : counts) {
                    ChunkSpec spec = new ChunkSpec(t, new long[]{count});
                    Map<String, Object> cfg = Map.of("endian", endian);
                    arrayCodecMatches(layout, spec, spec, (ArrayToBytesCodec) h.cpuCodec("bytes", cfg),
                            (ArrayToBytesCodec) h.gpuCodec("bytes", cfg), r, t + " " + endian);
                }
            }
        }
    }

    private static void arrayCodecMatches(Layout layout, ChunkSpec decoded, ChunkSpec encoded, Object cpu, Object gpu,
                                          SplittableRandom r, String what) {
        List<byte[]> inputs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            inputs.add(data(r, (int) decoded.byteSize(), i));
        }
        arrayCodecMatches(layout, decoded, inputs, cpu, gpu, what);
    }

    /** Decoding and encoding each of {@code inputs} (chunks of {@code decoded}'s size) gives the CPU's bytes. */
    private static void arrayCodecMatches(Layout layout, ChunkSpec decoded, List<byte[]> inputs, Object cpu, Object gpu,
                                          String what) {
        for (boolean decode : new boolean[]{true, false}) {
            int n = inputs.size();
            List<String> labels = new ArrayList<>();
            long size = decoded.byteSize();
            for (int i = 0; i < n; i++) {
                labels.add("chunk [" + i + "] of " + decoded + " (" + what + ", seed " + SEED + ")");
            }
            long[] outSizes = new long[n];
            Arrays.fill(outSizes, size);
            List<HostBuffer> keep = new ArrayList<>();
            try {
                CodecBatch ref = OpenClHarness.hostBatch(inputs, outSizes, labels, keep, b -> call(cpu, decode, decoded, b));
                ref.throwIfFailed();
                try (OpenClHarness.Run run = h.new Run(layout, inputs, outSizes, labels)) {
                    call(gpu, decode, decoded, run.batch);
                    for (int i = 0; i < n; i++) {
                        String where = (decode ? "decode " : "encode ") + layout + " " + labels.get(i);
                        int ii = i;
                        assertNull(run.batch.failure(i), () -> where + ": " + run.batch.failure(ii));
                        assertEquals(size, run.batch.written(i), where);
                        assertArrayEquals(OpenClHarness.bytes(ref.output(i), size), run.output(i, size), where);
                        run.checkGuards(i, size, where);
                    }
                }
            } finally {
                keep.forEach(HostBuffer::close);
            }
        }
    }

    private static void call(Object codec, boolean decode, ChunkSpec decoded, CodecBatch b) {
        switch (codec) {
            case ArrayToBytesCodec c -> {
                if (decode) {
                    c.decode(decoded, b);
                } else {
                    c.encode(decoded, b);
                }
            }
            case ArrayToArrayCodec c -> {
                if (decode) {
                    c.decode(decoded, b);
                } else {
                    c.encode(decoded, b);
                }
            }
            default -> throw new AssertionError("not an array codec: " + codec);
        }
    }

    // ------------------------------------------------------------------ transpose

    @ParameterizedTest(name = "transpose on opencl matches the CPU codec, host buffers staged by the codec")
    @EnumSource(value = Layout.class, names = "HOST")
    void transposeMatchesTheCpuCodecForRandomShapesAndOrders(Layout layout) {
        SplittableRandom r = new SplittableRandom(SEED + 3);
        DataType[] types = {DataType.UINT8, DataType.INT16, DataType.FLOAT32, DataType.FLOAT64, DataType.COMPLEX128};
        for (int round = 0; round < 14; round++) {
            int rank = 1 + round % 5;
            long[] shape = new long[rank];
            for (int i = 0; i < rank; i++) {
                shape[i] = round == 0 ? 0 : r.nextInt(1, rank > 3 ? 9 : 70);
            }
            List<Long> order = new ArrayList<>();
            for (long i = 0; i < rank; i++) {
                order.add(i);
            }
            java.util.Collections.shuffle(order, new java.util.Random(r.nextLong()));
            DataType t = types[round % types.length];
            Map<String, Object> cfg = Map.of("order", order);
            ArrayToArrayCodec cpu = (ArrayToArrayCodec) h.cpuCodec("transpose", cfg);
            ChunkSpec decoded = new ChunkSpec(t, shape);
            arrayCodecMatches(layout, decoded, cpu.encodedSpec(decoded), cpu, h.gpuCodec("transpose", cfg), r,
                    "order " + order);
        }
    }

    // ------------------------------------------------------------------ delta

    /** The kernel's tile: ZD_DELTA_PER_ITEM elements for each of up to 256 items. */
    static final int DELTA_TILE = 8 * 256;

    @ParameterizedTest(name = "numcodecs.delta on opencl matches the CPU codec both ways, {0} batch")
    @EnumSource(Layout.class)
    void deltaMatchesTheCpuCodecForEveryTypeBothWays(Layout layout) {
        SplittableRandom r = new SplittableRandom(SEED + 4);
        for (Map<String, Object> cfg : DeltaTestData.CONFIGS) {
            DataType t = DeltaSpec.parse(cfg).dtype();
            ArrayToArrayCodec cpu = (ArrayToArrayCodec) h.cpuCodec(DeltaSpec.NAME, cfg);
            ArrayToArrayCodec gpu = (ArrayToArrayCodec) h.gpuCodec(DeltaSpec.NAME, cfg);
            for (int count : new int[]{0, 1, DELTA_TILE - 1, DELTA_TILE, DELTA_TILE + 1, r.nextInt(5000, 70_000)}) {
                ChunkSpec spec = new ChunkSpec(t, new long[]{count});
                List<byte[]> inputs = new ArrayList<>();
                for (int kind = 0; kind < DeltaTestData.KINDS; kind++) {
                    inputs.add(DeltaTestData.chunk(r, t, count, kind));
                }
                arrayCodecMatches(layout, spec, inputs, cpu, gpu, cfg.toString());
            }
        }
    }

    @Test
    void deltaDecodesInPlaceAndRefusesPartlyOverlappingBuffers() {
        SplittableRandom r = new SplittableRandom(SEED + 5);
        for (Map<String, Object> cfg : List.of(Map.<String, Object>of("dtype", "<i4"), Map.<String, Object>of("dtype", "<f8"))) {
            DataType t = DeltaSpec.parse(cfg).dtype();
            int count = 3 * DELTA_TILE + 17;
            ChunkSpec spec = new ChunkSpec(t, new long[]{count});
            byte[] data = DeltaTestData.chunk(r, t, count, 0);
            List<HostBuffer> keep = new ArrayList<>();
            try (var buf = h.backend.allocate(h.device, dev.zarrdirect.api.buffer.MemoryKind.DEVICE, data.length + 8L)) {
                CodecBatch ref = OpenClHarness.hostBatch(List.of(data), new long[]{data.length}, List.of("ref"), keep,
                        b -> ((ArrayToArrayCodec) h.cpuCodec(DeltaSpec.NAME, cfg)).decode(spec, b));
                ref.throwIfFailed();
                h.backend.copy(HostBuffer.wrap(java.lang.foreign.MemorySegment.ofArray(data)), 0, buf, 0, data.length);
                ArrayToArrayCodec gpu = (ArrayToArrayCodec) h.gpuCodec(DeltaSpec.NAME, cfg);
                CodecBatch same = CodecBatch.of(buf.slice(0, data.length), buf.slice(0, data.length), "chunk [0] in place");
                gpu.decode(spec, same);
                same.throwIfFailed();
                byte[] back = new byte[data.length];
                h.backend.copy(buf, 0, HostBuffer.wrap(java.lang.foreign.MemorySegment.ofArray(back)), 0, data.length);
                assertArrayEquals(OpenClHarness.bytes(ref.output(0), data.length), back, cfg + " in place, seed " + SEED);
                CodecBatch shifted = CodecBatch.of(buf.slice(0, data.length), buf.slice(8, data.length), "chunk [1] shifted");
                gpu.decode(spec, shifted);
                assertTrue(shifted.failure(0).getMessage().contains("partly overlap"), shifted.failure(0).getMessage());
            } finally {
                keep.forEach(HostBuffer::close);
            }
        }
    }
}
