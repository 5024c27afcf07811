// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.arraytobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.ArrayToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.BytesEndian;
import dev.zarrdirect.opencl.ClKernel;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.RegionDescriptors;
import dev.zarrdirect.opencl.codec.BatchRun;
import dev.zarrdirect.opencl.codec.OpenClDeviceCodec;
import dev.zarrdirect.opencl.codec.DeviceItems;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;

/**
 * The {@code bytes} codec on an OpenCL device. Big-endian stored bytes are byte-swapped per
 * {@linkplain dev.zarrdirect.api.DataType#swapUnit() swap unit} by {@code zd_byteswap}; little-endian
 * (and one-byte units) is a copy by {@code zd_copy_regions}, skipped when input and output are the
 * same memory. One launch per batch (per distinct pair of input and output {@code cl_mem}).
 * Input and output may be the same memory; partial overlap is not supported.
 */
public final class OpenClBytesCodec extends OpenClDeviceCodec implements ArrayToBytesCodec {

    static final String NAME = "bytes";

    private final BytesEndian endian;

    private OpenClBytesCodec(BytesEndian endian, Device device, OpenClBackend backend) {
        super(NAME, device, backend);
        this.endian = endian;
    }

    /** Reads {@code {"endian": "little"|"big"}}; {@code backend} may be null (found from the buffers). */
    public static OpenClBytesCodec create(Map<String, Object> configuration, Device device, OpenClBackend backend) {
        return new OpenClBytesCodec(BytesEndian.parse(NAME, configuration), device, backend);
    }

    @Override
    public long encodedSize(ChunkSpec decoded) {
        endian.needsSwap(decoded.dataType());
        return decoded.byteSize();
    }

    @Override
    public long maxEncodedSize(ChunkSpec decoded) {
        return encodedSize(decoded);
    }

    @Override
    public void decode(ChunkSpec decoded, CodecBatch batch) {
        run(decoded, batch, "decode", "stored");
    }

    @Override
    public void encode(ChunkSpec decoded, CodecBatch batch) {
        run(decoded, batch, "encode", "decoded");
    }

    private void run(ChunkSpec spec, CodecBatch batch, String direction, String inputWhat) {
        boolean swap = endian.needsSwap(spec.dataType());
        long size = spec.byteSize();
        int unit = spec.dataType().swapUnit();
        BatchRun.run(backend, NAME, direction, batch, new BatchRun.Work() {
            @Override
            public boolean check(int i) {
                if (batch.input(i).byteSize() != size) {
                    throw new CorruptChunkException(NAME, NAME + " " + direction + " of " + batch.label(i) + ": "
                            + inputWhat + " size is " + batch.input(i).byteSize() + " bytes, expected " + size
                            + " for " + spec);
                }
                if (batch.output(i).byteSize() < size) {
                    throw new IllegalArgumentException("output of " + batch.output(i).byteSize()
                            + " bytes is smaller than the " + size + " bytes of " + spec);
                }
                return true;
            }

            @Override
            public void launch(OpenClBackend b, DeviceItems items, DeviceItems.Group g, long[] written) {
                if (swap) {
                    swapGroup(b, items, g, size, unit);
                } else {
                    RegionDescriptors rows = new RegionDescriptors();
                    for (int i : g.items()) {
                        DeviceItems.Ref in = items.in(i);
                        DeviceItems.Ref out = items.out(i);
                        if (in.mem() != out.mem() || in.offset() != out.offset()) {
                            rows.add(in.offset(), new long[]{1}, out.offset(), new long[]{1}, new long[]{size}, 1, false);
                        }
                    }
                    b.regions().launchCopy(g.inMem(), g.outMem(), rows);
                }
                for (int i : g.items()) {
                    written[i] = size;
                }
            }
        });
    }

    private static void swapGroup(OpenClBackend b, DeviceItems items, DeviceItems.Group g, long size, int unit) {
        int n = g.items().size();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment table = a.allocate(24L * n, 8);
            for (int k = 0; k < n; k++) {
                int i = g.items().get(k);
                table.setAtIndex(ValueLayout.JAVA_LONG, 3L * k, items.in(i).offset());
                table.setAtIndex(ValueLayout.JAVA_LONG, 3L * k + 1, items.out(i).offset());
                table.setAtIndex(ValueLayout.JAVA_LONG, 3L * k + 2, size);
            }
            long t = b.memory().createMemFrom(table, "bytes swap table");
            try {
                long words = size / unit;
                long groups = Math.clamp((words + b.localSize() * 4L - 1) / (b.localSize() * 4L), 1, 1024);
                b.launch(b.backendKernel("zd_byteswap"), new long[]{groups * b.localSize(), n},
                        new long[]{b.localSize(), 1}, new ClKernel.Mem(g.inMem()), new ClKernel.Mem(g.outMem()),
                        new ClKernel.Mem(t), new ClKernel.U32(n), new ClKernel.U32(unit));
            } finally {
                b.memory().releaseMem(t);
            }
        }
    }
}
