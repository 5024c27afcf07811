// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.bytestobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.ZstdSpec;
import dev.zarrdirect.opencl.ClKernel;
import dev.zarrdirect.opencl.ClMemory;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.codec.BatchRun;
import dev.zarrdirect.opencl.codec.ChunkTable;
import dev.zarrdirect.opencl.codec.DeviceItems;
import dev.zarrdirect.opencl.codec.KernelProgram;
import dev.zarrdirect.opencl.codec.OpenClDecodeOnlyCodec;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code zstd} codec on an OpenCL device, decode only: the kernels module's
 * {@code zd_zstd_decode_batch} ({@code opencl/zd_zstd.cl}), one work-group per frame and one launch
 * per batch.
 *
 * <h2>Decoding</h2>
 * Per launch: one upload of a table holding the frames' input offsets, input sizes, output offsets
 * and output sizes (four sub-buffers of it are the kernel's four arrays), a scratch buffer of
 * {@value #SCRATCH_PER_FRAME} bytes per frame (the literals of two blocks), and one read-back of the
 * status words. A non-zero status fails its chunk alone with a {@link CorruptChunkException}
 * naming the chunk, the status ({@code CORRUPT_TRUNCATED}) and its meaning as {@code zd_status.h}
 * states it. The kernel bounds-checks every read and write against the sizes passed, so a bad frame
 * never touches another chunk's output.
 *
 * <h2>Encoding</h2>
 * Not on the device: {@link #encode} throws {@link UnsupportedOperationException}. Writes use the
 * CPU {@code zstd} codec (the registry should resolve encoders separately; see the backend's status
 * notes). Configuration ({@code level}, {@code checksum}) is validated as on the CPU, so that a
 * configuration valid there is valid here.
 */
public final class OpenClZstdCodec extends OpenClDecodeOnlyCodec {

    static final String NAME = "zstd";
    /** {@code ZD_ZSTD_SCRATCH_PER_FRAME}: the literals of two blocks, 256 KiB. */
    static final long SCRATCH_PER_FRAME = dev.zarrdirect.kernels.KernelContract.ZD_ZSTD_SCRATCH_PER_FRAME;
    static final KernelProgram PROGRAM = new KernelProgram("opencl/zd_zstd.cl");
    /** Work-items per frame; default 64, lowered to what the kernel allows on the device. */
    public static final String LOCAL_SIZE_PROPERTY = "zarrdirect.opencl.zstdLocalSize";
    /**
     * Build options of the decoder program. Default: none, except {@code -cl-opt-disable} on PoCL,
     * whose LLVM 15 optimizer (PoCL 3.1, Debian 12) crashes the process with a SIGSEGV in
     * {@code llvm::Value::stripPointerCasts} when it compiles {@code zd_zstd_decode_batch}.
     */
    public static final String BUILD_OPTIONS_PROPERTY = "zarrdirect.opencl.zstdBuildOptions";
    private static final Pattern STATUS = Pattern.compile(
            "#define\\s+ZD_STATUS_(\\w+)\\s+(\\d+)u?\\s*(?:/\\*\\s*(.*?)\\s*\\*/)?");

    private static volatile Map<Integer, String> statusNames;

    private OpenClZstdCodec(Device device, OpenClBackend backend) {
        super(NAME, device, backend);
    }

    /** True when the kernels module's zstd decoder source can be read. */
    public static boolean kernelAvailable() {
        return PROGRAM.available();
    }

    /** Reads {@code {"level": int, "checksum": boolean}} (used only by encoders; checked all the same). */
    public static OpenClZstdCodec create(Map<String, Object> configuration, Device device, OpenClBackend backend) {
        ZstdSpec.parse(configuration);
        return new OpenClZstdCodec(device, backend);
    }

    /** zstd's compress bound, as {@code ZSTD_COMPRESSBOUND}. */
    @Override
    public long maxEncodedSize(long decodedSize) {
        return ZstdSpec.maxEncodedSize(decodedSize);
    }


    /** {@code CORRUPT_TRUNCATED (status 1: input ends inside a header, block or table)}. */
    static String describeStatus(OpenClBackend b, int status) {
        Map<Integer, String> names = statusNames;
        if (names == null) {
            names = new TreeMap<>();
            Matcher m = STATUS.matcher(PROGRAM.source(b));
            while (m.find()) {
                names.put(Integer.parseInt(m.group(2)), m.group(1) + " (status " + m.group(2)
                        + (m.group(3) == null ? "" : ": " + m.group(3)) + ")");
            }
            statusNames = names;
        }
        String n = names.get(status);
        return n != null ? n : "unknown status " + Integer.toUnsignedString(status);
    }

    /** The decode kernel on {@code b}, built on first use, and the work-group size to run it with. */
    public static ClKernel kernel(OpenClBackend b) {
        return PROGRAM.kernel(b, buildOptions(b), "zd_zstd_decode_batch");
    }

    /** The build options of the backend's zstd policy (chosen when it started). */
    public static String buildOptions(OpenClBackend b) {
        return b.zstdPolicy().buildOptions();
    }

    static long localSize(OpenClBackend b, ClKernel k) {
        long want = b.zstdPolicy().localSize();
        return Math.max(1, Long.highestOneBit(Math.min(want, k.maxWorkGroupSize(b.deviceId()))));
    }

    @Override
    public void decode(CodecBatch batch) {
        BatchRun.run(backend, NAME, "decode", batch, new BatchRun.Work() {
            @Override
            public boolean check(int i) {
                if (batch.input(i).byteSize() == 0) {
                    throw new CorruptChunkException(NAME, "zstd frame of " + batch.label(i) + " is empty: no frame in"
                            + " 0 bytes, expected " + batch.output(i).byteSize() + " decoded bytes");
                }
                return true;
            }

            @Override
            public void launch(OpenClBackend b, DeviceItems items, DeviceItems.Group g, long[] written) {
                List<Integer> idx = g.items();
                long[] in = new long[idx.size() * 2];
                long[] out = new long[idx.size() * 2];
                for (int k = 0; k < idx.size(); k++) {
                    int i = idx.get(k);
                    in[2 * k] = items.in(i).offset();
                    in[2 * k + 1] = batch.input(i).byteSize();
                    out[2 * k] = items.out(i).offset();
                    out[2 * k + 1] = batch.output(i).byteSize();
                }
                int[] status = run(b, g.inMem(), g.outMem(), in, out);
                for (int k = 0; k < idx.size(); k++) {
                    int i = idx.get(k);
                    if (status[k] == 0) {
                        written[i] = batch.output(i).byteSize();
                    } else {
                        batch.fail(i, new CorruptChunkException(NAME, "zstd frame of " + batch.label(i) + " is corrupt"
                                + " (decoded on " + b.device() + "): " + describeStatus(b, status[k]) + "; expected "
                                + batch.output(i).byteSize() + " decoded bytes from " + batch.input(i).byteSize()
                                + " encoded bytes"));
                    }
                }
            }
        });
    }

    /**
     * One launch over frames in {@code srcMem} ({@code in}: offset, size pairs) into {@code dstMem}
     * ({@code out}: offset, size pairs); returns the status word of each frame.
     */
    public static int[] run(OpenClBackend b, long srcMem, long dstMem, long[] in, long[] out) {
        int n = in.length / 2;
        ClKernel k = kernel(b);
        long local = localSize(b, k);
        try (ChunkTable t = new ChunkTable(b, in, out, "zstd");
             ClMemory.Scratch scratch = b.memory().scratch(SCRATCH_PER_FRAME * n, "zstd scratch (" + n + " frames)")) {
            ClKernel.Arg[] io = t.io(srcMem, dstMem);
            long ev = k.enqueue(b.queue(), new long[]{n * local}, new long[]{local},
                    io[0], io[1], io[2], io[3], io[4], io[5],
                    new ClKernel.Mem(scratch.mem()), new ClKernel.U64(SCRATCH_PER_FRAME), t.status(), new ClKernel.U32(n));
            b.await(ev, "kernel zd_zstd_decode_batch over " + n + " frames");
            return t.readStatus();
        }
    }
}
