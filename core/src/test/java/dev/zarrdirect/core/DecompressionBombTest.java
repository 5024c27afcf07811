// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

import static dev.zarrdirect.core.ArrayFixtures.bytes;
import static dev.zarrdirect.core.ArrayFixtures.gzip;
import static dev.zarrdirect.core.ArrayFixtures.sharding;
import static dev.zarrdirect.core.ArrayFixtures.zstd;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Decompression bombs (issue #25, item 2): encoded data whose header declares, or whose stream
 * inflates to, far more than the chunk can hold fail with a message naming the key before any
 * memory of the declared size is allocated. The declared sizes include 1 TiB, which no test machine
 * could allocate, and 64 MiB, which it could: only the bound, not a failed allocation, stops both.
 */
class DecompressionBombTest {

    private static final long TIB = 1L << 40;
    private static final long[] SHAPE = {8, 8};
    private static final DataType DT = DataType.FLOAT64;

    static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 1);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    @Test
    void zstdFrameAroundAShardDeclaringHugeContentFailsBeforeAllocating() {
        // zstd after sharding_indexed: the chain cannot tell the shard's size, so the frame header is asked
        for (long declared : new long[]{TIB, 64L << 20}) {
            Store store = array(List.of(sharding(new long[]{4, 4}, List.of(bytes("little")), List.of(bytes("little")),
                    "end"), zstd(0, false)));
            store.set("c/0/0", MemorySegment.ofArray(zstdFrame(declared, new byte[]{1})));
            assertBomb(store, "zstd", String.valueOf(declared));
        }
    }

    @Test
    void zstdFrameOfAnInnerChunkDeclaringHugeContentFailsBeforeAllocating() {
        Store store = array(List.of(sharding(SHAPE, List.of(bytes("little"), zstd(0, false)), List.of(bytes("little")),
                "start")));
        byte[] frame = zstdFrame(TIB, new byte[]{1});
        ByteBuffer shard = ByteBuffer.allocate(16 + frame.length).order(ByteOrder.LITTLE_ENDIAN);
        shard.putLong(16).putLong(frame.length).put(frame);
        store.set("c/0/0", MemorySegment.ofArray(shard.array()));
        assertBomb(store, "zstd", "512");
    }

    @Test
    void zstdChunkDeclaringHugeContentFails() {
        Store store = array(List.of(bytes("little"), zstd(0, false)));
        store.set("c/0/0", MemorySegment.ofArray(zstdFrame(TIB, new byte[]{1})));
        assertBomb(store, "zstd", "512");
    }

    @Test
    void gzipBombInflatingFarBeyondTheChunkFailsFast() throws IOException {
        Store store = array(List.of(bytes("little"), gzip(1)));
        store.set("c/0/0", MemorySegment.ofArray(deflateZeros(new GzipWrap(), 32 << 20)));
        assertBomb(store, "gzip", "more than the expected 512");
    }

    @Test
    void zlibBombInAZarrV2ChunkFailsFast() throws IOException {
        Store store = new MemoryStore();
        put(store, ".zarray", """
                {"chunks": [8, 8], "compressor": {"id": "zlib", "level": 1}, "dtype": "<f8", "fill_value": 0,
                 "filters": null, "order": "C", "shape": [8, 8], "zarr_format": 2}""");
        store.set("0.0", MemorySegment.ofArray(deflateZeros(DeflaterOutputStream::new, 32 << 20)));
        assertBomb(store, "0.0", "zlib", "more than the expected 512");
    }

    @Test
    void zstdFrameInAZarrV2ChunkDeclaringHugeContentFails() {
        Store store = new MemoryStore();
        put(store, ".zarray", """
                {"chunks": [8, 8], "compressor": {"id": "zstd", "level": 1}, "dtype": "<f8", "fill_value": 0,
                 "filters": null, "order": "C", "shape": [8, 8], "zarr_format": 2}""");
        store.set("0.0", MemorySegment.ofArray(zstdFrame(TIB, new byte[]{1})));
        assertBomb(store, "0.0", "zstd", "512");
    }

    @Test
    void bloscHeaderDeclaringHugeNbytesFailsBeforeAllocating() {
        Store plain = array(List.of(bytes("little"), blosc()));
        plain.set("c/0/0", MemorySegment.ofArray(bloscMemcpyedHeader(0xFFFF_FFF0L)));
        assertBomb(plain, "blosc", String.valueOf(0xFFFF_FFF0L));
        // blosc after sharding_indexed: the header's nbytes is the only size there is
        Store sharded = array(List.of(sharding(new long[]{4, 4}, List.of(bytes("little")), List.of(bytes("little")),
                "end"), blosc()));
        sharded.set("c/0/0", MemorySegment.ofArray(bloscMemcpyedHeader(0xFFFF_FFF0L)));
        assertBomb(sharded, "blosc", String.valueOf(0xFFFF_FFF0L));
    }

    private static Store array(List<CodecMetadata> codecs) {
        Store store = new MemoryStore();
        Zarr.createArray(ctx, store, "", ArrayMetadata.create(SHAPE, DT, SHAPE, FillValue.zero(DT), codecs));
        return store;
    }

    private static void assertBomb(Store store, String codec, String size) {
        assertBomb(store, "c/0/0", codec, size);
    }

    private static void assertBomb(Store store, String key, String codec, String size) {
        ZarrArray a = Zarr.openArray(ctx, store, "");
        long t0 = System.nanoTime();
        RuntimeException e = assertThrows(RuntimeException.class, () -> {
            try (Tensor t = a.read()) {
                // not reached
            }
        });
        long ms = (System.nanoTime() - t0) / 1_000_000;
        CodecException ce = find(e, CodecException.class);
        String m = ce.getMessage();
        assertTrue(m.contains("\"" + key + "\""), "names the key " + key + ": " + m);
        assertTrue(m.contains(codec), "names " + codec + ": " + m);
        assertTrue(m.contains(size), "names " + size + ": " + m);
        // far less than inflating 32 MiB or allocating the declared size would take on a loaded machine
        assertTrue(ms < 5_000, "failed after " + ms + " ms");
    }

    /** A single-segment zstd frame whose header declares {@code declared} bytes, holding one raw block of {@code data}. */
    static byte[] zstdFrame(long declared, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(4 + 1 + 8 + 3 + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0xFD2FB528);
        b.put((byte) 0xE0); // 8-byte Frame_Content_Size, single segment
        b.putLong(declared);
        int header = (data.length << 3) | 1; // raw block, last
        b.put((byte) header).put((byte) (header >>> 8)).put((byte) (header >>> 16));
        b.put(data);
        return b.array();
    }

    /** A memcpyed Blosc1 header declaring {@code nbytes}, with nothing after it. */
    private static byte[] bloscMemcpyedHeader(long nbytes) {
        ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 2).put((byte) 1).put((byte) 0x02).put((byte) 8);
        b.putInt((int) nbytes).putInt(1 << 16).putInt(16);
        return b.array();
    }

    private static CodecMetadata blosc() {
        return CodecMetadata.of("blosc", Map.of("cname", "lz4", "clevel", 5L, "shuffle", "noshuffle", "typesize", 8L,
                "blocksize", 0L));
    }

    private interface Wrap {
        OutputStream wrap(OutputStream out) throws IOException;
    }

    private static final class GzipWrap implements Wrap {
        @Override
        public OutputStream wrap(OutputStream out) throws IOException {
            return new GZIPOutputStream(out);
        }
    }

    private static byte[] deflateZeros(Wrap wrap, int n) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream o = wrap.wrap(bytes)) {
            byte[] zeros = new byte[1 << 16];
            for (int i = 0; i < n; i += zeros.length) {
                o.write(zeros);
            }
        }
        return bytes.toByteArray();
    }

    private static void put(Store store, String key, String text) {
        store.set(key, MemorySegment.ofArray(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static <T extends Throwable> T find(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + e, e);
    }
}
