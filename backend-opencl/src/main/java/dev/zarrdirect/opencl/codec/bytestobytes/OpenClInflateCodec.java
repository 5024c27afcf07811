// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.bytestobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.GzipSpec;
import dev.zarrdirect.api.codec.spec.ZlibSpec;
import dev.zarrdirect.kernels.InflateSplitPlan;
import dev.zarrdirect.kernels.KernelContract;
import dev.zarrdirect.opencl.ClKernel;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.codec.BatchRun;
import dev.zarrdirect.opencl.codec.ChunkTable;
import dev.zarrdirect.opencl.codec.DeviceItems;
import dev.zarrdirect.opencl.codec.KernelProgram;
import dev.zarrdirect.opencl.codec.OpenClDecodeOnlyCodec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The deflate codecs on an OpenCL device, decode only: {@code gzip} (members, CRC-32 and ISIZE
 * checked) and numcodecs' {@code zlib} (Adler-32 checked), through the kernels module's
 * {@code zd_gzip_decode_batch} and {@code zd_zlib_decode_batch} ({@code opencl/zd_inflate.cl}), one
 * work-group per chunk and one launch per batch. A chunk whose stream does not decode fails alone with
 * a {@link CorruptChunkException} naming the status as {@code zd_status.h} states it. Writes use the
 * CPU codec.
 */
public final class OpenClInflateCodec extends OpenClDecodeOnlyCodec {

    static final KernelProgram PROGRAM = new KernelProgram("opencl/zd_inflate.cl");
    /** Work-items per chunk; default 64, lowered to what the kernel allows on the device. */
    public static final String LOCAL_SIZE_PROPERTY = "zarrdirect.opencl.inflateLocalSize";
    /**
     * The largest range, in encoded bytes, of a stream decoded by many work-groups
     * ({@link OpenClInflateSplit}); which streams split, in what ranges, is the CUDA backend's rule
     * ({@link InflateSplitPlan}). The setting {@code OpenClSettings.INFLATE_SPLIT}: 64 KiB on a GPU,
     * off (0) on other devices by default.
     */
    public static final String SPLIT_BYTES_PROPERTY = "zarrdirect.opencl.inflateSplitBytes";
    private final String kernel;
    private final int format;
    private final long rangeBytes;
    private final java.util.concurrent.atomic.AtomicLong splitStreams = new java.util.concurrent.atomic.AtomicLong();

    private OpenClInflateCodec(String name, String kernel, int format, Device device, OpenClBackend backend) {
        super(name, device, backend);
        this.kernel = kernel;
        this.format = format;
        this.rangeBytes = backend == null ? 0 : backend.openClSettings().inflateSplitBytes(backend.isGpu());
    }

    /** Streams this codec decoded split and verified so far (the others went to the serial kernel). */
    public long splitStreams() {
        return splitStreams.get();
    }

    private boolean splits(long encoded, long decoded) {
        return InflateSplitPlan.splits(encoded, decoded, rangeBytes);
    }

    /** True when the kernels module's deflate decoder source can be read. */
    public static boolean kernelAvailable() {
        return PROGRAM.available();
    }

    /** {@code gzip}, its configuration checked as on every backend. */
    public static OpenClInflateCodec gzip(Map<String, Object> configuration, Device device, OpenClBackend backend) {
        GzipSpec.parse(configuration);
        return new OpenClInflateCodec(GzipSpec.NAME, "zd_gzip_decode_batch",
                (int) KernelContract.ZD_INFS_FORMAT_GZIP, device, backend);
    }

    /** numcodecs' zlib under {@code name} ({@code numcodecs.zlib} or {@code zlib}). */
    public static OpenClInflateCodec zlib(String name, Map<String, Object> configuration, Device device,
                                          OpenClBackend backend) {
        return new OpenClInflateCodec(ZlibSpec.parse(name, configuration).name(), "zd_zlib_decode_batch",
                (int) KernelContract.ZD_INFS_FORMAT_ZLIB, device, backend);
    }

    /** Stored deflate blocks: 5 bytes per 65535, plus the largest wrapper (gzip header and trailer). */
    @Override
    public long maxEncodedSize(long decodedSize) {
        return decodedSize + 5 * (decodedSize / 65535 + 1) + 18;
    }

    /**
     * A deflate stream is read by one item of its group, start to end: the whole chunk is one serial
     * run, unless it is split: then a run is taken as twice a range (a ratio of 2).
     */
    @Override
    public long serialDecodeBytes(long decodedSize) {
        return InflateSplitPlan.serialRunBytes(decodedSize, rangeBytes);
    }

    private static ClKernel kernel(OpenClBackend b, String kernel) {
        return PROGRAM.kernel(b, "", kernel);
    }

    @Override
    public void decode(CodecBatch batch) {
        BatchRun.run(backend, name, "decode", batch, new BatchRun.Work() {
            @Override
            public boolean check(int i) {
                return true;
            }

            @Override
            public void launch(OpenClBackend b, DeviceItems items, DeviceItems.Group g, long[] written) {
                List<Integer> idx = new ArrayList<>();
                List<Integer> large = new ArrayList<>();
                for (int i : g.items()) {
                    (splits(batch.input(i).byteSize(), batch.output(i).byteSize()) ? large : idx).add(i);
                }
                if (!large.isEmpty()) {
                    List<Integer> serial = OpenClInflateSplit.decode(b, items, g, large, batch, format, rangeBytes,
                            written, name);
                    splitStreams.addAndGet(large.size() - serial.size());
                    idx.addAll(serial);
                }
                int n = idx.size();
                if (n == 0) {
                    return;
                }
                ClKernel k = kernel(b, kernel);
                long want = Long.getLong(LOCAL_SIZE_PROPERTY, 64);
                long local = Math.max(1, Long.highestOneBit(Math.min(want, k.maxWorkGroupSize(b.deviceId()))));
                int[] status;
                try (ChunkTable t = ChunkTable.of(b, items, idx, batch, name)) {
                    ClKernel.Arg[] io = t.io(g.inMem(), g.outMem());
                    long ev = k.enqueue(b.queue(), new long[]{n * local}, new long[]{local}, io[0], io[1], io[2], io[3],
                            io[4], io[5], new ClKernel.Mem(0), new ClKernel.U64(0), t.status(), new ClKernel.U32(n));
                    b.await(ev, "kernel " + kernel + " over " + n + " chunks");
                    status = t.readStatus();
                }
                for (int j = 0; j < n; j++) {
                    int i = idx.get(j);
                    if (status[j] == 0) {
                        written[i] = batch.output(i).byteSize();
                    } else {
                        batch.fail(i, new CorruptChunkException(name, name + " stream of " + batch.label(i)
                                + " is corrupt (decoded on " + b.device() + "): " + OpenClZstdCodec.describeStatus(b, status[j])
                                + "; expected " + batch.output(i).byteSize() + " decoded bytes from "
                                + batch.input(i).byteSize() + " encoded bytes"));
                    }
                }
            }
        });
    }

    @Override
    public String toString() {
        return "OpenClInflateCodec[" + name + ", " + device + "]";
    }
}
