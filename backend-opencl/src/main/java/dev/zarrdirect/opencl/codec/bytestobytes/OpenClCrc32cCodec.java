// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.bytestobytes;

import dev.zarrdirect.api.ChecksumMismatchException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.CodecConfigReader;
import dev.zarrdirect.opencl.ClKernel;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.codec.BatchRun;
import dev.zarrdirect.opencl.codec.OpenClDeviceCodec;
import dev.zarrdirect.opencl.codec.DeviceItems;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Set;

import static org.lwjgl.opencl.CL10.CL_MEM_READ_WRITE;

/**
 * The {@code crc32c} codec on an OpenCL device: the data followed by its CRC32C as 4 bytes,
 * little-endian. One {@code zd_crc32c} launch per batch, one work-group per chunk: each work-item
 * checksums (and copies) one slice of the chunk, work-item 0 combines the slices' CRCs with
 * zlib's GF(2) combination. The kernel writes, per chunk, the stored and the computed value into a
 * small results buffer that is read back once per batch; decoding fails a chunk whose values differ
 * with a {@link ChecksumMismatchException} holding both. A failed chunk's output holds its data
 * bytes all the same. Input and output may be the same memory (nothing is copied then).
 */
public final class OpenClCrc32cCodec extends OpenClDeviceCodec implements BytesToBytesCodec {

    static final String NAME = "crc32c";
    private static final long COPY = 1;
    private static final long ENCODE = 2;


    private OpenClCrc32cCodec(Device device, OpenClBackend backend) {
        super(NAME, device, backend);
    }

    /** Reads {@code {}}; no field is allowed. {@code backend} may be null (found from the buffers). */
    public static OpenClCrc32cCodec create(Map<String, Object> configuration, Device device, OpenClBackend backend) {
        CodecConfigReader.of(NAME, configuration, Set.of());
        return new OpenClCrc32cCodec(device, backend);
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

    @Override
    public void decode(CodecBatch batch) {
        BatchRun.run(backend, NAME, "decode", batch, new BatchRun.Work() {
            @Override
            public boolean check(int i) {
                long size = batch.input(i).byteSize();
                if (size < 4) {
                    throw new CorruptChunkException(NAME, NAME + " of " + batch.label(i) + " is truncated: " + size
                            + " bytes, shorter than the 4-byte checksum");
                }
                if (batch.output(i).byteSize() != size - 4) {
                    throw new CorruptChunkException(NAME, NAME + " of " + batch.label(i) + " holds " + (size - 4)
                            + " data bytes, expected " + batch.output(i).byteSize());
                }
                return true;
            }

            @Override
            public void launch(OpenClBackend b, DeviceItems items, DeviceItems.Group g, long[] written) {
                long[] results = run(b, items, g, batch, false);
                for (int k = 0; k < g.items().size(); k++) {
                    int i = g.items().get(k);
                    long stored = results[2 * k];
                    long computed = results[2 * k + 1];
                    if (stored != computed) {
                        batch.fail(i, new ChecksumMismatchException(NAME, batch.label(i), stored, computed));
                    } else {
                        written[i] = batch.input(i).byteSize() - 4;
                    }
                }
            }
        });
    }

    @Override
    public void encode(CodecBatch batch) {
        BatchRun.run(backend, NAME, "encode", batch, new BatchRun.Work() {
            @Override
            public boolean check(int i) {
                long n = batch.input(i).byteSize();
                if (batch.output(i).byteSize() < n + 4) {
                    throw new IllegalArgumentException("output of " + batch.output(i).byteSize() + " bytes cannot hold "
                            + n + " bytes and their 4-byte checksum");
                }
                return true;
            }

            @Override
            public void launch(OpenClBackend b, DeviceItems items, DeviceItems.Group g, long[] written) {
                run(b, items, g, batch, true);
                for (int i : g.items()) {
                    written[i] = batch.input(i).byteSize() + 4;
                }
            }
        });
    }

    /** One launch for the group; returns stored and computed CRC per item of the group, as unsigned values. */
    private static long[] run(OpenClBackend b, DeviceItems items, DeviceItems.Group g, CodecBatch batch, boolean encode) {
        int n = g.items().size();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment table = a.allocate(32L * n, 8);
            for (int k = 0; k < n; k++) {
                int i = g.items().get(k);
                DeviceItems.Ref in = items.in(i);
                DeviceItems.Ref out = items.out(i);
                long len = encode ? batch.input(i).byteSize() : batch.input(i).byteSize() - 4;
                boolean same = in.mem() == out.mem() && in.offset() == out.offset();
                table.setAtIndex(ValueLayout.JAVA_LONG, 4L * k, in.offset());
                table.setAtIndex(ValueLayout.JAVA_LONG, 4L * k + 1, len);
                table.setAtIndex(ValueLayout.JAVA_LONG, 4L * k + 2, out.offset());
                table.setAtIndex(ValueLayout.JAVA_LONG, 4L * k + 3, (same ? 0 : COPY) | (encode ? ENCODE : 0));
            }
            long t = b.memory().createMemFrom(table, "crc32c table");
            long r = 0;
            try {
                r = b.memory().createMem(8L * n, CL_MEM_READ_WRITE, "crc32c results");
                b.launch(b.backendKernel("zd_crc32c"), new long[]{(long) n * b.localSize()}, new long[]{b.localSize()},
                        new ClKernel.Mem(g.inMem()), new ClKernel.Mem(g.outMem()), new ClKernel.Mem(t),
                        new ClKernel.Mem(r), new ClKernel.U32(n));
                MemorySegment res = a.allocate(8L * n, 8);
                b.memory().read(r, 0, res, 0, 8L * n);
                long[] out = new long[2 * n];
                for (int k = 0; k < 2 * n; k++) {
                    out[k] = Integer.toUnsignedLong(res.getAtIndex(ValueLayout.JAVA_INT, k));
                }
                return out;
            } finally {
                b.memory().releaseMem(t);
                b.memory().releaseMem(r);
            }
        }
    }
}
