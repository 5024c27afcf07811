// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.codec.CudaBloscCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Blosc frames whose blocks are larger than the scratch the CUDA codec assumes (c-blosc 1.21 writes
 * 512 KiB blocks for lz4 level 5 with shuffle on float32, zarr-python 2's default): the first batch
 * learns the block size, later batches decode in one pass, and every batch matches the written bytes.
 */
class CudaBloscLargeBlocksTest {

    private static final int CHUNK = 1 << 21;
    private static final int CHUNKS = 5;

    CudaBackend backend;

    @BeforeEach
    void open() {
        backend = CudaTests.open();
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


    /** Float words with noise in the low bits: shuffle and lz4 both matter. */
    private static byte[] chunk(Random rnd) {
        MemorySegment s = MemorySegment.ofArray(new byte[CHUNK]);
        double phase = rnd.nextDouble() * 1000;
        for (int i = 0; i < CHUNK / 4; i++) {
            float v = (float) Math.sin((i + phase) / 3000.0) * 250f;
            s.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, Float.floatToRawIntBits(v) ^ rnd.nextInt(64));
        }
        return s.toArray(ValueLayout.JAVA_BYTE);
    }


    @Test
    void firstBatchLearnsTheBlockSizeAndEveryBatchMatchesTheWrittenBytes() {
        Random rnd = CudaTests.random("CudaBloscLargeBlocksTest");
        for (int blocksize : new int[]{512 << 10, 1 << 20}) {
            for (String cname : new String[]{"lz4", "zstd"}) {
                BytesToBytesCodec enc = CudaTests.cpuCodec("blosc", Map.of("cname", cname, "clevel", 5, "shuffle", 1, "typesize", 4,
                        "blocksize", blocksize));
                // a v2 store's metadata says blocksize 0: the codec cannot know the block size before a frame
                CudaBloscCodec dec = (CudaBloscCodec) backend.codecs().create("blosc", Map.of("id", "blosc",
                        "cname", cname, "clevel", 5, "shuffle", 1, "blocksize", 0), backend.defaultDevice()).orElseThrow();
                byte[][] raw = new byte[CHUNKS][];
                byte[][] frames = new byte[CHUNKS][];
                for (int c = 0; c < CHUNKS; c++) {
                    raw[c] = chunk(rnd);
                    frames[c] = CudaTests.encode(enc, raw[c]);
                    assertEquals(blocksize, MemorySegment.ofArray(frames[c]).get(ValueLayout.JAVA_INT_UNALIGNED, 8));
                }
                String what = cname + " in blocks of " + blocksize;
                assertEquals(0, dec.learnedBlockSize(), what);
                decodeAndCompare(dec, frames, raw, what + ", first batch");
                assertEquals(blocksize, dec.learnedBlockSize(), what);
                decodeAndCompare(dec, frames, raw, what + ", second batch");
            }
        }
    }

    @Test
    void frameClaimingHugeBlocksFailsAsCorruptAndTeachesNothing() {
        BytesToBytesCodec enc = CudaTests.cpuCodec("blosc", Map.of("cname", "lz4", "clevel", 5, "shuffle", 1, "typesize", 4, "blocksize", CHUNK));
        CudaBloscCodec dec = (CudaBloscCodec) backend.codecs().create("blosc", Map.of("id", "blosc", "cname", "lz4",
                "clevel", 5, "shuffle", 1, "blocksize", 0), backend.defaultDevice()).orElseThrow();
        byte[] frame = CudaTests.encode(enc, chunk(CudaTests.random("huge")));
        MemorySegment.ofArray(frame).set(ValueLayout.JAVA_INT_UNALIGNED, 8, Integer.MAX_VALUE);
        try (Buffer in = backend.allocate(backend.defaultDevice(), MemoryKind.DEVICE, frame.length);
             Buffer out = backend.allocate(backend.defaultDevice(), MemoryKind.DEVICE, CHUNK);
             HostBuffer h = HostBuffer.allocate(frame.length)) {
            MemorySegment.copy(MemorySegment.ofArray(frame), 0, h.segment(), 0, frame.length);
            backend.copy(h, 0, in, 0, frame.length);
            CodecBatch b = CodecBatch.of(in, out, "chunk");
            dec.decode(b);
            assertInstanceOf(CorruptChunkException.class, b.failure(0), String.valueOf(b.failure(0)));
        }
        assertTrue(dec.learnedBlockSize() <= CHUNK, "learned " + dec.learnedBlockSize());
    }

    private void decodeAndCompare(CudaBloscCodec dec, byte[][] frames, byte[][] raw, String what) {
        long total = 0;
        for (byte[] f : frames) {
            total += f.length;
        }
        try (Buffer in = backend.allocate(backend.defaultDevice(), MemoryKind.DEVICE, total);
             Buffer out = backend.allocate(backend.defaultDevice(), MemoryKind.DEVICE, (long) CHUNKS * CHUNK);
             HostBuffer h = HostBuffer.allocate((long) CHUNKS * CHUNK)) {
            // poison: a chunk the kernel skipped would keep these bytes
            h.segment().fill((byte) 0xA5);
            backend.copy(h, 0, out, 0, out.byteSize());
            List<CodecBatch.Item> items = new ArrayList<>();
            long at = 0;
            for (int c = 0; c < CHUNKS; c++) {
                try (HostBuffer f = HostBuffer.allocate(frames[c].length)) {
                    MemorySegment.copy(MemorySegment.ofArray(frames[c]), 0, f.segment(), 0, frames[c].length);
                    backend.copy(f, 0, in, at, frames[c].length);
                }
                items.add(new CodecBatch.Item(in.slice(at, frames[c].length), out.slice((long) c * CHUNK, CHUNK),
                        "chunk " + c));
                at += frames[c].length;
            }
            CodecBatch batch = new CodecBatch(items);
            dec.decode(batch);
            batch.throwIfFailed();
            backend.copy(out, 0, h, 0, out.byteSize());
            for (int c = 0; c < CHUNKS; c++) {
                assertEquals(-1, MemorySegment.mismatch(MemorySegment.ofArray(raw[c]), 0, CHUNK, h.segment(),
                        (long) c * CHUNK, (long) (c + 1) * CHUNK), what + ": chunk " + c + " differs");
            }
        }
    }
}
