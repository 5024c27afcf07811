// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import dev.zarrdirect.cpu.CpuCodecProvider;
import dev.zarrdirect.cpu.codec.arraytobytes.BytesCodec;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
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

/** {@code bytes} followed by each bytes-to-bytes codec, for every data type and both endians. */
class CodecChainProperties {

    @Provide
    Arbitrary<DataType> dataTypes() {
        List<DataType> all = new ArrayList<>(DataType.named());
        all.add(DataType.raw(8));
        all.add(DataType.raw(24));
        return Arbitraries.of(all);
    }

    @Provide
    Arbitrary<String> compressors() {
        return Arbitraries.of("zstd", "gzip", "crc32c");
    }

    @Property(tries = 200)
    void bytesThenACompressorRoundTripsRandomChunks(@ForAll("dataTypes") DataType type, @ForAll boolean big,
                                                    @ForAll("compressors") String compressor,
                                                    @ForAll @IntRange(min = 0, max = 20_000) int elements,
                                                    @ForAll long seed) {
        CpuCodecProvider provider = new CpuCodecProvider();
        BytesCodec bytes = (BytesCodec) provider.create("bytes", Map.of("endian", big ? "big" : "little"),
                Device.CPU).orElseThrow();
        BytesToBytesCodec b2b = (BytesToBytesCodec) provider.create(compressor, Map.of(), Device.CPU).orElseThrow();
        ChunkSpec spec = new ChunkSpec(type, new long[] {elements});
        Random r = new Random(seed);
        byte[] data = r.nextBoolean() ? random(r, (int) spec.byteSize()) : compressible(r, (int) spec.byteSize());
        String what = compressor + " " + type + " big=" + big + " n=" + elements + " seed=" + seed;
        try (CpuBackend backend = trackingBackend()) {
            try (HostBuffer array = buffer(backend, data);
                 HostBuffer stored = empty(backend, bytes.encodedSize(spec));
                 HostBuffer encoded = empty(backend, b2b.maxEncodedSize(spec.byteSize()));
                 HostBuffer back = empty(backend, spec.byteSize())) {
                CodecBatch b1 = CodecBatch.of(array, stored, "chunk [0]");
                bytes.encode(spec, b1);
                b1.throwIfFailed();
                CodecBatch b2 = CodecBatch.of(stored, encoded, "chunk [0]");
                b2b.encode(b2);
                b2.throwIfFailed();
                CodecBatch b3 = CodecBatch.of(encoded.slice(0, b2.written(0)), stored, "chunk [0]");
                b2b.decode(b3);
                b3.throwIfFailed();
                CodecBatch b4 = CodecBatch.of(stored, back, "chunk [0]");
                bytes.decode(spec, b4);
                b4.throwIfFailed();
                assertArrayEquals(data, bytes(back), what);
            }
            backend.assertNoLiveBuffers();
        }
    }
}
