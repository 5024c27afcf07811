// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import dev.zarrdirect.cpu.codec.bytestobytes.blosc.BloscHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;

class BloscCodecTest {

    private static final List<String> CNAMES = List.of("blosclz", "lz4", "lz4hc", "zlib", "zstd");
    private static final List<String> SHUFFLES = List.of("noshuffle", "shuffle", "bitshuffle");

    private final CpuBackend backend = trackingBackend();
    private final long seed = new Random().nextLong();
    private final Random random = new Random(seed);

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    private static BloscCodec codec(String cname, int clevel, String shuffle, int typesize) {
        return BloscCodec.create(Map.of("cname", cname, "clevel", (long) clevel, "shuffle", shuffle,
                "typesize", (long) typesize, "blocksize", 0L));
    }

    /** Float-like data: a slow ramp of typesize-byte little-endian values with a little noise. */
    private byte[] smooth(int n, int typesize) {
        byte[] b = new byte[n];
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i + typesize <= n; i += typesize) {
            long v = 1_000_000L + (i / typesize) / 16 + (random.nextInt(16) == 0 ? 1 : 0);
            for (int k = 0; k < typesize; k++) {
                bb.put(i + k, (byte) (v >>> (8 * k)));
            }
        }
        return b;
    }

    @Test
    void everyCnameShuffleTypesizeAndSizeRoundTripsOnRandomAndSmoothData() {
        int combination = 0;
        for (String cname : CNAMES) {
            for (String shuffle : SHUFFLES) {
                for (int typesize : new int[] {1, 2, 4, 8}) {
                    int clevel = 1 + combination++ % 9;
                    BloscCodec codec = codec(cname, clevel, shuffle, typesize);
                    for (int n : new int[] {0, 1, 100, 65536, (1 << 20) + 3}) {
                        for (boolean smooth : new boolean[] {true, false}) {
                            byte[] data = smooth ? smooth(n, typesize) : random(random, n);
                            String what = cname + "/" + shuffle + "/typesize " + typesize + "/clevel " + clevel
                                    + "/" + n + " bytes/" + (smooth ? "smooth" : "random") + " (seed " + seed + ")";
                            byte[] enc = encode(backend, codec, data);
                            assertTrue(enc.length <= codec.maxEncodedSize(n), what);
                            BloscHeader h = BloscHeader.read(java.lang.foreign.MemorySegment.ofArray(enc));
                            assertEquals(2, h.version(), what);
                            assertEquals(n, h.nbytes(), what);
                            assertEquals(enc.length, h.cbytes(), what);
                            assertEquals(typesize, h.typesize(), what);
                            if (smooth && n >= 65536) {
                                assertFalse(h.memcpyed(), what + " compresses");
                                assertEquals(codec.compressor().code(), h.compressorCode(), what);
                            }
                            assertArrayEquals(data, decode(backend, codec, enc, n, "chunk [0]"), what);
                        }
                    }
                }
            }
        }
    }

    @Test
    void explicitBlockSizesGiveSeveralBlocksWithALeftoverAndRoundTrip() {
        for (String cname : CNAMES) {
            for (String shuffle : SHUFFLES) {
                BloscCodec codec = BloscCodec.create(Map.of("cname", cname, "shuffle", shuffle, "typesize", 4L,
                        "blocksize", 4096L, "clevel", 5L));
                byte[] data = smooth(100_003, 4);
                byte[] enc = encode(backend, codec, data);
                BloscHeader h = BloscHeader.read(java.lang.foreign.MemorySegment.ofArray(enc));
                assertEquals(4096, h.blocksize());
                assertEquals(25, h.blocks());
                assertArrayEquals(data, decode(backend, codec, enc, data.length, "chunk [0]"), cname + "/" + shuffle);
            }
        }
    }

    @Test
    void levelZeroAndSmallInputsAreStoredMemcpyed() {
        byte[] data = smooth(5000, 4);
        byte[] enc = encode(backend, codec("lz4", 0, "shuffle", 4), data);
        BloscHeader h = BloscHeader.read(java.lang.foreign.MemorySegment.ofArray(enc));
        assertTrue(h.memcpyed());
        assertEquals(5016, enc.length);
        assertArrayEquals(data, Arrays.copyOfRange(enc, 16, enc.length));
        assertTrue(BloscHeader.read(java.lang.foreign.MemorySegment.ofArray(
                encode(backend, codec("zstd", 9, "shuffle", 4), new byte[127]))).memcpyed());
    }

    @Test
    void decodedSizeIsReadFromTheHeader() {
        BloscCodec codec = codec("lz4", 5, "shuffle", 4);
        byte[] enc = encode(backend, codec, smooth(70_000, 4));
        try (HostBuffer b = buffer(backend, enc); HostBuffer tooShort = buffer(backend, new byte[10])) {
            assertEquals(70_000, codec.decodedSize(b));
            assertEquals(-1, codec.decodedSize(tooShort));
        }
    }

    // ------------------------------------------------------------------------------------ corruption

    private static void putInt(byte[] b, int at, int v) {
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(at, v);
    }

    @Test
    void corruptInputsFailOnlyTheirOwnItemAndNameTheLabelAndTheValues() {
        BloscCodec codec = BloscCodec.create(Map.of("cname", "lz4", "shuffle", "shuffle", "typesize", 4L,
                "blocksize", 8192L));
        byte[] data = smooth(50_000, 4);
        byte[] good = encode(backend, codec, data);
        BloscHeader h = BloscHeader.read(java.lang.foreign.MemorySegment.ofArray(good));
        assertFalse(h.memcpyed());
        assertTrue(h.blocks() > 2);
        Map<String, byte[]> bad = new java.util.LinkedHashMap<>();
        bad.put("is truncated: 10 bytes", Arrays.copyOf(good, 10));
        bad.put("declares cbytes", Arrays.copyOf(good, good.length - 1));
        byte[] bigCbytes = good.clone();
        putInt(bigCbytes, 12, good.length + 100);
        bad.put("cbytes " + (good.length + 100), bigCbytes);
        byte[] wrongNbytes = good.clone();
        putInt(wrongNbytes, 4, 50_001);
        bad.put("declares nbytes 50001, expected 50000", wrongNbytes);
        byte[] offsetOutside = good.clone();
        putInt(offsetOutside, 16 + 4, good.length + 5);
        bad.put("bad offset for block 1", offsetOutside);
        byte[] offsetInTable = good.clone();
        putInt(offsetInTable, 16, 3);
        bad.put("bad offset for block 0 of " + h.blocks() + ": 3", offsetInTable);
        byte[] streamTooLong = good.clone();
        int firstStream = ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN).getInt(16);
        putInt(streamTooLong, firstStream, 1 << 30);
        bad.put("declares 1073741824 compressed bytes for stream 0 of block 0", streamTooLong);
        byte[] garbledStream = good.clone();
        for (int k = 4; k < 40; k++) {
            garbledStream[firstStream + k] = (byte) 0xF0;
        }
        bad.put("bad lz4 stream 0 of block 0", garbledStream);
        byte[] blosc2 = good.clone();
        blosc2[0] = 4;
        bad.put("format version 4", blosc2);
        byte[] snappy = good.clone();
        snappy[2] = (byte) ((snappy[2] & 0x1F) | (2 << 5));
        bad.put("(snappy), which is not implemented", snappy);
        byte[] memcpyWrong = good.clone();
        memcpyWrong[2] |= BloscHeader.MEMCPYED;
        bad.put("is memcpyed but declares cbytes", memcpyWrong);

        List<byte[]> inputs = new ArrayList<>();
        List<String> expectations = new ArrayList<>();
        inputs.add(good);
        expectations.add(null);
        bad.forEach((message, bytes) -> {
            inputs.add(bytes);
            expectations.add(message);
        });
        inputs.add(good);
        expectations.add(null);
        List<HostBuffer> ins = inputs.stream().map(b -> buffer(backend, b)).toList();
        List<HostBuffer> outs = inputs.stream().map(b -> empty(backend, data.length)).toList();
        try {
            CodecBatch b = batch(ins, outs);
            codec.decode(b);
            for (int i = 0; i < inputs.size(); i++) {
                String expected = expectations.get(i);
                if (expected == null) {
                    assertNull(b.failure(i), "item " + i);
                    assertArrayEquals(data, bytes(outs.get(i)));
                } else {
                    CodecException e = assertInstanceOf(CodecException.class, b.failure(i), "item " + i + " " + expected);
                    assertEquals("blosc", e.codec());
                    assertTrue(e.getMessage().contains("chunk [" + i + "]"), e.getMessage());
                    assertTrue(e.getMessage().contains(expected), "expected \"" + expected + "\" in: " + e.getMessage());
                    if (!expected.contains("version 4") && !expected.contains("snappy")) {
                        assertInstanceOf(CorruptChunkException.class, e, e.getMessage());
                    }
                }
            }
        } finally {
            ins.forEach(HostBuffer::close);
            outs.forEach(HostBuffer::close);
        }
    }

    @Test
    void everyTruncationAndEveryByteFlipOfABufferFailsCleanlyOrDecodes() {
        // Fuzz-lite: no truncation or flipped byte may throw anything but the item's CodecException.
        for (String cname : CNAMES) {
            BloscCodec codec = BloscCodec.create(Map.of("cname", cname, "shuffle", "bitshuffle", "typesize", 4L,
                    "blocksize", 2048L));
            byte[] data = smooth(9000, 4);
            byte[] good = encode(backend, codec, data);
            for (int cut = 0; cut < good.length; cut += Math.max(1, good.length / 97)) {
                byte[] truncated = Arrays.copyOf(good, cut);
                assertThrows(CorruptChunkException.class,
                        () -> decode(backend, codec, truncated, data.length, "chunk [7]"), cname + " cut " + cut);
            }
            for (int at = 0; at < good.length; at += Math.max(1, good.length / 211)) {
                byte[] flipped = good.clone();
                flipped[at] ^= (byte) (1 + random.nextInt(255));
                try {
                    decode(backend, codec, flipped, data.length, "chunk [7]");
                } catch (CodecException e) {
                    assertTrue(e.getMessage().contains("chunk [7]"), e.getMessage());
                }
            }
        }
    }

    @Test
    void configurationIsValidatedFieldByField() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BloscCodec.create(Map.of("cname", "snappy")));
        assertTrue(e.getMessage().contains("cname") && e.getMessage().contains("snappy"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> BloscCodec.create(Map.of("clevel", 10L)));
        assertTrue(e.getMessage().contains("clevel") && e.getMessage().contains("10"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> BloscCodec.create(Map.of("shuffle", "byteshuffle")));
        assertTrue(e.getMessage().contains("shuffle") && e.getMessage().contains("byteshuffle"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> BloscCodec.create(Map.of("typesize", 0L)));
        assertTrue(e.getMessage().contains("typesize"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BloscCodec.create(Map.of("blocksize", -1L)));
        assertThrows(IllegalArgumentException.class, () -> BloscCodec.create(Map.of("level", 1L)));
        BloscCodec defaults = BloscCodec.create(null);
        assertEquals("lz4", defaults.compressor().cname());
        assertEquals(5, defaults.clevel());
        assertEquals(dev.zarrdirect.api.codec.spec.BloscSpec.Shuffle.SHUFFLE, defaults.shuffle());
        Map<String, Object> v2 = new HashMap<>(Map.of("id", "blosc", "cname", "zstd", "clevel", 3L, "shuffle", 2L,
                "blocksize", 0L));
        assertEquals(dev.zarrdirect.api.codec.spec.BloscSpec.Shuffle.BITSHUFFLE, BloscCodec.create(v2).shuffle());
        assertEquals(dev.zarrdirect.api.codec.spec.BloscSpec.Shuffle.BITSHUFFLE, BloscCodec.create(Map.of("shuffle", -1L)).shuffle());
        assertEquals(dev.zarrdirect.api.codec.spec.BloscSpec.Shuffle.SHUFFLE, BloscCodec.create(Map.of("shuffle", -1L, "typesize", 4L)).shuffle());
        assertEquals(1, BloscCodec.create(Map.of("typesize", 256L)).typesize());
    }
}
