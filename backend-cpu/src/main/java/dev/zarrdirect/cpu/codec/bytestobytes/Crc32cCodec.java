// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.api.ChecksumMismatchException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.CodecConfigReader;
import dev.zarrdirect.cpu.codec.CodecItems;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * The {@code crc32c} codec on the CPU: the data followed by its CRC32C (Castagnoli) as 4 bytes,
 * little-endian. The checksum runs over a {@link java.nio.ByteBuffer} view of the native segment,
 * which the JDK computes with the CPU's CRC32 instructions. Decoding verifies and fails the item
 * with a {@link ChecksumMismatchException} that holds both values.
 */
public final class Crc32cCodec implements BytesToBytesCodec {

    static final String NAME = "crc32c";
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED
            .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private Crc32cCodec() {
    }

    /** Reads {@code {}}; no field is allowed. */
    public static Crc32cCodec create(Map<String, Object> configuration) {
        CodecConfigReader.of(NAME, configuration, Set.of());
        return new Crc32cCodec();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Device device() {
        return Device.CPU;
    }

    @Override
    public String provider() {
        return "cpu";
    }

    @Override
    public long encodedSize(long decodedSize) {
        return decodedSize + 4;
    }

    @Override
    public long maxEncodedSize(long decodedSize) {
        return decodedSize + 4;
    }

    @Override
    public long decodedSize(long encodedSize) {
        return encodedSize >= 4 ? encodedSize - 4 : -1;
    }

    /** The CRC32C of {@code length} bytes of {@code segment} from {@code offset}. */
    public static int checksum(MemorySegment segment, long offset, long length) {
        CRC32C crc = new CRC32C();
        for (long done = 0; done < length; ) {
            var window = CodecItems.window(segment, offset + done, length - done);
            done += window.remaining();
            crc.update(window);
        }
        return (int) crc.getValue();
    }

    @Override
    public void encode(CodecBatch batch) {
        CodecItems.forEach(NAME, "encode", batch, (i, in, out) -> {
            long n = in.byteSize();
            if (out.byteSize() < n + 4) {
                throw new IllegalArgumentException("output of " + out.byteSize() + " bytes cannot hold " + n
                        + " bytes and their 4-byte checksum");
            }
            int crc = checksum(in, 0, n); // before the copy, in case output and input overlap
            MemorySegment.copy(in, 0, out, 0, n);
            out.set(LE_INT, n, crc);
            batch.complete(i, n + 4);
        });
    }

    @Override
    public void decode(CodecBatch batch) {
        CodecItems.forEach(NAME, "decode", batch, (i, in, out) -> {
            long size = in.byteSize();
            if (size < 4) {
                throw new CorruptChunkException(NAME, NAME + " of " + batch.label(i) + " is truncated: " + size
                        + " bytes, shorter than the 4-byte checksum");
            }
            long n = size - 4;
            if (out.byteSize() != n) {
                throw new CorruptChunkException(NAME, NAME + " of " + batch.label(i) + " holds " + n
                        + " data bytes, expected " + out.byteSize());
            }
            long stored = Integer.toUnsignedLong(in.get(LE_INT, n));
            long computed = Integer.toUnsignedLong(checksum(in, 0, n));
            if (stored != computed) {
                throw new ChecksumMismatchException(NAME, batch.label(i), stored, computed);
            }
            MemorySegment.copy(in, 0, out, 0, n);
            batch.complete(i, n);
        });
    }
}
