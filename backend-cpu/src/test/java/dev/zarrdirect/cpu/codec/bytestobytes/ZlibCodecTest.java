// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.InflaterInputStream;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;

class ZlibCodecTest {

    private final CpuBackend backend = trackingBackend();
    private final Random random = new Random(1950);

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    private static byte[] inflate(byte[] z) throws IOException {
        try (InflaterInputStream in = new InflaterInputStream(new ByteArrayInputStream(z))) {
            return in.readAllBytes();
        }
    }

    private static byte[] deflate(byte[] data) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DeflaterOutputStream out = new DeflaterOutputStream(bytes)) {
            out.write(data);
        }
        return bytes.toByteArray();
    }

    @Test
    void everyLevelWritesAZlibStreamThatInflaterInputStreamReads() throws IOException {
        for (long level = -1; level <= 9; level++) {
            ZlibCodec codec = ZlibCodec.create(ZlibCodec.NAME, Map.of("level", level));
            for (int n : new int[] {0, 1, 1000, 300_000}) {
                byte[] data = level % 2 == 0 ? compressible(random, n) : random(random, n);
                byte[] enc = encode(backend, codec, data);
                assertTrue(enc.length <= codec.maxEncodedSize(n), "level " + level + " size " + n);
                assertEquals(0x78, enc[0] & 0xFF, "zlib header, deflate with a 32 KiB window");
                assertArrayEquals(data, inflate(enc), "level " + level + " size " + n);
                assertArrayEquals(data, decode(backend, codec, enc, n, "chunk [0]"));
            }
        }
    }

    @Test
    void readsWhatDeflaterOutputStreamWritesUnderBothNames() throws IOException {
        byte[] data = compressible(random, 1 << 20);
        byte[] z = deflate(data);
        assertArrayEquals(data, decode(backend, ZlibCodec.create("zlib", Map.of()), z, data.length, "c"));
        assertArrayEquals(data, decode(backend, ZlibCodec.create("numcodecs.zlib", Map.of("id", "zlib", "level", 1L)),
                z, data.length, "c"));
        assertEquals("zlib", ZlibCodec.create("zlib", null).name());
        assertEquals(1, ZlibCodec.create("zlib", null).level());
    }

    @Test
    void corruptStreamsFailTheirItemWithTheLabelAndLeaveTheOthersCorrect() throws IOException {
        ZlibCodec codec = ZlibCodec.create(ZlibCodec.NAME, Map.of("level", 6L));
        byte[] data = compressible(random, 40_000);
        byte[] good = encode(backend, codec, data);
        byte[] badAdler = good.clone();
        badAdler[badAdler.length - 1] ^= 1;
        byte[] badHeader = good.clone();
        badHeader[1] ^= 1;
        byte[] truncated = Arrays.copyOf(good, good.length / 2);
        byte[] trailing = Arrays.copyOf(good, good.length + 2);
        byte[] shorter = encode(backend, codec, Arrays.copyOf(data, 39_999));
        List<byte[]> inputs = List.of(good, badAdler, badHeader, truncated, trailing, new byte[0], shorter, good);
        List<String> messages = List.of("", "incorrect data check", "incorrect header check", "truncated",
                "2 bytes after the end", "empty", "decodes to 39999 bytes, expected 40000", "");
        List<HostBuffer> ins = inputs.stream().map(b -> buffer(backend, b)).toList();
        List<HostBuffer> outs = inputs.stream().map(b -> empty(backend, data.length)).toList();
        try {
            CodecBatch b = batch(ins, outs);
            codec.decode(b);
            for (int i = 0; i < inputs.size(); i++) {
                if (messages.get(i).isEmpty()) {
                    assertNull(b.failure(i), "item " + i);
                    assertArrayEquals(data, bytes(outs.get(i)));
                } else {
                    CorruptChunkException e = assertInstanceOf(CorruptChunkException.class, b.failure(i), "item " + i);
                    assertEquals("numcodecs.zlib", e.codec());
                    assertTrue(e.getMessage().contains("chunk [" + i + "]") && e.getMessage().contains(messages.get(i)),
                            e.getMessage());
                }
            }
        } finally {
            ins.forEach(HostBuffer::close);
            outs.forEach(HostBuffer::close);
        }
        CorruptChunkException longer = assertThrows(CorruptChunkException.class,
                () -> decode(backend, codec, good, 39_999, "chunk [9]"));
        assertTrue(longer.getMessage().contains("more than the expected 39999"), longer.getMessage());
    }

    @Test
    void configurationOutsideTheLevelsOrWithAnotherIdIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ZlibCodec.create(ZlibCodec.NAME, Map.of("level", 10L)));
        assertTrue(e.getMessage().contains("numcodecs.zlib") && e.getMessage().contains("level")
                && e.getMessage().contains("10"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ZlibCodec.create(ZlibCodec.NAME, Map.of("id", "gzip")));
        assertThrows(IllegalArgumentException.class, () -> ZlibCodec.create(ZlibCodec.NAME, Map.of("wbits", 15L)));
        assertThrows(IllegalArgumentException.class, () -> ZlibCodec.create("gzip", Map.of()));
    }
}
