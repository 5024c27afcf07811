// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.arraytobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;

class BytesCodecProperties {

    @Provide
    Arbitrary<DataType> dataTypes() {
        List<DataType> all = new ArrayList<>(DataType.named());
        all.add(DataType.raw(8));
        all.add(DataType.raw(24));
        all.add(DataType.raw(128));
        return Arbitraries.of(all);
    }

    /** The stored bytes by the definition: each swap unit reversed for big-endian, else unchanged. */
    private static byte[] reference(byte[] data, DataType type, boolean big) {
        byte[] out = data.clone();
        int u = type.swapUnit();
        if (big) {
            for (int e = 0; e < data.length; e += u) {
                for (int k = 0; k < u; k++) {
                    out[e + k] = data[e + u - 1 - k];
                }
            }
        }
        return out;
    }

    @Property(tries = 300)
    void encodeMatchesTheDefinitionAndDecodeRestoresTheArray(@ForAll("dataTypes") DataType type,
                                                             @ForAll boolean big,
                                                             @ForAll @IntRange(min = 0, max = 3000) int elements,
                                                             @ForAll long seed) {
        BytesCodec codec = BytesCodec.create(Map.of("endian", big ? "big" : "little"));
        ChunkSpec spec = new ChunkSpec(type, new long[] {elements});
        byte[] data = random(new Random(seed), elements * type.byteSize());
        try (CpuBackend backend = trackingBackend()) {
            assertEquals(data.length, codec.encodedSize(spec));
            try (HostBuffer in = buffer(backend, data); HostBuffer enc = empty(backend, data.length);
                 HostBuffer dec = empty(backend, data.length)) {
                CodecBatch e = CodecBatch.of(in, enc, "chunk [0]");
                codec.encode(spec, e);
                e.throwIfFailed();
                assertArrayEquals(reference(data, type, big), bytes(enc), type + " big=" + big);
                CodecBatch d = CodecBatch.of(enc, dec, "chunk [0]");
                codec.decode(spec, d);
                d.throwIfFailed();
                assertEquals(data.length, d.written(0));
                assertArrayEquals(data, bytes(dec));
            }
            backend.assertNoLiveBuffers();
        }
    }

    @Property(tries = 100)
    void decodingInPlaceGivesTheSameResult(@ForAll("dataTypes") DataType type, @ForAll boolean big,
                                           @ForAll @IntRange(min = 0, max = 500) int elements, @ForAll long seed) {
        BytesCodec codec = BytesCodec.create(Map.of("endian", big ? "big" : "little"));
        ChunkSpec spec = new ChunkSpec(type, new long[] {elements});
        byte[] stored = random(new Random(seed), elements * type.byteSize());
        try (CpuBackend backend = trackingBackend(); HostBuffer buf = buffer(backend, stored)) {
            CodecBatch b = CodecBatch.of(buf, buf, "chunk [0]");
            codec.decode(spec, b);
            b.throwIfFailed();
            assertArrayEquals(reference(stored, type, big), bytes(buf));
        }
    }

    @Example
    void endianMayBeAbsentOnlyWhereNothingIsSwapped() {
        BytesCodec codec = BytesCodec.create(Map.of());
        assertEquals(7, codec.encodedSize(new ChunkSpec(DataType.UINT8, new long[] {7})));
        assertEquals(7, codec.encodedSize(new ChunkSpec(DataType.BOOL, new long[] {7})));
        assertEquals(21, codec.encodedSize(new ChunkSpec(DataType.raw(24), new long[] {7})));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> codec.encodedSize(new ChunkSpec(DataType.FLOAT32, new long[] {7})));
        assertTrue(e.getMessage().contains("endian") && e.getMessage().contains("float32"), e.getMessage());
    }

    @Example
    void badEndianAndUnknownFieldsAreRejectedAtCreate() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BytesCodec.create(Map.of("endian", "middle")));
        assertTrue(e.getMessage().contains("bytes") && e.getMessage().contains("endian")
                && e.getMessage().contains("middle"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BytesCodec.create(Map.of("endian", "big", "order", "C")));
    }

    @Example
    void anInputOfTheWrongSizeFailsOnlyItsItem() {
        BytesCodec codec = BytesCodec.create(Map.of("endian", "big"));
        ChunkSpec spec = new ChunkSpec(DataType.INT32, new long[] {4});
        try (CpuBackend backend = trackingBackend(); HostBuffer shortIn = empty(backend, 12);
             HostBuffer goodIn = buffer(backend, new byte[] {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4});
             HostBuffer out0 = empty(backend, 16); HostBuffer out1 = empty(backend, 16)) {
            CodecBatch b = batch(List.of(shortIn, goodIn), List.of(out0, out1));
            codec.decode(spec, b);
            CorruptChunkException e = assertInstanceOf(CorruptChunkException.class, b.failure(0));
            assertTrue(e.getMessage().contains("chunk [0]") && e.getMessage().contains("12"), e.getMessage());
            assertEquals(3, out1.segment().get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 8));
        }
    }
}
