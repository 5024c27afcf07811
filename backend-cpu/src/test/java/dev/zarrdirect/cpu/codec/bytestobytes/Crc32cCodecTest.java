// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.api.ChecksumMismatchException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;

class Crc32cCodecTest {

    private final CpuBackend backend = trackingBackend();
    private final Crc32cCodec codec = Crc32cCodec.create(Map.of());

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    @Test
    void checksumOfTheStandardCheckStringIsE3069283() {
        byte[] enc = encode(backend, codec, "123456789".getBytes(StandardCharsets.US_ASCII));
        assertEquals(13, enc.length);
        assertArrayEquals(new byte[] {(byte) 0x83, (byte) 0x92, 0x06, (byte) 0xE3}, Arrays.copyOfRange(enc, 9, 13),
                "CRC32C(\"123456789\") = 0xE3069283, stored little-endian");
    }

    @Test
    void roundTripsRandomDataOfManySizes() {
        Random r = new Random(42);
        for (int n : new int[] {0, 1, 3, 4, 5, 4095, 4096, 65537, 1 << 20}) {
            byte[] data = random(r, n);
            byte[] enc = encode(backend, codec, data);
            assertEquals(n + 4, enc.length);
            assertArrayEquals(data, decode(backend, codec, enc, n, "chunk [0]"), "size " + n);
        }
    }

    @Test
    void decodeReportsBothChecksumsAndTheLabelWithoutSpoilingOtherChunks() {
        byte[] good = encode(backend, codec, "fine".getBytes(StandardCharsets.US_ASCII));
        byte[] bad = good.clone();
        bad[1] ^= 0x10;
        try (HostBuffer in0 = buffer(backend, bad); HostBuffer in1 = buffer(backend, good);
             HostBuffer out0 = empty(backend, 4); HostBuffer out1 = empty(backend, 4)) {
            CodecBatch b = batch(List.of(in0, in1), List.of(out0, out1));
            codec.decode(b);
            ChecksumMismatchException e = assertInstanceOf(ChecksumMismatchException.class, b.failure(0));
            assertTrue(e.getMessage().contains("chunk [0]"), e.getMessage());
            assertTrue(e.getMessage().contains(String.format("0x%08X", e.stored())), e.getMessage());
            assertTrue(e.getMessage().contains(String.format("0x%08X", e.computed())), e.getMessage());
            assertNotEquals(e.stored(), e.computed());
            assertEquals(-1, b.written(0));
            assertNull(b.failure(1));
            assertEquals(4, b.written(1));
            assertEquals("fine", new String(bytes(out1), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void decodeRejectsInputShorterThanTheChecksum() {
        for (int n = 0; n < 4; n++) {
            int size = n;
            CorruptChunkException e = assertThrows(CorruptChunkException.class,
                    () -> decode(backend, codec, new byte[size], 0, "chunk [7,1]"));
            assertTrue(e.getMessage().contains("chunk [7,1]") && e.getMessage().contains("truncated"), e.getMessage());
        }
    }

    @Test
    void decodeRejectsAnOutputThatDoesNotMatchTheDataLength() {
        byte[] enc = encode(backend, codec, new byte[10]);
        CorruptChunkException e = assertThrows(CorruptChunkException.class,
                () -> decode(backend, codec, enc, 11, "chunk [2]"));
        assertTrue(e.getMessage().contains("10 data bytes, expected 11"), e.getMessage());
    }

    @Test
    void configurationWithAnyFieldIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Crc32cCodec.create(Map.of("seed", 1L)));
        assertTrue(e.getMessage().contains("crc32c") && e.getMessage().contains("seed"), e.getMessage());
        assertEquals("crc32c", Crc32cCodec.create(null).name());
    }
}
