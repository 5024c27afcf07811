// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec;

import com.github.luben.zstd.Zstd;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.ArrayToBytesCodec;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuCodecProvider;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Buffers a caller wraps around its own segments: heap arrays and read-only memory. */
class ForeignSegmentTest {

    private final CpuCodecProvider provider = new CpuCodecProvider();

    @Test
    void littleEndianBytesCopiesBetweenTwoHeapArraysThatBothStartAtOffsetZero() {
        ArrayToBytesCodec bytes = (ArrayToBytesCodec) provider.create("bytes", Map.of("endian", "little"), Device.CPU)
                .orElseThrow();
        byte[] stored = {1, 2, 3, 4};
        byte[] decoded = new byte[4];
        CodecBatch batch = CodecBatch.of(HostBuffer.wrap(MemorySegment.ofArray(stored)),
                HostBuffer.wrap(MemorySegment.ofArray(decoded)), "chunk [0]");

        bytes.decode(new ChunkSpec(DataType.INT16, new long[]{2}), batch);

        batch.throwIfFailed();
        assertArrayEquals(stored, decoded);
    }

    @Test
    void zstdDecodeFailsTheItemInsteadOfWritingIntoReadOnlyMemory() {
        BytesToBytesCodec zstd = (BytesToBytesCodec) provider.create("zstd", Map.of(), Device.CPU).orElseThrow();
        byte[] data = new byte[1000];
        Arrays.fill(data, (byte) 7);
        byte[] frame = Zstd.compress(data);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(frame.length);
            in.copyFrom(MemorySegment.ofArray(frame));
            MemorySegment out = arena.allocate(data.length);
            CodecBatch batch = CodecBatch.of(HostBuffer.wrap(in), HostBuffer.wrap(out.asReadOnly()), "chunk [3]");

            zstd.decode(batch);

            assertNotNull(batch.failure(0));
            assertTrue(batch.failure(0).getMessage().contains("chunk [3]"), batch.failure(0).getMessage());
            assertTrue(batch.failure(0).getMessage().contains("read-only"), batch.failure(0).getMessage());
            assertEquals(0, out.get(ValueLayout.JAVA_BYTE, 0));
        }
    }
}
