// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.codec.CudaInflateCodec;
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
 * Large gzip and zlib streams, which the CUDA codec decodes split (block starts found in ranges of
 * the stream, segments decoded by blocks of their own, the chain verified): every byte equals the
 * written data, the split path is the one that decoded them, a segment far more compressible than
 * its stream (zeros amid noise) is decoded again with more room, and a damaged stream fails alone
 * with the CPU codec's verdict while its neighbours decode.
 */
class CudaInflateSplitTest {

    private static final int CHUNK = 3 << 20;

    CudaBackend backend;

    /** Ranges of 16 KiB: a 3 MB chunk spans about 140, past the codec's minimum of 64 for splitting. */
    private static final String RANGE = "16k";

    @BeforeEach
    void open() {
        System.setProperty("zarrdirect.cuda.inflateSplitBytes", RANGE);
        backend = CudaTests.open();
    }

    @AfterEach
    void close() {
        System.clearProperty("zarrdirect.cuda.inflateSplitBytes");
        if (backend != null) {
            try {
                backend.assertNoLiveBuffers();
            } finally {
                backend.close();
            }
        }
    }


    /**
     * ERA5-like float words (a smooth field plus noise in the low bits); kind 1 has a run of zeros in
     * the middle; kind 2 is int16 values shuffled into two planes (netCDF-like), whose noisy low
     * plane deflate writes as stored blocks.
     */
    private static byte[] chunk(Random rnd, int kind) {
        if (kind == 2) {
            byte[] d = new byte[CHUNK];
            for (int i = 0; i < CHUNK / 2; i++) {
                int v = (int) (8000 * Math.sin(i / 3000.0)) + rnd.nextInt(256);
                d[i] = (byte) (v >> 8);
                d[CHUNK / 2 + i] = (byte) v;
            }
            return d;
        }
        MemorySegment s = MemorySegment.ofArray(new byte[CHUNK]);
        double phase = rnd.nextDouble() * 1000;
        for (int i = 0; i < CHUNK / 4; i++) {
            float v = 280f + (float) Math.sin((i + phase) / 3000.0) * 20f;
            int w = Float.floatToRawIntBits(v) ^ rnd.nextInt(1 << 12);
            if (kind == 1 && i > CHUNK / 12 && i < CHUNK / 6) {
                w = 0;
            }
            s.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, w);
        }
        return s.toArray(ValueLayout.JAVA_BYTE);
    }


    @Test
    void largeStreamsDecodeSplitToTheWrittenBytes() {
        Random rnd = CudaTests.random("CudaInflateSplitTest");
        for (String name : new String[]{"gzip", "zlib"}) {
            for (int level : new int[]{1, 6, 9}) {
                Map<String, Object> config = name.equals("zlib") ? Map.of("id", "zlib", "level", level)
                        : Map.of("level", level);
                BytesToBytesCodec enc = CudaTests.cpuCodec(name, config);
                CudaInflateCodec dec = (CudaInflateCodec) backend.codecs().create(name, config,
                        backend.defaultDevice()).orElseThrow();
                int n = 4;
                byte[][] raw = new byte[n][];
                byte[][] frames = new byte[n][];
                for (int c = 0; c < n; c++) {
                    raw[c] = chunk(rnd, c % 3);
                    frames[c] = CudaTests.encode(enc, raw[c]);
                }
                String what = name + " level " + level;
                List<Throwable> failures = decode(dec, frames, raw, -1, what);
                failures.forEach(f -> assertNull(f, what));
                assertEquals(n, dec.splitStreams(), what + ": every stream should have decoded split");
            }
        }
    }

    @Test
    void aDamagedStreamFailsAloneAsTheCpuCodecSays() {
        Random rnd = CudaTests.random("CudaInflateSplitTest.damaged");
        BytesToBytesCodec enc = CudaTests.cpuCodec("zlib", Map.of("id", "zlib", "level", 1));
        CudaInflateCodec dec = (CudaInflateCodec) backend.codecs().create("zlib", Map.of("id", "zlib", "level", 1),
                backend.defaultDevice()).orElseThrow();
        int n = 3;
        for (int trial = 0; trial < 6; trial++) {
            byte[][] raw = new byte[n][];
            byte[][] frames = new byte[n][];
            for (int c = 0; c < n; c++) {
                raw[c] = chunk(rnd, 0);
                if (c == 2) {
                    // too small to split: it decodes on a stream of its own while the others split
                    raw[c] = java.util.Arrays.copyOf(raw[c], 200_000);
                }
                frames[c] = CudaTests.encode(enc, raw[c]);
            }
            // a flipped bit somewhere past the header of the middle stream (the trailer included)
            int bit = 16 + rnd.nextInt(8 * frames[1].length - 16);
            frames[1][bit >> 3] ^= (byte) (1 << (bit & 7));
            boolean cpuFails = cpuFails(enc, frames[1], CHUNK);
            List<Throwable> failures = decode(dec, frames, raw, 1, "bit " + bit);
            assertNull(failures.get(0), "bit " + bit);
            assertNull(failures.get(2), "bit " + bit);
            assertEquals(cpuFails, failures.get(1) != null, "bit " + bit + ": cpu fails " + cpuFails + ", cuda "
                    + failures.get(1));
            if (failures.get(1) != null) {
                assertInstanceOf(CorruptChunkException.class, failures.get(1));
            }
        }
    }

    private static boolean cpuFails(BytesToBytesCodec enc, byte[] frame, int size) {
        try (HostBuffer in = HostBuffer.allocate(frame.length); HostBuffer out = HostBuffer.allocate(size)) {
            MemorySegment.copy(MemorySegment.ofArray(frame), 0, in.segment(), 0, frame.length);
            CodecBatch b = CodecBatch.of(in, out, "chunk");
            enc.decode(b);
            return b.failure(0) != null;
        }
    }

    /** Decodes the frames in one batch; checks the bytes of every item but {@code damaged}; returns the failures. */
    private List<Throwable> decode(CudaInflateCodec dec, byte[][] frames, byte[][] raw, int damaged, String what) {
        int n = frames.length;
        long total = 0;
        for (byte[] f : frames) {
            total += f.length;
        }
        long[] outAt = new long[n + 1];
        for (int c = 0; c < n; c++) {
            outAt[c + 1] = outAt[c] + raw[c].length;
        }
        try (Buffer in = backend.allocate(backend.defaultDevice(), MemoryKind.DEVICE, total);
             Buffer out = backend.allocate(backend.defaultDevice(), MemoryKind.DEVICE, outAt[n]);
             HostBuffer h = HostBuffer.allocate(outAt[n])) {
            h.segment().fill((byte) 0xA5); // poison: a stream the kernels skipped would keep these bytes
            backend.copy(h, 0, out, 0, out.byteSize());
            List<CodecBatch.Item> items = new ArrayList<>();
            long at = 0;
            for (int c = 0; c < n; c++) {
                try (HostBuffer f = HostBuffer.allocate(frames[c].length)) {
                    MemorySegment.copy(MemorySegment.ofArray(frames[c]), 0, f.segment(), 0, frames[c].length);
                    backend.copy(f, 0, in, at, frames[c].length);
                }
                items.add(new CodecBatch.Item(in.slice(at, frames[c].length), out.slice(outAt[c], raw[c].length),
                        "chunk " + c));
                at += frames[c].length;
            }
            CodecBatch batch = new CodecBatch(items);
            dec.decode(batch);
            backend.copy(out, 0, h, 0, out.byteSize());
            List<Throwable> failures = new ArrayList<>();
            for (int c = 0; c < n; c++) {
                failures.add(batch.failure(c));
                if (c != damaged && batch.failure(c) == null) {
                    assertEquals(-1, MemorySegment.mismatch(MemorySegment.ofArray(raw[c]), 0, raw[c].length,
                            h.segment(), outAt[c], outAt[c + 1]), what + ": chunk " + c + " differs");
                }
            }
            return failures;
        }
    }
}
