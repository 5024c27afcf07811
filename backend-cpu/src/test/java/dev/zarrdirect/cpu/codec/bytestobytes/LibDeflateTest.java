// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.Adler32;
import java.util.zip.Deflater;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * libdeflate is a fast path only: with it or without, every codec that inflates must give the same
 * bytes for every good stream and the same failure, word for word, for every damaged one (the device
 * kernels mirror the JDK zlib's messages). The damaged streams are random bit flips, byte changes,
 * truncations and appended bytes of real streams, and wrong expected sizes.
 */
class LibDeflateTest {

    private final CpuBackend backend = trackingBackend();
    private final Random random = new Random(20261128);

    @BeforeAll
    static void needLibDeflate() {
        if ("1".equals(System.getenv("ZD_REQUIRE_LIBDEFLATE"))) {
            assertTrue(LibDeflate.available(), "ZD_REQUIRE_LIBDEFLATE=1 but " + LibDeflate.failure());
        }
        assumeTrue(LibDeflate.available(), () -> "libdeflate unavailable: " + LibDeflate.failure());
    }

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    /** Smooth int16 samples with their two byte planes apart, as a shuffled netCDF-like variable. */
    private byte[] shuffledField(int n) {
        byte[] out = new byte[n];
        int half = n / 2;
        for (int i = 0; i < half; i++) {
            int v = (int) (1000 * Math.sin(i * 0.003)) + random.nextInt(8);
            out[i] = (byte) v;
            out[half + i] = (byte) (v >> 8);
        }
        return out;
    }

    private List<byte[]> samples() {
        return List.of(new byte[0], new byte[] {42}, new byte[70_000], compressible(random, 50_000),
                shuffledField(120_000), random(random, 40_000));
    }

    /** "ok <sha-256>" or the failure's class and message: what a reader of the chunk sees. */
    private String outcome(BytesToBytesCodec codec, byte[] encoded, long size) {
        try {
            byte[] out = decode(backend, codec, encoded, size, "chunk [7]");
            return "ok " + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(out));
        } catch (RuntimeException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private byte[] damage(byte[] good, int kind) {
        byte[] bad;
        switch (kind) {
            case 0 -> { // one to three bit flips
                bad = good.clone();
                for (int k = 1 + random.nextInt(3); k > 0; k--) {
                    int bit = random.nextInt(good.length * 8);
                    bad[bit >>> 3] ^= (byte) (1 << (bit & 7));
                }
            }
            case 1 -> { // a byte set to anything
                bad = good.clone();
                bad[random.nextInt(good.length)] = (byte) random.nextInt(256);
            }
            case 2 -> bad = java.util.Arrays.copyOf(good, random.nextInt(good.length)); // truncated
            default -> { // bytes after the stream
                bad = java.util.Arrays.copyOf(good, good.length + 1 + random.nextInt(9));
                for (int i = good.length; i < bad.length; i++) {
                    bad[i] = (byte) random.nextInt(256);
                }
            }
        }
        return bad;
    }

    /** Both codecs agree on the good stream, on it under wrong sizes, and on {@code rounds} damaged copies. */
    private void assertSameOutcomes(BytesToBytesCodec fast, BytesToBytesCodec zlibOnly, byte[] good, int size,
                                    int rounds) {
        String expected = outcome(zlibOnly, good, size);
        assertTrue(expected.startsWith("ok "), expected);
        assertEquals(expected, outcome(fast, good, size));
        for (int delta : new int[] {-1, 1, 1000}) {
            if (size + delta >= 0) {
                assertEquals(outcome(zlibOnly, good, size + delta), outcome(fast, good, size + delta),
                        "decoded size " + (size + delta) + " for " + size);
            }
        }
        int damagedOk = 0;
        for (int r = 0; r < rounds; r++) {
            byte[] bad = damage(good, r % 4);
            String want = outcome(zlibOnly, bad, size);
            assertEquals(want, outcome(fast, bad, size), "damage " + r % 4 + " round " + r);
            damagedOk += want.equals(expected) ? 1 : 0;
        }
        assertTrue(damagedOk < rounds, "some damage must be caught");
    }

    @Test
    void zlibStreamsDecodeAndFailAlikeWithAndWithoutLibDeflate() {
        for (long level : new long[] {0, 1, 6, 9}) {
            ZlibCodec fast = ZlibCodec.create(ZlibCodec.NAME, Map.of("level", level), true);
            ZlibCodec zlibOnly = ZlibCodec.create(ZlibCodec.NAME, Map.of("level", level), false);
            for (byte[] data : samples()) {
                byte[] good = encode(backend, zlibOnly, data);
                assertSameOutcomes(fast, zlibOnly, good, data.length, data.length == 0 ? 40 : 160);
            }
        }
    }

    @Test
    void gzipMembersDecodeAndFailAlikeWithAndWithoutLibDeflate() {
        GzipCodec fast = GzipCodec.create(Map.of("level", 5L), true);
        GzipCodec zlibOnly = GzipCodec.create(Map.of("level", 5L), false);
        for (byte[] data : samples()) {
            byte[] good = encode(backend, zlibOnly, data);
            assertSameOutcomes(fast, zlibOnly, good, data.length, data.length == 0 ? 40 : 160);
        }
        // two members, as gzip tools concatenate them: the second starts where libdeflate said the first ended
        byte[] a = shuffledField(30_000);
        byte[] b = compressible(random, 20_000);
        ByteArrayOutputStream two = new ByteArrayOutputStream();
        two.writeBytes(encode(backend, zlibOnly, a));
        two.writeBytes(encode(backend, zlibOnly, b));
        assertSameOutcomes(fast, zlibOnly, two.toByteArray(), a.length + b.length, 200);
    }

    @Test
    void bloscZlibBlocksDecodeAndFailAlikeWithAndWithoutLibDeflate() {
        Map<String, Object> config = Map.of("cname", "zlib", "clevel", 5L, "shuffle", "shuffle", "typesize", 2L,
                "blocksize", 16384L);
        BloscCodec fast = BloscCodec.create(config, true, true);
        BloscCodec zlibOnly = BloscCodec.create(config, true, false);
        for (byte[] data : List.of(shuffledField(120_000), compressible(random, 50_000))) {
            byte[] good = encode(backend, zlibOnly, data);
            assertSameOutcomes(fast, zlibOnly, good, data.length, 160);
        }
    }

    @Test
    void decodesAGoodStreamItselfAndSaysWhereItEnded() {
        byte[] data = shuffledField(200_000);
        byte[] z = encode(backend, ZlibCodec.create(ZlibCodec.NAME, Map.of("level", 1L), false), data);
        byte[] withTail = java.util.Arrays.copyOf(z, z.length + 5);
        try (HostBuffer in = buffer(backend, withTail); HostBuffer out = empty(backend, data.length + 10)) {
            MemorySegment src = in.segment();
            MemorySegment dst = out.segment();
            LibDeflate.Result r = LibDeflate.zlib(src, 0, withTail.length, dst, 0, data.length + 10);
            assertTrue(r.ok(), "status " + r.status());
            assertEquals(z.length, r.consumed());
            assertEquals(data.length, r.produced());
            assertArrayEquals(data, bytes(out, data.length));
            assertFalse(LibDeflate.zlib(src, 0, withTail.length, dst, 0, data.length - 1).ok(), "no room: not ok");
            assertFalse(LibDeflate.zlib(src, 0, z.length - 1, dst, 0, data.length).ok(), "truncated: not ok");
        }
    }

    @Test
    void aStreamDeclaringASmallWindowIsZlibsToJudge() {
        // CINFO 0 (a 256-byte window) around raw deflate of 200 bytes: valid, and decoded by zlib alone
        byte[] data = compressible(random, 200);
        Deflater d = new Deflater(6, true);
        d.setInput(data);
        d.finish();
        byte[] raw = new byte[400];
        int n = d.deflate(raw);
        d.end();
        byte[] z = new byte[n + 6];
        z[0] = 0x08;
        z[1] = (byte) (31 - (0x08 << 8) % 31);
        System.arraycopy(raw, 0, z, 2, n);
        Adler32 adler = new Adler32();
        adler.update(data);
        int a = (int) adler.getValue();
        for (int i = 0; i < 4; i++) {
            z[n + 2 + i] = (byte) (a >>> (24 - 8 * i));
        }
        ZlibCodec fast = ZlibCodec.create(ZlibCodec.NAME, Map.of(), true);
        assertArrayEquals(data, decode(backend, fast, z, data.length, "c"));
        assertEquals(outcome(ZlibCodec.create(ZlibCodec.NAME, Map.of(), false), z, data.length),
                outcome(fast, z, data.length));
    }

    @Test
    void warmingDecodesAnEmptyStream() {
        assertTrue(LibDeflate.warm());
        assertTrue(LibDeflate.warm(), "again: nothing is bound twice");
    }

    @Test
    void heapSegmentsAreRefused() {
        MemorySegment heap = MemorySegment.ofArray(new byte[16]);
        assertThrows(IllegalArgumentException.class, () -> LibDeflate.raw(heap, 0, 16, heap, 0, 16));
    }

    @Test
    void concurrentDecodesEachGetTheirOwnDecompressor() throws Exception {
        byte[] data = shuffledField(300_000);
        ZlibCodec fast = ZlibCodec.create(ZlibCodec.NAME, Map.of("level", 1L), true);
        byte[] z = encode(backend, fast, data);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 4; t++) {
            Thread th = new Thread(() -> {
                try {
                    for (int k = 0; k < 25; k++) {
                        assertArrayEquals(data, decode(backend, fast, z, data.length, "c"));
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        assertEquals(List.of(), failures);
    }
}
