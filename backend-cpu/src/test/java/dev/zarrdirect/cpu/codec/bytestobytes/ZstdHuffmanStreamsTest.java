// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.SplittableRandom;

import static dev.zarrdirect.cpu.Chunks.decode;
import static dev.zarrdirect.cpu.Chunks.trackingBackend;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ZstdHuffmanStreams}: silent on every valid frame libzstd writes (every level, literals of
 * one and four streams, direct and FSE-compressed weights, treeless blocks reusing a table), and
 * the CPU codec fails a frame whose Huffman stream libzstd decodes although it is not consumed
 * exactly (RFC 8878 4.2.2).
 */
class ZstdHuffmanStreamsTest {

    private static final long SEED = 0x25_06;
    private final CpuBackend backend = trackingBackend();

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    @Test
    void everyValidFrameOfEveryLevelPasses() {
        SplittableRandom r = new SplittableRandom(SEED);
        int frames = 0;
        for (int level : new int[]{-5, 1, 3, 6, 9, 15, 19}) {
            for (int n : new int[]{1, 100, 300, 1_500, 20_000, 300_000}) {
                for (byte[] data : new byte[][]{floats(r, n), text(r, n), skewed(r, n)}) {
                    byte[] frame;
                    try (ZstdCompressCtx c = new ZstdCompressCtx()) {
                        c.setLevel(level);
                        frame = c.compress(data);
                    }
                    String bad = ZstdHuffmanStreams.check(MemorySegment.ofArray(frame));
                    assertNull(bad, "level " + level + ", " + n + " bytes: " + bad);
                    frames++;
                }
            }
        }
        assertEquals(7 * 6 * 3, frames);
    }

    @Test
    void aStreamWithBitsLeftOverIsCorruptOnTheCpuThoughLibzstdDecodesIt() {
        SplittableRandom r = new SplittableRandom(SEED);
        byte[] data = floats(r, 20_000);
        byte[] frame = Zstd.compress(data, 19);
        ZstdCodec codec = ZstdCodec.create(Map.of());
        // flip bits until libzstd accepts a damaged frame that the check rejects: the case the
        // device kernels reported corrupt while the CPU returned bytes
        for (int attempt = 0; attempt < 5_000; attempt++) {
            byte[] bad = frame.clone();
            int bit = r.nextInt(8 * bad.length);
            bad[bit / 8] ^= (byte) (1 << (bit % 8));
            byte[] out = new byte[data.length];
            try {
                if (Zstd.decompress(out, bad) != data.length) {
                    continue;
                }
            } catch (ZstdException e) {
                continue;
            }
            String why = ZstdHuffmanStreams.check(MemorySegment.ofArray(bad));
            if (why == null) {
                continue;
            }
            assertTrue(why.contains("Huffman stream"), why);
            CorruptChunkException e = assertThrows(CorruptChunkException.class,
                    () -> decode(backend, codec, bad, data.length, "chunk [7]"));
            assertTrue(e.getMessage().contains("chunk [7]") && e.getMessage().contains("Huffman stream"), e.getMessage());
            return;
        }
        throw new AssertionError("no damaged frame of the kind in 5000 bit flips (seed " + SEED + ")");
    }

    private static byte[] floats(SplittableRandom r, int n) {
        ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; b.remaining() >= 4; i++) {
            b.putFloat((float) (280 + 10 * Math.sin(i / 50.0) + r.nextDouble() * 0.01));
        }
        return b.array();
    }

    private static byte[] text(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        String words = "the quick brown fox jumps over the lazy dog while era5 winds blow ";
        for (int i = 0; i < n; i++) {
            b[i] = (byte) words.charAt((i + r.nextInt(3)) % words.length());
        }
        return b;
    }

    /** Few symbols, very uneven: direct weights and long codes. */
    private static byte[] skewed(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            int x = r.nextInt(1 << 12);
            b[i] = (byte) (x < 3000 ? 'a' : x < 3800 ? 'b' : 'c' + Integer.numberOfLeadingZeros(x) % 20);
        }
        return b;
    }
}
