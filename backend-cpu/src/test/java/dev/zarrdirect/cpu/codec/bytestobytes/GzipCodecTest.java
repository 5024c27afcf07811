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
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;

class GzipCodecTest {

    private final CpuBackend backend = trackingBackend();
    private final Random random = new Random(1952);

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    private static byte[] gunzip(byte[] gz) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            return in.readAllBytes();
        }
    }

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
            out.write(data);
        }
        return bytes.toByteArray();
    }

    @Test
    void everyLevelWritesGzipThatTheJdkReadsBack() throws IOException {
        for (long level = 0; level <= 9; level++) {
            GzipCodec codec = GzipCodec.create(Map.of("level", level));
            for (int n : new int[] {0, 1, 1000, 200_000}) {
                byte[] data = level % 2 == 0 ? compressible(random, n) : random(random, n);
                byte[] enc = encode(backend, codec, data);
                assertTrue(enc.length <= codec.maxEncodedSize(n), "level " + level + " size " + n);
                assertArrayEquals(data, gunzip(enc), "level " + level + " size " + n);
                assertArrayEquals(data, decode(backend, codec, enc, n, "chunk [0]"));
            }
        }
    }

    @Test
    void readsWhatTheJdkWrites() throws IOException {
        GzipCodec codec = GzipCodec.create(Map.of("level", 1L));
        for (int n : new int[] {0, 17, 70_000, 1 << 20}) {
            byte[] data = compressible(random, n);
            assertArrayEquals(data, decode(backend, codec, gzip(data), n, "chunk [0]"));
        }
    }

    @Test
    void readsSeveralMembersOneAfterTheOther() throws IOException {
        byte[] a = compressible(random, 5000);
        byte[] b = random(random, 3000);
        ByteArrayOutputStream both = new ByteArrayOutputStream();
        both.write(gzip(a));
        both.write(gzip(b));
        byte[] expected = new byte[8000];
        System.arraycopy(a, 0, expected, 0, 5000);
        System.arraycopy(b, 0, expected, 5000, 3000);
        assertArrayEquals(expected, decode(backend, GzipCodec.create(Map.of()), both.toByteArray(), 8000, "c"));
    }

    @Test
    void readsHeadersWithExtraNameCommentAndHeaderCrc() throws IOException {
        byte[] data = compressible(random, 4000);
        byte[] plain = gzip(data);
        ByteArrayOutputStream h = new ByteArrayOutputStream();
        h.write(new byte[] {0x1f, (byte) 0x8b, 8, 2 | 4 | 8 | 16, 1, 2, 3, 4, 0, 3});
        h.write(new byte[] {3, 0, 'x', 'y', 'z'});
        h.write("era5.bin\0".getBytes());
        h.write("a comment\0".getBytes());
        CRC32 crc = new CRC32();
        crc.update(h.toByteArray());
        h.write((int) crc.getValue() & 0xff);
        h.write((int) (crc.getValue() >>> 8) & 0xff);
        h.write(plain, 10, plain.length - 10);
        byte[] withHeader = h.toByteArray();
        assertArrayEquals(data, gunzip(withHeader), "the JDK agrees the member is valid");
        assertArrayEquals(data, decode(backend, GzipCodec.create(Map.of()), withHeader, 4000, "c"));
        withHeader[12] ^= 1; // inside FEXTRA, so the header CRC16 no longer matches
        CorruptChunkException e = assertThrows(CorruptChunkException.class,
                () -> decode(backend, GzipCodec.create(Map.of()), withHeader, 4000, "chunk [3]"));
        assertTrue(e.getMessage().contains("CRC16") && e.getMessage().contains("chunk [3]"), e.getMessage());
    }

    @Test
    void corruptInputFailsItsItemWithTheLabelAndLeavesTheOthersCorrect() throws IOException {
        GzipCodec codec = GzipCodec.create(Map.of("level", 6L));
        byte[] data = compressible(random, 50_000);
        byte[] good = encode(backend, codec, data);
        byte[] wrongCrc = good.clone();
        wrongCrc[wrongCrc.length - 6] ^= 1;
        byte[] wrongSize = good.clone();
        wrongSize[wrongSize.length - 1] ^= 1;
        byte[] truncated = java.util.Arrays.copyOf(good, good.length / 2);
        byte[] flipped = good.clone();
        flipped[good.length / 3] ^= 0x40;
        byte[] badMagic = good.clone();
        badMagic[0] = 0x1e;
        byte[] trailingGarbage = java.util.Arrays.copyOf(good, good.length + 3);
        List<byte[]> inputs = List.of(good, wrongCrc, wrongSize, truncated, flipped, badMagic, new byte[0],
                trailingGarbage, good);
        List<HostBuffer> ins = inputs.stream().map(b -> buffer(backend, b)).toList();
        List<HostBuffer> outs = inputs.stream().map(b -> empty(backend, data.length)).toList();
        try {
            CodecBatch b = batch(ins, outs);
            codec.decode(b);
            for (int i = 0; i < inputs.size(); i++) {
                boolean shouldPass = i == 0 || i == inputs.size() - 1;
                if (shouldPass) {
                    assertNull(b.failure(i), "item " + i);
                    assertArrayEquals(data, bytes(outs.get(i)));
                } else {
                    CorruptChunkException e = assertInstanceOf(CorruptChunkException.class, b.failure(i), "item " + i);
                    assertTrue(e.getMessage().contains("chunk [" + i + "]"), e.getMessage());
                    assertEquals("gzip", e.codec());
                }
            }
        } finally {
            ins.forEach(HostBuffer::close);
            outs.forEach(HostBuffer::close);
        }
    }

    @Test
    void decodeNamesExpectedAndActualSizesWhenTheyDiffer() throws IOException {
        byte[] enc = gzip(new byte[100]);
        CorruptChunkException shorter = assertThrows(CorruptChunkException.class,
                () -> decode(backend, GzipCodec.create(Map.of()), enc, 101, "chunk [1]"));
        assertTrue(shorter.getMessage().contains("100") && shorter.getMessage().contains("101"), shorter.getMessage());
        CorruptChunkException longer = assertThrows(CorruptChunkException.class,
                () -> decode(backend, GzipCodec.create(Map.of()), enc, 99, "chunk [1]"));
        assertTrue(longer.getMessage().contains("more than the expected 99"), longer.getMessage());
    }

    @Test
    void configurationOutsideZeroToNineOrUnknownIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GzipCodec.create(Map.of("level", 10L)));
        assertTrue(e.getMessage().contains("gzip") && e.getMessage().contains("level") && e.getMessage().contains("10"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> GzipCodec.create(Map.of("level", "5")));
        assertThrows(IllegalArgumentException.class, () -> GzipCodec.create(Map.of("level", 5L, "mtime", 0L)));
        assertEquals(5, GzipCodec.create(null).level());
    }
}
