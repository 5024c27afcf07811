// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.arraytoarray;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.DeltaSpec;
import dev.zarrdirect.kernels.KernelContract;
import dev.zarrdirect.kernels.ZdStatus;
import dev.zarrdirect.opencl.ClKernel;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.codec.BatchRun;
import dev.zarrdirect.opencl.codec.ChunkTable;
import dev.zarrdirect.opencl.codec.DeviceItems;
import dev.zarrdirect.opencl.codec.KernelProgram;
import dev.zarrdirect.opencl.codec.OpenClDeviceCodec;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * numcodecs' {@code delta} filter ({@code numcodecs.delta}) on an OpenCL device, both directions,
 * through the kernels module's {@code zd_delta_batch} ({@code opencl/zd_delta.cl}): one work-group per
 * chunk and one launch per batch, with the bytes of the CPU {@code DeltaCodec}. Integer chunks decode
 * as a parallel prefix sum; float chunks as the CPU's sequential sum, one item of the group adding
 * while the group loads and stores (a float sum in another order has other bits; see
 * {@code delta/zd_delta.h}). Input and output may be the same memory, not partly overlapping.
 *
 * <p>Declined (the CPU codec runs) where the device cannot give the CPU's bits: float64 without
 * {@code cl_khr_fp64}, float32 where the device flushes subnormals.
 */
public final class OpenClDeltaCodec extends OpenClDeviceCodec implements ArrayToArrayCodec {

    static final KernelProgram PROGRAM = new KernelProgram("opencl/zd_delta.cl");
    /** The kernel's {@code ZD_DELTA_MAX_ITEMS}: the largest work-group its local memory serves. */
    static final long MAX_LOCAL = KernelContract.ZD_DELTA_MAX_ITEMS;
    /** The kernel's {@code ZD_DELTA_FLOAT} flag in its {@code type} argument. */
    static final int FLOAT_FLAG = KernelContract.ZD_DELTA_FLOAT;
    private final DeltaSpec spec;

    private OpenClDeltaCodec(DeltaSpec spec, Device device, OpenClBackend backend) {
        super(DeltaSpec.NAME, device, backend);
        this.spec = spec;
    }

    /** True when the kernels module's delta source can be read. */
    public static boolean kernelAvailable() {
        return PROGRAM.available();
    }

    /**
     * The device codec for {@code configuration} (checked as on every backend), or empty where the
     * device of {@code backend} (null: not known yet) cannot give the CPU's float bits.
     */
    public static Optional<OpenClDeltaCodec> create(Map<String, Object> configuration, Device device,
                                                    OpenClBackend backend) {
        DeltaSpec spec = DeltaSpec.parse(configuration);
        if (backend != null && spec.dtype().equals(DataType.FLOAT64) && !backend.hasFp64()) {
            return Optional.empty();
        }
        if (backend != null && spec.dtype().equals(DataType.FLOAT32) && !backend.floatDenormals()) {
            return Optional.empty();
        }
        return Optional.of(new OpenClDeltaCodec(spec, device, backend));
    }

    @Override
    public ChunkSpec encodedSpec(ChunkSpec decoded) {
        return spec.encodedSpec(decoded);
    }

    @Override
    public void encode(ChunkSpec decoded, CodecBatch batch) {
        run(decoded, batch, true);
    }

    @Override
    public void decode(ChunkSpec decoded, CodecBatch batch) {
        run(decoded, batch, false);
    }

    private static ClKernel kernel(OpenClBackend b) {
        // no fast-math: the float sums must round as IEEE says
        return PROGRAM.kernel(b, "", "zd_delta_batch");
    }

    private void run(ChunkSpec decoded, CodecBatch batch, boolean encode) {
        ChunkSpec encoded = encodedSpec(decoded);
        long size = decoded.byteSize();
        int type = spec.dtype().byteSize() | (spec.floating() ? FLOAT_FLAG : 0);
        String direction = encode ? "encode" : "decode";
        BatchRun.run(backend, DeltaSpec.NAME, direction, batch, new BatchRun.Work() {
            @Override
            public boolean check(int i) {
                if (batch.input(i).byteSize() != size) {
                    throw new CorruptChunkException(DeltaSpec.NAME, DeltaSpec.NAME + " " + direction + " of "
                            + batch.label(i) + ": input is " + batch.input(i).byteSize() + " bytes, expected " + size
                            + " for " + (encode ? decoded : encoded));
                }
                if (batch.output(i).byteSize() < size) {
                    throw new IllegalArgumentException("output of " + batch.output(i).byteSize() + " bytes is smaller"
                            + " than the " + size + " bytes of " + (encode ? encoded : decoded));
                }
                return true;
            }

            @Override
            public void launch(OpenClBackend b, DeviceItems items, DeviceItems.Group g, long[] written) {
                List<Integer> idx = g.items().stream().filter(i -> apart(b, items, g, i)).toList();
                int n = idx.size();
                if (n == 0) {
                    return;
                }
                ClKernel k = kernel(b);
                long local = Math.max(1, Long.highestOneBit(Math.min(MAX_LOCAL, k.maxWorkGroupSize(b.deviceId()))));
                int[] status;
                try (ChunkTable t = ChunkTable.of(b, items, idx, batch, DeltaSpec.NAME)) {
                    ClKernel.Arg[] io = t.io(g.inMem(), g.outMem());
                    long ev = k.enqueue(b.queue(), new long[]{n * local}, new long[]{local}, io[0], io[1], io[2], io[3],
                            io[4], io[5], t.status(), new ClKernel.U32(type), new ClKernel.U32(encode ? 1 : 0),
                            new ClKernel.U32(n));
                    b.await(ev, "kernel zd_delta_batch (" + direction + ") over " + n + " chunks");
                    status = t.readStatus();
                }
                for (int k2 = 0; k2 < n; k2++) {
                    int i = idx.get(k2);
                    if (status[k2] == ZdStatus.OK.code()) {
                        written[i] = size;
                    } else {
                        // a codec of the ServiceLoader's provider could not check the device when it was made
                        String why = spec.dtype().equals(DataType.FLOAT64) && !b.hasFp64()
                                ? "the device has no cl_khr_fp64 for float64 sums; use the CPU codec"
                                + " (zarrdirect.codec." + DeltaSpec.NAME + "=cpu)" : describe(status[k2]);
                        batch.fail(i, new CodecException(DeltaSpec.NAME, DeltaSpec.NAME + " " + direction + " of "
                                + batch.label(i) + " on " + b.device() + " failed: " + why + " (" + spec.dtype() + ", "
                                + size + " bytes)"));
                    }
                }
            }

            /** False (and the item failed) where input and output share bytes but do not start together. */
            private boolean apart(OpenClBackend b, DeviceItems items, DeviceItems.Group g, int i) {
                long in = items.in(i).offset();
                long out = items.out(i).offset();
                if (g.inMem() != g.outMem() || in == out || in + size <= out || out + size <= in) {
                    return true;
                }
                batch.fail(i, new CodecException(DeltaSpec.NAME, DeltaSpec.NAME + " " + direction + " of "
                        + batch.label(i) + " needs its output at the same place as its input or apart from it, but"
                        + " they partly overlap (bytes " + in + " and " + out + " of one buffer on " + b.device() + ")"));
                return false;
            }
        });
    }

    private static String describe(int status) {
        try {
            ZdStatus s = ZdStatus.of(status);
            return s + " (status " + status + ": " + s.description() + ")";
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    @Override
    public String toString() {
        return "OpenClDeltaCodec[" + device + ", " + spec.dtype() + "]";
    }
}
