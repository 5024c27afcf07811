// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.CodecProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What a batch costs the host on the OpenCL backend, counted by {@link ClCounters}: the operations
 * whose number (not the GPU's speed) made blosc reads 17 times slower on NVIDIA's OpenCL than on
 * CUDA. Every decode is also checked byte for byte.
 */
class BatchCostTest {

    private static final int CHUNK = 1 << 20;
    private static final int CHUNKS = 3;

    private OpenClBackend backend;

    @BeforeEach
    void open() {
        backend = OpenCl.openOrSkip();
    }

    @AfterEach
    void noLeaks() {
        if (backend != null) {
            try {
                backend.assertNoLiveBuffers();
            } finally {
                backend.close();
            }
        }
    }

    private static CodecProvider cpu() {
        return ServiceLoader.load(CodecProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("cpu")).findFirst().orElseThrow();
    }

    /** Float-like words: a smooth ramp with noise in the low bits, so that shuffle and lz4 both matter. */
    private static byte[] chunk(int c) {
        MemorySegment s = MemorySegment.ofArray(new byte[CHUNK]);
        for (int i = 0; i < CHUNK / 4; i++) {
            float v = (float) Math.sin((i + 7919.0 * c) / 5000.0) * 100f;
            s.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, Float.floatToRawIntBits(v) & ~0x3f);
        }
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void bloscBatchOfLargeBlocksCostsTwoLaunchesOneWaitAndNoBufferOnceItsBlockSizeIsKnown() {
        // c-blosc 1.21's own choice for lz4 level 5, byte shuffle, typesize 4: 512 KiB blocks, more
        // than the 256 KiB the codec assumes when the metadata says nothing (a v2 store's does not)
        BytesToBytesCodec enc = (BytesToBytesCodec) cpu().create("blosc", Map.of("cname", "lz4", "clevel", 5,
                "shuffle", 1, "typesize", 4, "blocksize", 512 << 10), Device.CPU).orElseThrow();
        BytesToBytesCodec dec = (BytesToBytesCodec) backend.codecs().create("blosc", Map.of("id", "blosc", "cname", "lz4",
                "clevel", 5, "shuffle", 1, "blocksize", 0), backend.device()).orElseThrow();
        byte[][] raw = new byte[CHUNKS][];
        List<byte[]> frames = new ArrayList<>();
        long total = 0;
        for (int c = 0; c < CHUNKS; c++) {
            raw[c] = chunk(c);
            byte[] f = encode(enc, raw[c]);
            assertEquals(512 << 10, MemorySegment.ofArray(f).get(ValueLayout.JAVA_INT_UNALIGNED, 8), "blocksize field");
            frames.add(f);
            total += f.length;
        }
        try (Buffer in = backend.allocate(backend.device(), MemoryKind.DEVICE, total);
             Buffer out = backend.allocate(backend.device(), MemoryKind.DEVICE, (long) CHUNKS * CHUNK)) {
            List<CodecBatch.Item> items = new ArrayList<>();
            long at = 0;
            for (int c = 0; c < CHUNKS; c++) {
                byte[] f = frames.get(c);
                try (HostBuffer h = HostBuffer.allocate(f.length)) {
                    MemorySegment.copy(MemorySegment.ofArray(f), 0, h.segment(), 0, f.length);
                    backend.copy(h, 0, in, at, f.length);
                }
                items.add(new CodecBatch.Item(in.slice(at, f.length), out.slice((long) c * CHUNK, CHUNK), "chunk " + c));
                at += f.length;
            }
            ClCounters.Snapshot first = decode(dec, items, out, raw);
            // the first batch learns the block size: its frames fail the first pass and decode again
            assertEquals(4, first.launches(), first.toString());
            ClCounters.Snapshot second = decode(dec, items, out, raw);
            assertEquals(2, second.launches(), "plan and decode, one pass: " + second);
            assertEquals(1, second.waits(), "one wait for both launches: " + second);
            assertEquals(1, second.blockingReads(), "the status words: " + second);
            assertEquals(1, second.blockingWrites(), "the chunk table: " + second);
            assertEquals(0, second.buffersCreated(), "table, plan and scratch come from the pool: " + second);
            assertEquals(0, second.pinnedMaps(), second.toString());
        }
    }

    @Test
    void bloscZstdBlocksOfHalfAMebibyteWithHuffmanLiteralsDecode() {
        // 512 KiB shuffled blocks filled 512 KiB of default scratch exactly and left the zstd decoder
        // none: the first block with Huffman-coded literals failed as a corrupt frame. Text-like
        // words make zstd code its literals with Huffman tables.
        BytesToBytesCodec enc = (BytesToBytesCodec) cpu().create("blosc", Map.of("cname", "zstd", "clevel", 5,
                "shuffle", 1, "typesize", 4, "blocksize", 512 << 10), Device.CPU).orElseThrow();
        BytesToBytesCodec dec = (BytesToBytesCodec) backend.codecs().create("blosc", Map.of("id", "blosc", "cname", "zstd",
                "clevel", 5, "shuffle", 1, "blocksize", 0), backend.device()).orElseThrow();
        java.util.Random rnd = new java.util.Random(1234);
        byte[] raw = new byte[CHUNK];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = (byte) (rnd.nextInt(100) < 90 ? 'a' + rnd.nextInt(20) : rnd.nextInt(256));
        }
        byte[] frame = encode(enc, raw);
        try (Buffer in = backend.allocate(backend.device(), MemoryKind.DEVICE, frame.length);
             Buffer out = backend.allocate(backend.device(), MemoryKind.DEVICE, CHUNK);
             HostBuffer h = HostBuffer.allocate(frame.length)) {
            MemorySegment.copy(MemorySegment.ofArray(frame), 0, h.segment(), 0, frame.length);
            backend.copy(h, 0, in, 0, frame.length);
            decode(dec, List.of(new CodecBatch.Item(in, out, "chunk")), out, new byte[][]{raw});
            decode(dec, List.of(new CodecBatch.Item(in, out, "chunk")), out, new byte[][]{raw});
        }
    }

    @Test
    void bloscFrameWhoseBlocksizeFieldIsHugeFailsAsCorruptAsOnTheCpu() {
        // one block of the whole chunk, its header claiming 2 GiB - 1 (so the streams no longer
        // split: corrupt on the CPU). The retry must size its scratch by what a block can decode to
        // (the chunk), not by the claim: 2 GiB of scratch would fail the batch on allocation instead
        BytesToBytesCodec enc = (BytesToBytesCodec) cpu().create("blosc", Map.of("cname", "lz4", "clevel", 5,
                "shuffle", 1, "typesize", 4, "blocksize", CHUNK), Device.CPU).orElseThrow();
        Map<String, Object> config = Map.of("id", "blosc", "cname", "lz4", "clevel", 5, "shuffle", 1, "blocksize", 0);
        BytesToBytesCodec onCpu = (BytesToBytesCodec) cpu().create("blosc", config, Device.CPU).orElseThrow();
        BytesToBytesCodec dec = (BytesToBytesCodec) backend.codecs().create("blosc", config, backend.device()).orElseThrow();
        byte[] frame = encode(enc, chunk(5));
        MemorySegment.ofArray(frame).set(ValueLayout.JAVA_INT_UNALIGNED, 8, Integer.MAX_VALUE);
        try (HostBuffer in = HostBuffer.allocate(frame.length); HostBuffer out = HostBuffer.allocate(CHUNK)) {
            MemorySegment.copy(MemorySegment.ofArray(frame), 0, in.segment(), 0, frame.length);
            CodecBatch b = CodecBatch.of(in, out, "chunk");
            onCpu.decode(b);
            assertInstanceOf(CorruptChunkException.class, b.failure(0), "the CPU's verdict");
        }
        try (Buffer in = backend.allocate(backend.device(), MemoryKind.DEVICE, frame.length);
             Buffer out = backend.allocate(backend.device(), MemoryKind.DEVICE, CHUNK);
             HostBuffer h = HostBuffer.allocate(frame.length)) {
            MemorySegment.copy(MemorySegment.ofArray(frame), 0, h.segment(), 0, frame.length);
            backend.copy(h, 0, in, 0, frame.length);
            CodecBatch b = CodecBatch.of(in, out, "chunk");
            dec.decode(b);
            assertInstanceOf(CorruptChunkException.class, b.failure(0), String.valueOf(b.failure(0)));
        }
    }

    private ClCounters.Snapshot decode(BytesToBytesCodec dec, List<CodecBatch.Item> items, Buffer out, byte[][] raw) {
        ClCounters.Snapshot before = backend.counters().snapshot();
        CodecBatch batch = new CodecBatch(items);
        dec.decode(batch);
        ClCounters.Snapshot cost = backend.counters().snapshot().minus(before);
        batch.throwIfFailed();
        try (HostBuffer h = HostBuffer.allocate(out.byteSize())) {
            backend.copy(out, 0, h, 0, out.byteSize());
            for (int c = 0; c < raw.length; c++) {
                assertEquals(-1, MemorySegment.mismatch(MemorySegment.ofArray(raw[c]), 0, CHUNK, h.segment(),
                        (long) c * CHUNK, (long) (c + 1) * CHUNK), "chunk " + c + " decoded differs");
            }
            backend.fill(out, 0, out.byteSize(), MemorySegment.ofArray(new byte[]{(byte) 0xCD}));
        }
        return cost;
    }

    private static byte[] encode(BytesToBytesCodec enc, byte[] raw) {
        try (HostBuffer in = HostBuffer.allocate(raw.length);
             HostBuffer out = HostBuffer.allocate(enc.maxEncodedSize(raw.length))) {
            MemorySegment.copy(MemorySegment.ofArray(raw), 0, in.segment(), 0, raw.length);
            CodecBatch b = CodecBatch.of(in, out, "chunk");
            enc.encode(b);
            b.throwIfFailed();
            return out.segment().asSlice(0, b.written(0)).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @Test
    void pinnedStagingIsMappedOnceAndReusedAndAZeroedAllocationOfAReusedBlockIsZero() {
        ClCounters.Snapshot before = backend.counters().snapshot();
        try (Buffer a = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST_PINNED, 3 << 20)) {
            a.segment().fill((byte) 7);
        }
        try (Buffer b = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST_PINNED, 3 << 20)) {
            assertEquals(1, backend.counters().snapshot().minus(before).pinnedMaps(), "the second takes the first's block");
            assertEquals(MemoryKind.HOST_PINNED, b.kind());
        }
        try (Buffer c = backend.allocate(Device.CPU, MemoryKind.HOST_PINNED, 3 << 20)) {
            assertEquals(1, backend.counters().snapshot().minus(before).pinnedMaps());
            assertEquals(-1, c.segment().mismatch(MemorySegment.ofArray(new byte[3 << 20])), "allocate() zeroes");
        }
    }

    @Test
    void uninitializedDeviceMemoryIsReusedWithinItsSizeClassAndZeroedMemoryIsZero() {
        ClCounters.Snapshot before = backend.counters().snapshot();
        try (Buffer a = backend.allocateUninitialized(backend.device(), MemoryKind.DEVICE, 5_000_000)) {
            backend.fill(a, 0, a.byteSize(), MemorySegment.ofArray(new byte[]{9}));
        }
        // 5,000,000 and 4,800,000 bytes share a class (4 MiB to 8 MiB in steps of 512 KiB): one buffer
        try (Buffer b = backend.allocateUninitialized(backend.device(), MemoryKind.DEVICE, 4_800_000)) {
            assertEquals(1, backend.counters().snapshot().minus(before).buffersCreated());
            assertEquals(4_800_000, b.byteSize());
        }
        try (Buffer c = backend.allocate(backend.device(), MemoryKind.DEVICE, 5_000_000);
             HostBuffer h = HostBuffer.allocate(5_000_000)) {
            assertEquals(2, backend.counters().snapshot().minus(before).buffersCreated(), "allocate() is never pooled");
            backend.copy(c, 0, h, 0, h.byteSize());
            assertEquals(-1, h.segment().mismatch(MemorySegment.ofArray(new byte[5_000_000])), "allocate() zeroes");
        }
    }

    @Test
    void aClosedPinnedBufferCannotBeReadThroughItsOldSegment() {
        Buffer a = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST_PINNED, 1 << 16);
        MemorySegment seg = a.segment();
        a.close();
        assertThrows(IllegalStateException.class, () -> seg.get(ValueLayout.JAVA_BYTE, 0));
    }
}
