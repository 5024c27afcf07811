// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.opencl;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.conformance.opencl.OpenClHarness.Layout;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClInflateCodec;
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
 * Large gzip and zlib streams on OpenCL, which the codec decodes split (kernels'
 * inflate/zd_inflate_split.h; PoCL in CI): every byte equals the written data, the split path is the
 * one that decoded them (a stretch of zeros forces a second decode of its segment), the guards
 * around each output hold, and a damaged stream fails alone exactly when the CPU codec fails it.
 */
class OpenClInflateSplitTest {

    private static final int CHUNK = 3 << 20;
    /** Ranges of 16 KiB (splitting is off by default on CPU devices, PoCL's): a 3 MB chunk spans about 140, past the minimum of 64. */
    private static final String RANGE = "16384";

    private OpenClHarness h;

    @BeforeEach
    void open() {
        System.setProperty(OpenClInflateCodec.SPLIT_BYTES_PROPERTY, RANGE);
        h = OpenClHarness.openOrSkip();
    }

    @AfterEach
    void close() {
        System.clearProperty(OpenClInflateCodec.SPLIT_BYTES_PROPERTY);
        if (h != null) {
            h.close();
        }
    }

    /** ERA5-like float words; kind 1 has a run of zeros in the middle. */
    private static byte[] chunk(Random rnd, int kind) {
        MemorySegment s = MemorySegment.ofArray(new byte[CHUNK]);
        double phase = rnd.nextDouble() * 1000;
        for (int i = 0; i < CHUNK / 4; i++) {
            int w = Float.floatToRawIntBits(280f + (float) Math.sin((i + phase) / 3000.0) * 20f) ^ rnd.nextInt(1 << 12);
            s.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, kind == 1 && i > CHUNK / 12 && i < CHUNK / 6 ? 0 : w);
        }
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private List<byte[]> encode(String name, Map<String, Object> config, List<byte[]> raw) {
        BytesToBytesCodec cpu = (BytesToBytesCodec) h.cpuCodec(name, config);
        List<HostBuffer> keep = new ArrayList<>();
        try {
            long[] sizes = raw.stream().mapToLong(r -> cpu.maxEncodedSize(r.length)).toArray();
            List<String> labels = raw.stream().map(r -> "chunk").toList();
            CodecBatch b = OpenClHarness.hostBatch(raw, sizes, labels, keep, cpu::encode);
            b.throwIfFailed();
            List<byte[]> out = new ArrayList<>();
            for (int k = 0; k < raw.size(); k++) {
                out.add(OpenClHarness.bytes(b.output(k), b.written(k)));
            }
            return out;
        } finally {
            keep.forEach(HostBuffer::close);
        }
    }

    @Test
    void largeStreamsDecodeSplitToTheWrittenBytes() {
        Random rnd = new Random(0x5EED);
        for (String name : new String[]{"gzip", "zlib"}) {
            for (int level : new int[]{1, 6}) {
                Map<String, Object> config = name.equals("zlib") ? Map.of("id", "zlib", "level", level) : Map.of("level", level);
                List<byte[]> raw = List.of(chunk(rnd, 0), chunk(rnd, 1));
                List<byte[]> enc = encode(name, config, raw);
                OpenClInflateCodec dec = (OpenClInflateCodec) h.gpuCodec(name, config);
                long[] sizes = {CHUNK, CHUNK};
                try (OpenClHarness.Run run = h.new Run(Layout.PACKED, enc, sizes, List.of("a", "b"))) {
                    dec.decode(run.batch);
                    for (int k = 0; k < 2; k++) {
                        String where = name + " level " + level + ", chunk " + k;
                        int kk = k;
                        assertNull(run.batch.failure(k), () -> where + ": " + run.batch.failure(kk));
                        assertArrayEquals(raw.get(k), run.output(k, CHUNK), where);
                        run.checkGuards(k, CHUNK, where);
                    }
                }
                assertEquals(2, dec.splitStreams(), name + " level " + level + ": both streams should decode split");
            }
        }
    }

    @Test
    void aDamagedStreamFailsAloneAsTheCpuCodecSays() {
        Random rnd = new Random(0xDA7A);
        Map<String, Object> config = Map.of("id", "zlib", "level", 1);
        BytesToBytesCodec cpu = (BytesToBytesCodec) h.cpuCodec("zlib", config);
        OpenClInflateCodec dec = (OpenClInflateCodec) h.gpuCodec("zlib", config);
        for (int trial = 0; trial < 3; trial++) {
            List<byte[]> raw = List.of(chunk(rnd, 0), chunk(rnd, 0));
            List<byte[]> enc = new ArrayList<>(encode("zlib", config, raw));
            byte[] bad = enc.get(1).clone();
            int bit = 16 + rnd.nextInt(8 * bad.length - 16);
            bad[bit >> 3] ^= (byte) (1 << (bit & 7));
            enc.set(1, bad);
            List<HostBuffer> keep = new ArrayList<>();
            boolean cpuFails;
            try {
                cpuFails = OpenClHarness.hostBatch(List.of(bad), new long[]{CHUNK}, List.of("bad"), keep, cpu::decode)
                        .failure(0) != null;
            } finally {
                keep.forEach(HostBuffer::close);
            }
            try (OpenClHarness.Run run = h.new Run(Layout.PACKED, enc, new long[]{CHUNK, CHUNK}, List.of("good", "bad"))) {
                dec.decode(run.batch);
                assertNull(run.batch.failure(0), "bit " + bit);
                assertArrayEquals(raw.get(0), run.output(0, CHUNK), "bit " + bit);
                assertEquals(cpuFails, run.batch.failure(1) != null, "bit " + bit + ": cpu fails " + cpuFails
                        + ", opencl " + run.batch.failure(1));
                if (cpuFails) {
                    assertInstanceOf(CorruptChunkException.class, run.batch.failure(1));
                }
            }
        }
    }
}
