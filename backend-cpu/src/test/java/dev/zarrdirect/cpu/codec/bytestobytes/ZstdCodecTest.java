// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdOutputStream;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;

class ZstdCodecTest {

    private static final long SEED = 0x25_7D;
    private final CpuBackend backend = trackingBackend();
    private final Random random = new Random(SEED);

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    private static ZstdCodec zstd(long level, boolean checksum) {
        return ZstdCodec.create(Map.of("level", level, "checksum", checksum));
    }

    /** The frame header descriptor: its bit 2 is the content checksum flag (RFC 8878, 3.1.1.1.1). */
    private static int descriptor(byte[] frame) {
        return frame[4] & 0xff;
    }

    @Test
    void writesFramesThatZstdJniReadsBackAtEveryKindOfLevel() {
        for (int level : new int[] {Zstd.minCompressionLevel(), -5, -1, 0, 1, 3, 9, 19, 22}) {
            for (boolean checksum : new boolean[] {false, true}) {
                ZstdCodec codec = zstd(level, checksum);
                for (int n : new int[] {0, 1, 1000, 300_000}) {
                    byte[] data = compressible(random, n);
                    byte[] enc = encode(backend, codec, data);
                    String what = "level " + level + " checksum " + checksum + " size " + n + " seed " + SEED;
                    assertArrayEquals(data, Zstd.decompress(enc, n), what);
                    assertEquals(checksum, (descriptor(enc) & 4) != 0, what);
                    assertEquals(n, Zstd.getFrameContentSize(enc), "content size declared, " + what);
                    assertArrayEquals(data, decode(backend, codec, enc, n, "chunk [0]"), what);
                }
            }
        }
    }

    @Test
    void levelIsHonouredByteForByteAgainstZstdJni() {
        byte[] data = compressible(random, 200_000);
        for (int level : new int[] {-3, 1, 3, 12, 19}) {
            byte[] ours = encode(backend, zstd(level, false), data);
            assertArrayEquals(Zstd.compress(data, level), ours, "level " + level);
        }
        assertArrayEquals(Zstd.compress(data, Zstd.defaultCompressionLevel()), encode(backend, zstd(0, false), data),
                "level 0 is zstd's default level");
        assertTrue(encode(backend, zstd(19, false), data).length < encode(backend, zstd(-5, false), data).length);
    }

    @Test
    void readsFramesWithoutContentSizeAndWithChecksumsFromStreams() throws IOException {
        for (boolean checksum : new boolean[] {false, true}) {
            byte[] data = compressible(random, 700_000);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ZstdOutputStream out = new ZstdOutputStream(bytes, 5)) {
                out.setChecksum(checksum);
                for (int off = 0; off < data.length; off += 65_536) {
                    out.write(data, off, Math.min(65_536, data.length - off));
                }
            }
            byte[] enc = bytes.toByteArray();
            assertEquals(0, descriptor(enc) & 0xE0, "a streamed frame declares no content size (FCS flag 0, not single-segment)");
            assertEquals(checksum, (descriptor(enc) & 4) != 0);
            assertArrayEquals(data, decode(backend, zstd(0, false), enc, data.length, "chunk [0]"));
        }
    }

    @Test
    void readsConcatenatedFramesAndSkippableFrames() {
        byte[] a = compressible(random, 10_000);
        byte[] b = random(random, 5_000);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(Zstd.compress(a, 3));
        all.writeBytes(new byte[] {0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 9, 9, 9}); // skippable frame, 3 bytes
        all.writeBytes(Zstd.compress(b, 1));
        byte[] expected = new byte[15_000];
        System.arraycopy(a, 0, expected, 0, 10_000);
        System.arraycopy(b, 0, expected, 10_000, 5_000);
        assertArrayEquals(expected, decode(backend, zstd(0, false), all.toByteArray(), 15_000, "chunk [0]"));
    }

    @Test
    void decodeSaysWhenTheChunkIsLongerOrShorterThanExpected() {
        byte[] enc = Zstd.compress(new byte[1000], 3);
        CorruptChunkException longer = assertThrows(CorruptChunkException.class,
                () -> decode(backend, zstd(0, false), enc, 999, "chunk [4,0]"));
        assertTrue(longer.getMessage().startsWith("zstd frame of chunk [4,0] is"), longer.getMessage());
        assertTrue(longer.getMessage().contains("expected 999 decoded bytes"), longer.getMessage());
        CorruptChunkException shorter = assertThrows(CorruptChunkException.class,
                () -> decode(backend, zstd(0, false), enc, 1001, "chunk [4,0]"));
        assertTrue(shorter.getMessage().contains("expected 1001 decoded bytes"), shorter.getMessage());
    }

    @Test
    void everyTruncationBitFlipAndRandomInputFailsItsOwnItemOnly() {
        byte[] data = compressible(random, 20_000);
        byte[] good = encode(backend, zstd(3, true), data);
        List<byte[]> bad = new ArrayList<>();
        for (int len = 0; len < good.length; len += Math.max(1, good.length / 97)) {
            bad.add(Arrays.copyOf(good, len));
        }
        for (int i = 0; i < 400; i++) {
            byte[] f = good.clone();
            int bit = random.nextInt(f.length * 8);
            f[bit / 8] ^= (byte) (1 << (bit % 8));
            bad.add(f);
        }
        for (int i = 0; i < 200; i++) {
            byte[] r = random(random, 4 + random.nextInt(3000));
            if (i % 2 == 0) { // random bodies behind a valid magic number reach deeper into the decoder
                r[0] = 0x28; r[1] = (byte) 0xB5; r[2] = 0x2F; r[3] = (byte) 0xFD;
            }
            bad.add(r);
        }
        ZstdCodec codec = zstd(0, false);
        int failures = 0;
        for (int start = 0; start < bad.size(); start += 50) {
            List<byte[]> part = new ArrayList<>(bad.subList(start, Math.min(bad.size(), start + 50)));
            part.add(good);
            List<HostBuffer> ins = part.stream().map(b -> buffer(backend, b)).toList();
            List<HostBuffer> outs = part.stream().map(b -> empty(backend, data.length)).toList();
            try {
                CodecBatch b = batch(ins, outs);
                codec.decode(b);
                for (int i = 0; i < part.size() - 1; i++) {
                    if (b.failure(i) == null) {
                        // a flip in a literal the checksum does not catch is impossible with checksum=true
                        fail("corrupt input " + (start + i) + " decoded without error, seed " + SEED);
                    }
                    CorruptChunkException e = assertInstanceOf(CorruptChunkException.class, b.failure(i));
                    assertTrue(e.getMessage().contains("chunk [" + i + "]"), e.getMessage());
                    failures++;
                }
                int last = part.size() - 1;
                assertNull(b.failure(last), "the good chunk behind corrupt ones");
                assertArrayEquals(data, bytes(outs.get(last)));
            } finally {
                ins.forEach(HostBuffer::close);
                outs.forEach(HostBuffer::close);
            }
        }
        assertEquals(bad.size(), failures);
    }

    @Test
    void configurationIsValidatedWithCodecFieldAndValue() {
        IllegalArgumentException tooHigh = assertThrows(IllegalArgumentException.class,
                () -> zstd(Zstd.maxCompressionLevel() + 1, false));
        assertTrue(tooHigh.getMessage().contains("zstd") && tooHigh.getMessage().contains("level")
                && tooHigh.getMessage().contains(String.valueOf(Zstd.maxCompressionLevel() + 1)), tooHigh.getMessage());
        assertThrows(IllegalArgumentException.class, () -> zstd(Zstd.minCompressionLevel() - 1, false));
        IllegalArgumentException notBool = assertThrows(IllegalArgumentException.class,
                () -> ZstdCodec.create(Map.of("level", 1L, "checksum", "yes")));
        assertTrue(notBool.getMessage().contains("checksum") && notBool.getMessage().contains("yes"),
                notBool.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> ZstdCodec.create(Map.of("level", 1L, "dict", "x")));
        assertTrue(unknown.getMessage().contains("dict"), unknown.getMessage());
        ZstdCodec defaults = ZstdCodec.create(null);
        assertEquals(0, defaults.level());
        assertFalse(defaults.checksum());
        assertEquals("zstd", defaults.name());
        assertEquals("cpu", defaults.provider());
    }
}
