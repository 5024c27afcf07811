// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.bytestobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.BloscSpec;
import dev.zarrdirect.kernels.ZdStatus;
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
import java.util.Optional;

import static org.lwjgl.opencl.CL10.CL_MEM_READ_WRITE;

/**
 * The {@code blosc} codec (blosc 1.x frames) on an OpenCL device, decode only, through the kernels
 * module's {@code zd_blosc_plan} and {@code zd_blosc_decode[_lz]} ({@code opencl/zd_blosc.cl}): the
 * device checks every header and lays out one work unit per blosc block, then a fixed number of
 * work-groups decodes the units, unshuffling in the same kernel; the host reads no header. As on
 * CUDA (see {@code CudaBloscCodec}): lz4, lz4hc and blosclz run the small {@code _lz} kernel, zstd the
 * full one; a configuration naming zlib or snappy is declined so that the CPU codec runs; a frame
 * whose compressor differs from the metadata is decoded again by the full kernel; a chunk whose
 * shuffled blocks exceed the scratch is decoded again with 8 MiB of scratch per group.
 */
public final class OpenClBloscCodec extends OpenClDecodeOnlyCodec {

    static final KernelProgram PROGRAM = new KernelProgram("opencl/zd_blosc.cl");
    /** Work-groups of a decode launch; default 1024 (the units are shared out by a grid-stride loop). */
    public static final String GROUPS_PROPERTY = "zarrdirect.opencl.bloscGroups";
    static final long LOCAL = 32;
    static final long DEFAULT_SCRATCH_BLOCK = 256L << 10;
    static final long LARGE_SCRATCH_BLOCK = 8L << 20;
    static final long ZSTD_SCRATCH = OpenClZstdCodec.SCRATCH_PER_FRAME;
    private final BloscSpec spec;

    private OpenClBloscCodec(BloscSpec spec, Device device, OpenClBackend backend) {
        super(BloscSpec.NAME, device, backend);
        this.spec = spec;
    }

    /** True when the kernels module's blosc decoder source can be read. */
    public static boolean kernelAvailable() {
        return PROGRAM.available();
    }

    /** The device codec, or empty for a compressor the kernels do not decode (zlib, snappy). */
    public static Optional<OpenClBloscCodec> create(Map<String, Object> configuration, Device device,
                                                    OpenClBackend backend) {
        BloscSpec spec = BloscSpec.parse(configuration);
        if (!lz(spec.cname()) && !spec.cname().equals("zstd")) {
            return Optional.empty();
        }
        return Optional.of(new OpenClBloscCodec(spec, device, backend));
    }

    private static boolean lz(String cname) {
        return cname.equals("lz4") || cname.equals("lz4hc") || cname.equals("blosclz");
    }

    @Override
    public long maxEncodedSize(long decodedSize) {
        return BloscSpec.maxEncodedSize(decodedSize);
    }

    private static ClKernel kernel(OpenClBackend b, String name) {
        // the program holds the zstd decoder too: built with the options the zstd policy found safe
        return PROGRAM.kernel(b, OpenClZstdCodec.buildOptions(b), name);
    }

    @Override
    public void decode(CodecBatch batch) {
        BatchRun.run(backend, BloscSpec.NAME, "decode", batch, new BatchRun.Work() {
            @Override
            public boolean check(int i) {
                return true;
            }

            @Override
            public void launch(OpenClBackend b, DeviceItems items, DeviceItems.Group g, long[] written) {
                List<Integer> idx = g.items();
                boolean full = !lz(spec.cname());
                long block = Math.max(DEFAULT_SCRATCH_BLOCK, spec.blocksize());
                int groups = Integer.getInteger(GROUPS_PROPERTY, 1024);
                int[] status = run(b, items, g, idx, full, block, groups);
                List<Integer> again = new ArrayList<>();
                boolean againFull = full;
                for (int k = 0; k < idx.size(); k++) {
                    boolean codecRetry = !full && status[k] == ZdStatus.BLOSC_CODEC_UNSUPPORTED.code();
                    if (codecRetry || status[k] == ZdStatus.BLOSC_BLOCK_TOO_LARGE.code()) {
                        again.add(k);
                        againFull |= codecRetry;
                    } else {
                        report(b, idx.get(k), status[k], written);
                    }
                }
                if (!again.isEmpty()) {
                    List<Integer> sub = again.stream().map(idx::get).toList();
                    int[] second = run(b, items, g, sub, againFull, LARGE_SCRATCH_BLOCK, 16);
                    for (int k = 0; k < sub.size(); k++) {
                        report(b, sub.get(k), second[k], written);
                    }
                }
            }

            private void report(OpenClBackend b, int i, int st, long[] written) {
                if (st == 0) {
                    written[i] = batch.output(i).byteSize();
                } else if (st == ZdStatus.BLOSC_CODEC_UNSUPPORTED.code()) {
                    batch.fail(i, new CorruptChunkException(BloscSpec.NAME, "blosc frame of " + batch.label(i)
                            + " uses a compressor the " + b.device() + " kernels do not decode (zlib or snappy) although"
                            + " the array's metadata says \"" + spec.cname() + "\"; read it with the CPU codec:"
                            + " zarrdirect.codec.blosc=cpu"));
                } else {
                    batch.fail(i, new CorruptChunkException(BloscSpec.NAME, "blosc frame of " + batch.label(i)
                            + " is corrupt (decoded on " + b.device() + "): " + OpenClZstdCodec.describeStatus(b, st)
                            + "; expected " + batch.output(i).byteSize() + " decoded bytes from "
                            + batch.input(i).byteSize() + " encoded bytes"));
                }
            }

            private int[] run(OpenClBackend b, DeviceItems items, DeviceItems.Group g, List<Integer> idx, boolean full,
                              long block, int groups) {
                int n = idx.size();
                long perGroup = ((block + 15) & ~15L) + (full ? ZSTD_SCRATCH : 0);
                ClKernel plan = kernel(b, "zd_blosc_plan");
                String name = full ? "zd_blosc_decode" : "zd_blosc_decode_lz";
                ClKernel dec = kernel(b, name);
                long planLocal = Math.max(1, Long.highestOneBit(Math.min(256, plan.maxWorkGroupSize(b.deviceId()))));
                long local = Math.max(1, Math.min(LOCAL, Long.highestOneBit(dec.maxWorkGroupSize(b.deviceId()))));
                long planMem = 0;
                long scratch = 0;
                try (ChunkTable t = ChunkTable.of(b, items, idx, batch, "blosc")) {
                    planMem = b.memory().createMem(8L * (n + 1), CL_MEM_READ_WRITE, "blosc plan");
                    scratch = b.memory().createMem(perGroup * groups, CL_MEM_READ_WRITE,
                            "blosc scratch (" + groups + " groups)");
                    long ev = plan.enqueue(b.queue(), new long[]{planLocal}, new long[]{planLocal},
                            new ClKernel.Mem(g.inMem()), t.srcOffsets(), t.srcSizes(), t.dstSizes(),
                            new ClKernel.Mem(planMem), t.status(), new ClKernel.U32(n));
                    b.await(ev, "kernel zd_blosc_plan over " + n + " chunks");
                    ClKernel.Arg[] io = t.io(g.inMem(), g.outMem());
                    ev = dec.enqueue(b.queue(), new long[]{groups * local}, new long[]{local}, io[0], io[1], io[2],
                            io[3], io[4], io[5], new ClKernel.Mem(planMem), new ClKernel.Mem(scratch),
                            new ClKernel.U64(perGroup), t.status(), new ClKernel.U32(n));
                    b.await(ev, "kernel " + name + " over " + n + " chunks");
                    return t.readStatus();
                } finally {
                    b.memory().releaseMem(planMem);
                    b.memory().releaseMem(scratch);
                }
            }
        });
    }

    @Override
    public String toString() {
        return "OpenClBloscCodec[" + device + ", " + spec.cname() + "]";
    }
}
