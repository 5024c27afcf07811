// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Random;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;

class ShuffleCodecTest {

    private final CpuBackend backend = trackingBackend();
    private final Random random = new Random(4);

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    @Test
    void encodeStoresByteJOfEveryElementTogetherAndKeepsTrailingBytes() {
        ShuffleCodec codec = ShuffleCodec.create(Map.of("elementsize", 4L));
        byte[] data = {1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24, 99, 98};
        assertArrayEquals(new byte[] {1, 11, 21, 2, 12, 22, 3, 13, 23, 4, 14, 24, 99, 98}, encode(backend, codec, data));
    }

    @Test
    void everyElementSizeRoundTripsAgainstTheReference() {
        for (int size : new int[] {1, 2, 3, 4, 8, 16, 24}) {
            ShuffleCodec codec = ShuffleCodec.create(Map.of("id", "shuffle", "elementsize", (long) size));
            for (int n : new int[] {0, 1, 7, 64, 1001, 100_000}) {
                byte[] data = random(random, n);
                byte[] enc = encode(backend, codec, data);
                int count = n / size;
                for (int i = 0; i < count; i++) {
                    for (int j = 0; j < size; j++) {
                        assertEquals(data[i * size + j], enc[j * count + i], "size " + size + " n " + n);
                    }
                }
                for (int k = count * size; k < n; k++) {
                    assertEquals(data[k], enc[k]);
                }
                assertArrayEquals(data, decode(backend, codec, enc, n, "chunk [0]"));
            }
        }
        assertEquals(4, ShuffleCodec.create(null).elementsize());
    }

    @Test
    void decodeIntoAnotherSizeFailsWithTheLabelAndBothSizes() {
        ShuffleCodec codec = ShuffleCodec.create(Map.of());
        CorruptChunkException e = assertThrows(CorruptChunkException.class,
                () -> decode(backend, codec, new byte[12], 16, "chunk [2]"));
        assertTrue(e.getMessage().contains("chunk [2]") && e.getMessage().contains("12")
                && e.getMessage().contains("16"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ShuffleCodec.create(Map.of("elementsize", 0L)));
    }
}
