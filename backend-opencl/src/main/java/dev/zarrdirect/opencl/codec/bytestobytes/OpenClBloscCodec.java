// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.bytestobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.BloscSpec;
import dev.zarrdirect.kernels.BloscBlockSizes;
import dev.zarrdirect.kernels.BloscKernel;
import dev.zarrdirect.kernels.ZdStatus;
import dev.zarrdirect.opencl.ClKernel;
import dev.zarrdirect.opencl.ClMemory;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.codec.BatchRun;
import dev.zarrdirect.opencl.codec.ChunkTable;
import dev.zarrdirect.opencl.codec.DeviceItems;
import dev.zarrdirect.opencl.codec.KernelProgram;
import dev.zarrdirect.opencl.codec.OpenClDecodeOnlyCodec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code blosc} codec (blosc 1.x frames) on an OpenCL device, decode only, through the kernels
 * module's {@code zd_blosc_plan} and {@code zd_blosc_decode[_lz|_zstd|_zlib]} ({@code opencl/zd_blosc.cl}): the
 * device checks every header and lays out one work unit per blosc block, then a fixed number of
 * work-groups decodes the units, unshuffling in the same kernel; the host reads no header. As on
 * CUDA (see {@code CudaBloscCodec}): the kernel is chosen from the {@code cname} ({@link BloscKernel}:
 * lz4, lz4hc and blosclz the small {@code _lz} kernel, zstd the {@code _zstd} one, zlib the {@code _zlib}
 * one); a configuration naming snappy is declined so that the CPU codec runs; a frame
 * whose compressor differs from the metadata is decoded again by the kernel for every compressor; a chunk whose
 * shuffled blocks exceed the scratch is decoded again with scratch for the largest block of such
 * chunks (the host reads their headers' {@code blocksize} field), and later batches size their
 * first pass by it (up to 8 MiB a group).
 *
 * <p>A batch costs the host what it costs on CUDA: the plan and decode launches back to back with
 * one wait, one read of the status words, and no buffer created once the backend's scratch pool
 * holds the table, plan and scratch blocks ({@link dev.zarrdirect.opencl.ClCounters} counts this).
 */
public final class OpenClBloscCodec extends OpenClDecodeOnlyCodec {

    static final KernelProgram PROGRAM = new KernelProgram("opencl/zd_blosc.cl");
    /**
     * Work-groups of a decode launch; default {@value #GROUPS_PER_UNIT} per compute unit within
     * {@value #SCRATCH_BYTES_PER_LAUNCH} bytes of scratch (the units are shared out by a grid-stride loop).
     */
    public static final String GROUPS_PROPERTY = "zarrdirect.opencl.bloscGroups";
    /**
     * Work-items a group: two NVIDIA warps, as the CUDA codec (H100, NVIDIA's OpenCL, 1 GiB of lz4 +
     * shuffle in blocks of 256 KiB, {@code BloscKernelBench}: 45.5 GB/s with 64 items and 2,048
     * groups against 24.3 with 32 items and 1,024 groups).
     */
    static final long LOCAL = 64;
    /**
     * Work-items a group of {@code zd_blosc_decode_lz} on a GPU when a launch has many blocks: one
     * NVIDIA warp. H100, NVIDIA's OpenCL, {@code BloscKernelBench}: 64 chunks of 16 MiB in 256 KiB
     * blocks 59.56 GB/s with 32, 41.86 with 64.
     */
    static final long LZ_LOCAL_GPU = 32;
    /**
     * ... and when it has few ({@link BloscBlockSizes#fewBlocks}): 4 chunks of 66 MB
     * in 512 KiB blocks (a 4-step read of an ERA5-like store) 22.46 GB/s with 128, 20.92 with 64,
     * 20.11 with 32. CPU devices (PoCL) keep {@link #LOCAL}: these figures say nothing of them. Other
     * GPUs (AMD's wavefronts of 64, Intel's) get the same sizes without a measurement of their own.
     */
    static final long LZ_LOCAL_GPU_FEW_BLOCKS = 128;
    /** Groups per compute unit: 16 on an H100's 132 SMs is 2,112, near the CUDA codec's 2,000. */
    static final int GROUPS_PER_UNIT = 16;
    /** Scratch of one launch at most (a read keeps up to decodeDepth launches in flight), as on CUDA. */
    static final long SCRATCH_BYTES_PER_LAUNCH = 512L << 20;
    private final BloscSpec spec;
    /** The entry of every batch's first pass, from the metadata's {@code cname}. */
    private final BloscKernel firstPass;
    /** The block size first passes are sized for, learned from frames that outgrew it. */
    private final BloscBlockSizes blockSizes = new BloscBlockSizes();

    private OpenClBloscCodec(BloscSpec spec, BloscKernel firstPass, Device device, OpenClBackend backend) {
        super(BloscSpec.NAME, device, backend);
        this.spec = spec;
        this.firstPass = firstPass;
    }

    /** True when the kernels module's blosc decoder source can be read. */
    public static boolean kernelAvailable() {
        return PROGRAM.available();
    }

    /** The device codec, or empty for a compressor the kernels do not decode (snappy). */
    public static Optional<OpenClBloscCodec> create(Map<String, Object> configuration, Device device,
                                                    OpenClBackend backend) {
        BloscSpec spec = BloscSpec.parse(configuration);
        return BloscKernel.firstPass(spec.cname()).map(k -> new OpenClBloscCodec(spec, k, device, backend));
    }

    @Override
    public long maxEncodedSize(long decodedSize) {
        return BloscSpec.maxEncodedSize(decodedSize);
    }

    /**
     * With zlib inside, a block's streams are inflated one after another by one item each: a block
     * is one serial run (the metadata's block size, else what c-blosc 1.21 picks for zlib, 1 MiB at
     * clevel 5 on float32). The other compressors spread a block over the group.
     */
    @Override
    public long serialDecodeBytes(long decodedSize) {
        return firstPass.serialBytes(spec.blocksize(), decodedSize);
    }

    private static ClKernel kernel(OpenClBackend b, String name) {
        // the program holds the zstd decoder too: built with the options the zstd policy found safe
        return PROGRAM.kernel(b, OpenClZstdCodec.buildOptions(b), name);
    }

    /**
     * Work-groups of a decode launch over blocks of {@code perGroup} scratch bytes: the
     * {@value #GROUPS_PROPERTY} property, else {@value #GROUPS_PER_UNIT} per compute unit, and no
     * more than {@value #SCRATCH_BYTES_PER_LAUNCH} bytes of scratch in all.
     */
    static int groups(OpenClBackend b, long perGroup) {
        Integer forced = Integer.getInteger(GROUPS_PROPERTY);
        long want = forced != null ? forced : (long) b.computeUnits() * GROUPS_PER_UNIT;
        return (int) Math.max(1, Math.min(want, SCRATCH_BYTES_PER_LAUNCH / perGroup));
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
                BloscKernel kernel = firstPass;
                long block = blockSizes.firstPass(spec.blocksize());
                int[] status = run(b, items, g, idx, kernel, block);
                List<Integer> sub = new ArrayList<>();
                List<Boolean> outgrew = new ArrayList<>();
                BloscKernel retryKernel = kernel;
                for (int k = 0; k < idx.size(); k++) {
                    boolean codecRetry = !kernel.decodesEveryCompressor()
                            && status[k] == ZdStatus.BLOSC_CODEC_UNSUPPORTED.code();
                    if (codecRetry || status[k] == ZdStatus.BLOSC_BLOCK_TOO_LARGE.code()) {
                        sub.add(idx.get(k));
                        outgrew.add(!codecRetry);
                        if (codecRetry) {
                            retryKernel = BloscKernel.ALL;
                        }
                    } else {
                        report(b, idx.get(k), status[k], written);
                    }
                }
                if (!sub.isEmpty()) {
                    // scratch for the largest block of these frames: a frame retried for its compressor
                    // may have larger blocks than the first pass's scratch too. Only frames that outgrew
                    // it are remembered for the batches after (a store's chunks share their block size),
                    // so that they decode in one pass.
                    long[] blocks = headerBlocksizes(b, items, sub);
                    long largest = 0;
                    long outgrown = 0;
                    for (int k = 0; k < blocks.length; k++) {
                        largest = Math.max(largest, blocks[k]);
                        if (outgrew.get(k)) {
                            outgrown = Math.max(outgrown, blocks[k]);
                        }
                    }
                    blockSizes.outgrown(outgrown);
                    int[] second = run(b, items, g, sub, retryKernel, Math.max(block, largest));
                    for (int k = 0; k < sub.size(); k++) {
                        report(b, sub.get(k), second[k], written);
                    }
                }
            }

            private void report(OpenClBackend b, int i, int st, long[] written) {
                if (st == 0) {
                    written[i] = batch.output(i).byteSize();
                } else if (st == ZdStatus.BLOSC_VERSION_UNSUPPORTED.code()) {
                    // not corrupt: a format this reader does not read, the CPU codec's class of error
                    batch.fail(i, new dev.zarrdirect.api.CodecException(BloscSpec.NAME, "blosc buffer of " + batch.label(i)
                            + " has a format version above 2; " + BloscSpec.BLOSC1_ONLY + " (decoded on " + b.device() + ")"));
                } else if (st == ZdStatus.BLOSC_CODEC_UNSUPPORTED.code()) {
                    batch.fail(i, new CorruptChunkException(BloscSpec.NAME, "blosc frame of " + batch.label(i)
                            + " uses a compressor the " + b.device() + " kernels do not decode (snappy) although"
                            + " the array's metadata says \"" + spec.cname() + "\"; read it with the CPU codec:"
                            + " zarrdirect.codec.blosc=cpu"));
                } else {
                    batch.fail(i, new CorruptChunkException(BloscSpec.NAME, "blosc frame of " + batch.label(i)
                            + " is corrupt (decoded on " + b.device() + "): " + OpenClZstdCodec.describeStatus(b, st)
                            + "; expected " + batch.output(i).byteSize() + " decoded bytes from "
                            + batch.input(i).byteSize() + " encoded bytes"));
                }
            }

            /**
             * The block size of each of items {@code sub}: its {@code blocksize} header field (bytes
             * 8..11), but no more than its decoded size (the plan kernel checked that size against
             * the header; a block never decodes more, whatever a damaged field claims).
             */
            private long[] headerBlocksizes(OpenClBackend b, DeviceItems items, List<Integer> sub) {
                long[] out = new long[sub.size()];
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment field = a.allocate(4, 4);
                    for (int k = 0; k < out.length; k++) {
                        int i = sub.get(k);
                        b.memory().read(items.in(i).mem(), items.in(i).offset() + 8, field, 0, 4);
                        long blocksize = Integer.toUnsignedLong(field.get(ValueLayout.JAVA_INT_UNALIGNED
                                .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 0));
                        out[k] = Math.min(blocksize, batch.output(i).byteSize());
                    }
                }
                return out;
            }

            /** Group size of the lz kernel on a GPU for these chunks in blocks of about {@code block} bytes. */
            private long lzLocalOnGpu(OpenClBackend b, List<Integer> idx, long block) {
                long[] sizes = idx.stream().mapToLong(i -> batch.output(i).byteSize()).toArray();
                return BloscBlockSizes.fewBlocks(sizes, block, b.computeUnits()) ? LZ_LOCAL_GPU_FEW_BLOCKS : LZ_LOCAL_GPU;
            }

            /**
             * The plan launch and the decode launch, back to back on the in-order queue (one wait),
             * then the status words: what a batch costs the host, as on CUDA.
             */
            private int[] run(OpenClBackend b, DeviceItems items, DeviceItems.Group g, List<Integer> idx,
                              BloscKernel kernel, long block) {
                int n = idx.size();
                long perGroup = kernel.scratchPerGroup(block);
                int groups = groups(b, perGroup);
                ClKernel plan = kernel(b, "zd_blosc_plan");
                String name = kernel.entry();
                ClKernel dec = kernel(b, name);
                long planLocal = Math.max(1, Long.highestOneBit(Math.min(256, plan.maxWorkGroupSize(b.deviceId()))));
                long want = kernel != BloscKernel.LZ || !b.isGpu() ? LOCAL : lzLocalOnGpu(b, idx, block);
                long local = Math.max(1, Math.min(want, Long.highestOneBit(dec.maxWorkGroupSize(b.deviceId()))));
                try (ChunkTable t = ChunkTable.of(b, items, idx, batch, "blosc");
                     ClMemory.Scratch planMem = b.memory().scratch(8L * (n + 1), "blosc plan");
                     ClMemory.Scratch scratch = b.memory().scratch(perGroup * groups,
                             "blosc scratch (" + groups + " groups)")) {
                    plan.enqueueUnawaited(b.queue(), new long[]{planLocal}, new long[]{planLocal},
                            new ClKernel.Mem(g.inMem()), t.srcOffsets(), t.srcSizes(), t.dstSizes(),
                            new ClKernel.Mem(planMem.mem()), t.status(), new ClKernel.U32(n));
                    ClKernel.Arg[] io = t.io(g.inMem(), g.outMem());
                    long ev = dec.enqueue(b.queue(), new long[]{groups * local}, new long[]{local}, io[0], io[1], io[2],
                            io[3], io[4], io[5], new ClKernel.Mem(planMem.mem()), new ClKernel.Mem(scratch.mem()),
                            new ClKernel.U64(perGroup), t.status(), new ClKernel.U32(n));
                    b.await(ev, "kernels zd_blosc_plan and " + name + " over " + n + " chunks");
                    return t.readStatus();
                }
            }
        });
    }

    @Override
    public String toString() {
        return "OpenClBloscCodec[" + device + ", " + spec.cname() + "]";
    }
}
