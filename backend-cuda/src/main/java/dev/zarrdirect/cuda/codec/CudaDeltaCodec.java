// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.DeltaSpec;
import dev.zarrdirect.kernels.KernelContract;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.kernels.ZdStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;

/**
 * numcodecs' {@code delta} filter ({@code numcodecs.delta}) on a CUDA device, both directions, through
 * the kernels module's {@code zd_delta_batch} ({@code delta/zd_delta.h}): one thread block per chunk,
 * one launch per batch, with the bytes of the CPU {@code DeltaCodec}. Integer chunks decode as a
 * parallel prefix sum (a block scan per tile, carried across the tiles); float chunks as the CPU's
 * sequential sum, one thread adding while the block loads and stores, because a float sum in any
 * other order has other bits. Input and output may be the same memory, not partly overlapping.
 */
public final class CudaDeltaCodec implements ArrayToArrayCodec {

    static final String NAME = DeltaSpec.NAME;
    /** The kernel's {@code ZD_DELTA_MAX_ITEMS}: threads per chunk's block. */
    static final int THREADS = KernelContract.ZD_DELTA_MAX_ITEMS;
    /** The kernel's {@code ZD_DELTA_FLOAT} flag in its {@code type} argument. */
    static final int FLOAT_FLAG = KernelContract.ZD_DELTA_FLOAT;
    static final int MAX_CHUNKS_PER_LAUNCH = 1 << 16;

    private final CudaBackend backend;
    private final CudaDevice device;
    private final DeltaSpec spec;

    private CudaDeltaCodec(CudaBackend backend, CudaDevice device, DeltaSpec spec) {
        this.backend = backend;
        this.device = device;
        this.spec = spec;
    }

    static CudaDeltaCodec create(CudaBackend backend, CudaDevice device, Map<String, Object> configuration) {
        return new CudaDeltaCodec(backend, device, DeltaSpec.parse(configuration));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Device device() {
        return device.device();
    }

    @Override
    public String provider() {
        return "cuda";
    }

    @Override
    public ChunkSpec encodedSpec(ChunkSpec decoded) {
        return spec.encodedSpec(decoded);
    }

    @Override
    public void encode(ChunkSpec decoded, CodecBatch batch) {
        for (int from = 0; from < batch.size(); from += MAX_CHUNKS_PER_LAUNCH) {
            run(decoded, batch, from, Math.min(batch.size(), from + MAX_CHUNKS_PER_LAUNCH), true);
        }
    }

    @Override
    public void decode(ChunkSpec decoded, CodecBatch batch) {
        for (int from = 0; from < batch.size(); from += MAX_CHUNKS_PER_LAUNCH) {
            run(decoded, batch, from, Math.min(batch.size(), from + MAX_CHUNKS_PER_LAUNCH), false);
        }
    }

    private void run(ChunkSpec decoded, CodecBatch batch, int from, int to, boolean encode) {
        ChunkSpec encoded = encodedSpec(decoded);
        long size = decoded.byteSize();
        String direction = encode ? "encode" : "decode";
        BatchItems items = BatchItems.collect(NAME, batch, from, to, device, i -> {
            if (batch.input(i).byteSize() != size) {
                throw new CorruptChunkException(NAME, NAME + " " + direction + " of " + batch.label(i) + ": input is "
                        + batch.input(i).byteSize() + " bytes, expected " + size + " for " + (encode ? decoded : encoded));
            }
            if (batch.output(i).byteSize() < size) {
                throw new CodecException(NAME, "output of " + batch.output(i).byteSize() + " bytes for "
                        + batch.label(i) + " is smaller than the " + size + " bytes of " + (encode ? encoded : decoded));
            }
            long in = batch.input(i).address();
            long out = batch.output(i).address();
            if (in != out && in < out + size && out < in + size) {
                throw new CodecException(NAME, NAME + " " + direction + " of " + batch.label(i) + " needs its output"
                        + " at the same place as its input or apart from it, but they partly overlap");
            }
        });
        int n = items.size();
        if (n == 0) {
            return;
        }
        int[] item = items.item();
        if (size == 0) {
            for (int i : item) {
                batch.complete(i, 0);
            }
            return;
        }
        // the kernel reads src_sizes[c] as the chunk's bytes: exactly the decoded size
        long[] sizes = new long[n];
        java.util.Arrays.fill(sizes, size);
        ItemTable t = ItemTable.of(items.srcAddr(), sizes, items.dstAddr(), sizes);
        int type = spec.dtype().byteSize() | (spec.floating() ? FLOAT_FLAG : 0);
        try (DeviceWork w = new DeviceWork(backend, device)) {
            MemorySegment host = w.arena.allocate(t.byteSize(), 8);
            t.writeTo(host);
            long table = w.upload(host);
            w.launch("zd_delta_batch", n, THREADS, 0, new KernelArgs()
                    .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                    .u64(t.dstBase()).u64(table + t.dstOffsetsAt()).u64(table + t.dstSizesAt())
                    .u64(table + t.statusAt()).u32(type).u32(encode ? 1 : 0).u32(n));
            w.download(table + t.statusAt(), host, t.statusAt(), 4L * n);
            w.sync("zd_delta_batch (" + direction + ") over " + n + " chunks starting with " + batch.label(item[0]));
            for (int k = 0; k < n; k++) {
                int st = host.get(ValueLayout.JAVA_INT, t.statusAt() + 4L * k);
                if (st == ZdStatus.OK) {
                    batch.complete(item[k], size);
                } else {
                    batch.fail(item[k], new CodecException(NAME, NAME + " " + direction + " of " + batch.label(item[k])
                            + " on " + device.device() + " failed: " + ZdStatus.name(st) + " (" + ZdStatus.text(st)
                            + "), " + spec.dtype() + ", " + size + " bytes"));
                }
            }
        }
    }

    @Override
    public String toString() {
        return "CudaDeltaCodec[" + device.device() + ", " + spec.dtype() + "]";
    }
}
