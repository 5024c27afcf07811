// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import com.github.luben.zstd.Zstd;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.settings.SettingValues;
import dev.zarrdirect.cpu.CpuBackend;
import dev.zarrdirect.cpu.CpuBackendProvider;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;

import static dev.zarrdirect.cpu.Chunks.decode;
import static dev.zarrdirect.cpu.Chunks.encode;
import static dev.zarrdirect.cpu.codec.bytestobytes.ZstdHuffmanStreamsTest.damagedWhereOnlyTheStreamCheckNotices;
import static dev.zarrdirect.cpu.codec.bytestobytes.ZstdHuffmanStreamsTest.floats;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code zarrdirect.cpu.zstdStreamCheck} from the backend's settings to its {@code zstd} and
 * {@code blosc} codecs: on by default, a frame that libzstd decodes but whose Huffman stream is not
 * consumed exactly fails its chunk; off, the chunk decodes to whatever libzstd makes of it.
 */
class ZstdStreamCheckSettingTest {

    private static final long SEED = 0x26_0C;
    private static final int N = 20_000;
    private static final Map<String, Object> BLOSC_ZSTD = Map.of("cname", "zstd", "clevel", 9L, "shuffle",
            "noshuffle", "typesize", 4L);

    private static CpuBackend backend(String streamCheck) {
        SettingValues v = streamCheck == null ? SettingValues.none()
                : SettingValues.builder().set("cpu.zstdStreamCheck", streamCheck).build();
        CpuBackend b = new CpuBackendProvider().open(v);
        b.trackBuffers(true);
        return b;
    }

    private static BytesToBytesCodec codec(CpuBackend b, String name, Map<String, Object> configuration) {
        return (BytesToBytesCodec) b.codecs().create(name, configuration, Device.CPU).orElseThrow();
    }

    @Test
    void byDefaultAZstdFrameLibzstdAcceptsFailsItsChunk() {
        SplittableRandom r = new SplittableRandom(SEED);
        byte[] data = floats(r, N);
        byte[] bad = damagedWhereOnlyTheStreamCheckNotices(Zstd.compress(data, 19), N, r);
        try (CpuBackend b = backend(null)) {
            var e = assertThrows(CorruptChunkException.class,
                    () -> decode(b, codec(b, "zstd", Map.of()), bad, N, "chunk [3]"));
            assertTrue(e.getMessage().contains("chunk [3]") && e.getMessage().contains("Huffman stream"), e.getMessage());
            b.assertNoLiveBuffers();
        }
    }

    @Test
    void turnedOffAZstdChunkDecodesToWhatLibzstdMakesOfIt() {
        SplittableRandom r = new SplittableRandom(SEED);
        byte[] data = floats(r, N);
        byte[] bad = damagedWhereOnlyTheStreamCheckNotices(Zstd.compress(data, 19), N, r);
        try (CpuBackend b = backend("false")) {
            BytesToBytesCodec zstd = codec(b, "zstd", Map.of());
            assertFalse(((ZstdCodec) zstd).streamCheck());
            assertArrayEquals(Zstd.decompress(bad, N), decode(b, zstd, bad, N, "chunk [3]"));
            // a sound frame is unaffected
            assertArrayEquals(data, decode(b, zstd, Zstd.compress(data, 19), N, "chunk [4]"));
            b.assertNoLiveBuffers();
        }
    }

    @Test
    void byDefaultABloscZstdStreamLibzstdAcceptsFailsItsChunk() {
        try (CpuBackend b = backend(null)) {
            BytesToBytesCodec blosc = codec(b, BloscCodec.NAME, BLOSC_ZSTD);
            byte[] bad = bloscWithDamagedZstdStream(b, blosc, floats(new SplittableRandom(SEED), N));
            var e = assertThrows(CorruptChunkException.class, () -> decode(b, blosc, bad, N, "chunk [5]"));
            assertTrue(e.getMessage().contains("chunk [5]") && e.getMessage().contains("Huffman stream"), e.getMessage());
            b.assertNoLiveBuffers();
        }
    }

    @Test
    void turnedOffABloscZstdChunkDecodesToWhatLibzstdMakesOfItsStream() {
        try (CpuBackend b = backend("false")) {
            BytesToBytesCodec blosc = codec(b, BloscCodec.NAME, BLOSC_ZSTD);
            assertFalse(((BloscCodec) blosc).zstdStreamCheck());
            byte[] bad = bloscWithDamagedZstdStream(b, blosc, floats(new SplittableRandom(SEED), N));
            byte[] libzstd = Zstd.decompress(Arrays.copyOfRange(bad, streamStart(bad), bad.length), N);
            assertArrayEquals(libzstd, decode(b, blosc, bad, N, "chunk [5]"));
            b.assertNoLiveBuffers();
        }
    }

    /**
     * {@code data} through blosc with zstd, its one zstd stream then damaged so that only the stream
     * check notices: no shuffle and one block, so the stream is a frame of all of {@code data}.
     */
    private static byte[] bloscWithDamagedZstdStream(CpuBackend b, BytesToBytesCodec blosc, byte[] data) {
        byte[] buffer = encode(b, blosc, data);
        assertEquals(0, buffer[2] & 0x02, "blosc stored the data memcpyed: nothing to damage");
        int start = streamStart(buffer);
        assertEquals(buffer.length, start + le32(buffer, start - 4), "one block of one stream");
        byte[] frame = Arrays.copyOfRange(buffer, start, buffer.length);
        byte[] bad = damagedWhereOnlyTheStreamCheckNotices(frame, data.length, new SplittableRandom(SEED));
        System.arraycopy(bad, 0, buffer, start, bad.length);
        return buffer;
    }

    /** Where the first block's first stream starts: after its offset (at 16) and its 4-byte size. */
    private static int streamStart(byte[] blosc) {
        return le32(blosc, 16) + 4;
    }

    private static int le32(byte[] b, int at) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(at);
    }
}
