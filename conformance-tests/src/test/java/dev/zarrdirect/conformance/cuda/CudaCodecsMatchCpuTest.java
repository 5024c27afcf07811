// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.DeltaSpec;
import dev.zarrdirect.conformance.device.DeltaTestData;
import dev.zarrdirect.cpu.CpuCodecProvider;
import dev.zarrdirect.cuda.CudaBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What is CUDA's own in its codecs, beyond the device-codec contract that every backend runs
 * ({@link CudaCodecContractTest}, which covers crc32c, bytes and transpose both ways, and every codec's
 * decode and damaged input against the CPU): zstd decoding of frames the CPU encoder wrote at levels
 * -7 to 22 over sizes around the 128 KiB block limit and random sizes up to 8 MiB, batches of 600
 * frames in one call, the kernels' status words in corrupt-frame messages, host items refused alone,
 * and numcodecs.delta across the kernel's tiles and in place at unaligned addresses.
 * Outputs are poisoned (0xA5) before each run and surrounded by guard bytes that must survive.
 */
class CudaCodecsMatchCpuTest {

    static final int GUARD = 64;
    static final byte POISON = (byte) 0xA5;
    static final int BLOCK = 128 << 10;

    CudaBackend backend;
    Device cuda0;
    final CpuCodecProvider cpu = new CpuCodecProvider();

    @BeforeEach
    void open() {
        backend = CudaTests.open();
        cuda0 = backend.defaultDevice();
    }

    @AfterEach
    void close() {
        if (backend != null) {
            try {
                backend.assertNoLiveBuffers();
            } finally {
                backend.close();
            }
        }
    }

    Codec cuda(String name, Map<String, Object> cfg) {
        Codec c = backend.codecs().create(name, cfg, cuda0).orElseThrow();
        assertEquals(cuda0, c.device());
        assertEquals("cuda", c.provider());
        return c;
    }

    Codec cpu(String name, Map<String, Object> cfg) {
        return cpu.create(name, cfg, Device.CPU).orElseThrow();
    }

    /** Host-side CPU run of one stage over byte arrays; returns the outputs (trimmed to what was written). */
    static List<byte[]> onCpu(List<byte[]> inputs, List<Long> outSizes, Consumer<CodecBatch> stage) {
        List<HostBuffer> bufs = new ArrayList<>();
        try {
            List<CodecBatch.Item> items = new ArrayList<>();
            for (int i = 0; i < inputs.size(); i++) {
                HostBuffer in = HostBuffer.allocate(inputs.get(i).length);
                MemorySegment.copy(MemorySegment.ofArray(inputs.get(i)), 0, in.segment(), 0, inputs.get(i).length);
                HostBuffer out = HostBuffer.allocate(outSizes.get(i));
                bufs.add(in);
                bufs.add(out);
                items.add(new CodecBatch.Item(in, out, "cpu item " + i));
            }
            CodecBatch b = new CodecBatch(items);
            stage.accept(b);
            b.throwIfFailed();
            List<byte[]> out = new ArrayList<>();
            for (int i = 0; i < inputs.size(); i++) {
                out.add(b.output(i).segment().asSlice(0, b.written(i)).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            }
            return out;
        } finally {
            bufs.forEach(HostBuffer::close);
        }
    }

    /** The result of one device run: per item the output bytes (or the failure), and whether every guard survived. */
    record DeviceRun(List<byte[]> outputs, CodecBatch batch) {
    }

    /**
     * Runs {@code stage} on the device: inputs back to back in one device buffer, outputs in another
     * with {@link #GUARD} poisoned bytes before, between and after them ({@code packed}: no guards,
     * outputs back to back), every output byte poisoned first.
     */
    DeviceRun onDevice(List<byte[]> inputs, List<Long> outSizes, boolean packed, Consumer<CodecBatch> stage) {
        int n = inputs.size();
        long inTotal = 0;
        for (byte[] b : inputs) {
            inTotal += b.length;
        }
        int guard = packed ? 0 : GUARD;
        long outTotal = guard;
        long[] outAt = new long[n];
        for (int i = 0; i < n; i++) {
            outAt[i] = outTotal;
            outTotal += outSizes.get(i) + guard;
        }
        try (Buffer inHost = backend.allocate(cuda0, MemoryKind.HOST_PINNED, Math.max(1, inTotal));
             Buffer in = backend.allocate(cuda0, MemoryKind.DEVICE, Math.max(1, inTotal));
             Buffer out = backend.allocate(cuda0, MemoryKind.DEVICE, Math.max(1, outTotal))) {
            List<CodecBatch.Item> items = new ArrayList<>();
            long at = 0;
            for (int i = 0; i < n; i++) {
                MemorySegment.copy(MemorySegment.ofArray(inputs.get(i)), 0, inHost.segment(), at, inputs.get(i).length);
                items.add(new CodecBatch.Item(in.slice(at, inputs.get(i).length), out.slice(outAt[i], outSizes.get(i)),
                        "chunk [" + i + "] of the test batch"));
                at += inputs.get(i).length;
            }
            backend.copy(inHost, 0, in, 0, inTotal);
            backend.fill(out, 0, outTotal, MemorySegment.ofArray(new byte[]{POISON}));
            CodecBatch batch = new CodecBatch(items);
            stage.accept(batch);
            try (Buffer outHost = backend.allocate(cuda0, MemoryKind.HOST_PINNED, Math.max(1, outTotal))) {
                backend.copy(out, 0, outHost, 0, outTotal);
                MemorySegment o = outHost.segment();
                List<byte[]> outputs = new ArrayList<>();
                long prevEnd = 0;
                for (int i = 0; i < n; i++) {
                    for (long g = prevEnd; g < outAt[i]; g++) {
                        assertEquals(POISON, o.get(java.lang.foreign.ValueLayout.JAVA_BYTE, g), "guard byte at " + g
                                + " before output " + i + " was overwritten; seed " + CudaTests.SEED);
                    }
                    outputs.add(batch.failure(i) == null
                            ? o.asSlice(outAt[i], batch.written(i)).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE) : null);
                    prevEnd = outAt[i] + outSizes.get(i);
                }
                for (long g = prevEnd; g < outTotal; g++) {
                    assertEquals(POISON, o.get(java.lang.foreign.ValueLayout.JAVA_BYTE, g), "trailing guard byte at " + g);
                }
                return new DeviceRun(outputs, batch);
            }
        }
    }

    static List<Integer> zstdSizes(Random rnd) {
        List<Integer> s = new ArrayList<>(List.of(0, 1, BLOCK - 1, BLOCK, BLOCK + 1));
        for (int i = 0; i < 3; i++) {
            s.add(1 + rnd.nextInt(8 << 20));
        }
        return s;
    }

    @Test
    void zstdDecodesWhatTheCpuEncoderWroteAtEveryLevel() {
        Random rnd = CudaTests.random("zstd");
        List<Integer> sizes = zstdSizes(rnd);
        List<byte[]> data = new ArrayList<>();
        for (int s : sizes) {
            data.add(CudaTests.compressible(rnd, s));
        }
        for (long level : new long[]{-7, 1, 3, 19, 22}) {
            for (boolean checksum : new boolean[]{false, true}) {
                if (checksum && level != 3) {
                    continue;
                }
                Map<String, Object> cfg = Map.of("level", level, "checksum", checksum);
                BytesToBytesCodec enc = (BytesToBytesCodec) cpu("zstd", cfg);
                List<Long> bounds = data.stream().map(d -> enc.maxEncodedSize(d.length)).toList();
                List<byte[]> frames = onCpu(data, bounds, enc::encode);
                List<Long> outSizes = data.stream().map(d -> (long) d.length).toList();
                List<byte[]> expect = onCpu(frames, outSizes, ((BytesToBytesCodec) cpu("zstd", cfg))::decode);
                BytesToBytesCodec dec = (BytesToBytesCodec) cuda("zstd", cfg);
                DeviceRun run = onDevice(frames, outSizes, false, dec::decode);
                for (int i = 0; i < data.size(); i++) {
                    assertNull(run.batch().failure(i), () -> "level " + level + ": " + run.batch().failure(0));
                    assertArrayEquals(expect.get(i), run.outputs().get(i), "zstd level " + level + " size " + sizes.get(i)
                            + " differs from the CPU decode; seed " + CudaTests.SEED);
                    assertArrayEquals(data.get(i), run.outputs().get(i));
                }
            }
        }
    }

    @Test
    void zstdBatchesOfManySmallFramesDecodeInOneCall() {
        Random rnd = CudaTests.random("zstd-many");
        BytesToBytesCodec enc = (BytesToBytesCodec) cpu("zstd", Map.of("level", 3L));
        List<byte[]> data = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            data.add(CudaTests.compressible(rnd, rnd.nextInt(70_000)));
        }
        List<byte[]> frames = onCpu(data, data.stream().map(d -> enc.maxEncodedSize(d.length)).toList(), enc::encode);
        DeviceRun run = onDevice(frames, data.stream().map(d -> (long) d.length).toList(), true,
                ((BytesToBytesCodec) cuda("zstd", Map.of()))::decode);
        for (int i = 0; i < data.size(); i++) {
            assertArrayEquals(data.get(i), run.outputs().get(i), "frame " + i + ", seed " + CudaTests.SEED);
        }
    }

    @Test
    void corruptFramesFailAloneAndTouchNothingOutsideTheirOutput() {
        Random rnd = CudaTests.random("zstd-corrupt");
        BytesToBytesCodec enc = (BytesToBytesCodec) cpu("zstd", Map.of("level", 3L, "checksum", true));
        List<byte[]> data = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            data.add(CudaTests.compressible(rnd, 1000 + rnd.nextInt(400_000)));
        }
        List<byte[]> frames = new ArrayList<>(onCpu(data, data.stream().map(d -> enc.maxEncodedSize(d.length)).toList(),
                enc::encode));
        // item 3 truncated, items 5 and 8 bit-flipped (the checksum catches flips in raw literals), item 10 empty
        frames.set(3, java.util.Arrays.copyOf(frames.get(3), frames.get(3).length / 2));
        for (int i : new int[]{5, 8}) {
            byte[] f = frames.get(i).clone();
            int at = 6 + rnd.nextInt(f.length - 6);
            f[at] ^= (byte) (1 << rnd.nextInt(8));
            frames.set(i, f);
        }
        frames.set(10, new byte[0]);
        DeviceRun run = onDevice(frames, data.stream().map(d -> (long) d.length).toList(), false,
                ((BytesToBytesCodec) cuda("zstd", Map.of()))::decode);
        for (int i = 0; i < data.size(); i++) {
            if ((i == 5 || i == 8) && run.batch().failure(i) == null) {
                // a flip that changes no output byte (the checksum would catch any that did) may decode
                assertArrayEquals(data.get(i), run.outputs().get(i), "item " + i + " decoded despite a flip");
            } else if (i == 3 || i == 5 || i == 8 || i == 10) {
                var f = run.batch().failure(i);
                assertInstanceOf(CorruptChunkException.class, f, "item " + i + " should fail; seed " + CudaTests.SEED);
                assertTrue(f.getMessage().contains("chunk [" + i + "] of the test batch"), f.getMessage());
                if (i != 10) {
                    assertTrue(f.getMessage().contains("ZD_STATUS_"), f.getMessage());
                }
            } else {
                assertNull(run.batch().failure(i), "item " + i);
                assertArrayEquals(data.get(i), run.outputs().get(i), "item " + i + " next to corrupt ones");
            }
        }
    }

    @Test
    void zstdEncodingIsNotOnTheDevice() {
        BytesToBytesCodec c = (BytesToBytesCodec) cuda("zstd", Map.of("level", 3L));
        var e = assertThrows(UnsupportedOperationException.class, () -> c.encode(new CodecBatch(List.of())));
        assertTrue(e.getMessage().contains("CPU"), e.getMessage());
    }

    @Test
    void itemsOnTheHostFailAloneWithTheirLabel() {
        BytesToBytesCodec dev = (BytesToBytesCodec) cuda("crc32c", Map.of());
        try (HostBuffer in = HostBuffer.allocate(8); HostBuffer out = HostBuffer.allocate(4)) {
            CodecBatch b = CodecBatch.of(in, out, "chunk [7] of \"/host\"");
            dev.decode(b);
            assertTrue(b.failure(0).getMessage().contains("chunk [7] of \"/host\""), b.failure(0).getMessage());
        }
    }

    /** The kernel's tile: ZD_DELTA_PER_ITEM (8) elements for each of the block's 256 threads. */
    static final int DELTA_TILE = 8 * 256;

    @Test
    void deltaMatchesTheCpuBothWaysForEveryTypeAndTileBoundary() {
        Random rnd = CudaTests.random("delta");
        java.util.SplittableRandom r = new java.util.SplittableRandom(rnd.nextLong());
        for (Map<String, Object> cfg : DeltaTestData.CONFIGS) {
            DataType t = DeltaSpec.parse(cfg).dtype();
            ArrayToArrayCodec cpuC = (ArrayToArrayCodec) cpu(DeltaSpec.NAME, cfg);
            ArrayToArrayCodec devC = (ArrayToArrayCodec) cuda(DeltaSpec.NAME, cfg);
            for (int count : new int[]{0, 1, DELTA_TILE - 1, DELTA_TILE, DELTA_TILE + 1, 5000 + rnd.nextInt(300_000)}) {
                ChunkSpec spec = new ChunkSpec(t, new long[]{count});
                List<byte[]> chunks = new ArrayList<>();
                for (int kind = 0; kind < DeltaTestData.KINDS; kind++) {
                    chunks.add(DeltaTestData.chunk(r, t, count, kind));
                }
                List<Long> sizes = chunks.stream().map(x -> (long) x.length).toList();
                List<byte[]> encoded = onCpu(chunks, sizes, b -> cpuC.encode(spec, b));
                List<byte[]> decoded = onCpu(chunks, sizes, b -> cpuC.decode(spec, b));
                for (boolean packed : new boolean[]{true, false}) {
                    DeviceRun enc = onDevice(chunks, sizes, packed, b -> devC.encode(spec, b));
                    DeviceRun dec = onDevice(chunks, sizes, packed, b -> devC.decode(spec, b));
                    for (int i = 0; i < chunks.size(); i++) {
                        String what = cfg + " " + count + " elements, kind " + i + ", seed " + CudaTests.SEED;
                        assertNull(enc.batch().failure(i), what);
                        assertNull(dec.batch().failure(i), what);
                        assertArrayEquals(encoded.get(i), enc.outputs().get(i), what + " encode");
                        assertArrayEquals(decoded.get(i), dec.outputs().get(i), what + " decode");
                    }
                }
            }
        }
    }

    @Test
    void deltaDecodesInPlaceAtAnUnalignedAddressAndRefusesPartlyOverlappingBuffers() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(CudaTests.random("delta in place").nextLong());
        for (Map<String, Object> cfg : List.of(Map.<String, Object>of("dtype", "<i8"), Map.<String, Object>of("dtype", "<f4"))) {
            DataType t = DeltaSpec.parse(cfg).dtype();
            int count = 3 * DELTA_TILE + 17;
            ChunkSpec spec = new ChunkSpec(t, new long[]{count});
            byte[] data = DeltaTestData.chunk(r, t, count, 1);
            byte[] expect = onCpu(List.of(data), List.of((long) data.length),
                    b -> ((ArrayToArrayCodec) cpu(DeltaSpec.NAME, cfg)).decode(spec, b)).getFirst();
            ArrayToArrayCodec devC = (ArrayToArrayCodec) cuda(DeltaSpec.NAME, cfg);
            try (Buffer host = backend.allocate(cuda0, MemoryKind.HOST_PINNED, data.length + 16L);
                 Buffer buf = backend.allocate(cuda0, MemoryKind.DEVICE, data.length + 16L)) {
                MemorySegment.copy(MemorySegment.ofArray(data), 0, host.segment(), 1, data.length);
                backend.copy(host, 0, buf, 0, data.length + 16L);
                CodecBatch same = CodecBatch.of(buf.slice(1, data.length), buf.slice(1, data.length), "chunk [0] in place");
                devC.decode(spec, same);
                same.throwIfFailed();
                backend.copy(buf, 0, host, 0, data.length + 16L);
                assertArrayEquals(expect, host.segment().asSlice(1, data.length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                        cfg + " in place, seed " + CudaTests.SEED);
                CodecBatch shifted = CodecBatch.of(buf.slice(0, data.length), buf.slice(8, data.length), "chunk [1] shifted");
                devC.decode(spec, shifted);
                assertTrue(shifted.failure(0).getMessage().contains("partly overlap"), shifted.failure(0).getMessage());
            }
        }
    }
}
