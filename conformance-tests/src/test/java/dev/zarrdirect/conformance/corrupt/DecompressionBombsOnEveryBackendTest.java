// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.corrupt;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.BackendProvider;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every decoder of every backend found writes into a buffer of the chunk's size and fails when the
 * input wants more (issue #25, item 2): gzip and zlib streams of 16 MiB of zeros (16 KiB of input),
 * a zstd frame and a blosc header that declare 4 GiB and more, each decoded into a 4 KiB chunk,
 * fail that chunk alone with a {@link CorruptChunkException} naming it, quickly. One class for
 * every backend; an unavailable one is skipped with its probe's reason (fails with
 * {@code ZD_REQUIRE_<NAME>=1}). A backend without a device implementation of a codec is tested
 * with the one its provider gives (the CPU's).
 */
class DecompressionBombsOnEveryBackendTest {

    private static final int CHUNK = 4096;

    record Bomb(String codec, Map<String, Object> configuration, byte[] input) {
    }

    static List<Bomb> bombs() {
        byte[] zeros = new byte[16 << 20];
        ByteBuffer blosc = ByteBuffer.allocate(16 + 4 + 8).order(ByteOrder.LITTLE_ENDIAN);
        // version 2, lz4, no shuffle, typesize 4, nbytes 0xFFFFFFF0, blocksize 64 KiB, cbytes 28
        blosc.put((byte) 2).put((byte) 1).put((byte) (1 << 5)).put((byte) 4).putInt(0xFFFF_FFF0).putInt(1 << 16)
                .putInt(28).putInt(20).putLong(0);
        return List.of(
                new Bomb("gzip", Map.of("level", 1L), compress(zeros, true)),
                new Bomb("numcodecs.zlib", Map.of("level", 1L), compress(zeros, false)),
                new Bomb("zstd", Map.of("level", 3L, "checksum", false), ZstdFrameCorpus.bomb(1L << 40)),
                new Bomb("zstd", Map.of("level", 3L, "checksum", false), ZstdFrameCorpus.bomb(0xFFFF_FFFFL)),
                new Bomb("blosc", Map.of("cname", "lz4", "clevel", 5L, "shuffle", "noshuffle", "typesize", 4L,
                        "blocksize", 0L), blosc.array()));
    }

    @TestFactory
    Stream<DynamicTest> everyDecoderOfEveryBackendRefusesBombs() {
        List<DynamicTest> tests = new ArrayList<>();
        for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
            ProbeResult probe = p.probe();
            if (!probe.available()) {
                String env = "ZD_REQUIRE_" + p.name().toUpperCase(java.util.Locale.ROOT);
                if ("1".equals(System.getenv(env))) {
                    tests.add(DynamicTest.dynamicTest(p.name() + " is required", () -> fail(env + "=1 but "
                            + p.name() + " is unavailable: " + probe.reason())));
                }
                continue;
            }
            tests.add(DynamicTest.dynamicTest("decoders on " + p.name() + " refuse decompression bombs", () -> {
                try (Backend b = p.open()) {
                    List<String> tried = new ArrayList<>();
                    for (Bomb bomb : bombs()) {
                        if (check(b, bomb)) {
                            tried.add(bomb.codec());
                        }
                    }
                    System.out.println("decompression bombs on " + p.name() + ": " + tried);
                    assertTrue(!p.name().equals("cpu") || tried.size() == bombs().size(), "the cpu has every codec: " + tried);
                }
            }));
        }
        return tests.stream();
    }

    /** Decodes {@code bomb} on {@code b}; false when {@code b} has no such codec. */
    private static boolean check(Backend b, Bomb bomb) {
        Device d = b.defaultDevice();
        Codec c = b.codecs().create(bomb.codec(), bomb.configuration(), d).orElse(null);
        if (c == null) {
            return false; // the registry uses the CPU's codec there, tested on the cpu backend
        }
        BytesToBytesCodec codec = (BytesToBytesCodec) c;
        MemoryKind kind = d.isHost() ? MemoryKind.HOST : MemoryKind.DEVICE;
        String label = "bomb chunk (" + bomb.codec() + ", " + bomb.input().length + " bytes)";
        try (Buffer in = b.allocate(d, kind, bomb.input().length); Buffer out = b.allocate(d, kind, CHUNK)) {
            b.copy(HostBuffer.wrap(MemorySegment.ofArray(bomb.input())), 0, in, 0, bomb.input().length);
            // Twice: the first call may build the device program (seconds on some OpenCL
            // drivers); the second shows that refusing the bomb itself is quick.
            for (int round = 0; round < 2; round++) {
                long t0 = System.nanoTime();
                CodecBatch batch = CodecBatch.of(in, out, label);
                codec.decode(batch);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                ZarrDirectException e = batch.failure(0);
                String where = bomb.codec() + " on " + b.name();
                assertInstanceOf(CorruptChunkException.class, e, where + " decoded a bomb into " + CHUNK + " bytes");
                assertTrue(e.getMessage().contains(label), where + ": the message names the chunk: " + e.getMessage());
                assertTrue(round == 0 || ms < 10_000, where + " took " + ms + " ms to refuse a bomb");
            }
        }
        return true;
    }

    private static byte[] compress(byte[] data, boolean gzip) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream o = gzip ? new GZIPOutputStream(bytes) : new DeflaterOutputStream(bytes)) {
            o.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
