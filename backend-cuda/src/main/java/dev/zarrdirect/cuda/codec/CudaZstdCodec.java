package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.kernels.ZdStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Set;

/**
 * The {@code zstd} codec on a CUDA device: the kernels module's {@code zd_zstd_decode_batch}, one
 * thread block per frame (a chunk, or an inner chunk), one launch per batch.
 *
 * <h2>Decoding</h2>
 * Per batch: the item table ({@link ItemTable}: input and output offsets and sizes) goes to the
 * device in one copy, the kernel runs once, and the status words come back in one copy. A chunk
 * whose frames do not decode to exactly its output size fails alone with a
 * {@link CorruptChunkException} naming the chunk's label and the status
 * ({@code ZD_STATUS_CORRUPT_TRUNCATED: the input ends inside a header, block or table}); the other
 * items of the batch complete. The kernel bounds-checks every read and write, so a hostile frame
 * never touches another chunk's memory. Scratch: {@value #SCRATCH_PER_FRAME} bytes of device memory
 * per frame ({@code ZD_ZSTD_SCRATCH_PER_FRAME}), taken from the pool for the call.
 *
 * <h2>Encoding</h2>
 * Not on the device: {@link #encode} throws {@link UnsupportedOperationException}. The registry must
 * choose the CPU implementation for writes.
 */
public final class CudaZstdCodec implements BytesToBytesCodec {

    static final String NAME = "zstd";
    /** Device scratch per frame: the literals of two blocks ({@code ZD_ZSTD_SCRATCH_PER_FRAME}, 256 KiB). */
    public static final long SCRATCH_PER_FRAME = 256L << 10;
    /** Threads per frame; default 32 (one warp: 1024 frames fit on an H200 at once). */
    public static final String BLOCK_PROPERTY = "zarrdirect.cuda.zstdThreads";
    /** Frames per launch at most; a larger batch runs as several launches (bounds the scratch to 1 GiB). */
    static final int MAX_FRAMES_PER_LAUNCH = 4096;

    private final CudaBackend backend;
    private final CudaDevice device;
    private final int level;
    private final boolean checksum;

    CudaZstdCodec(CudaBackend backend, CudaDevice device, int level, boolean checksum) {
        this.backend = backend;
        this.device = device;
        this.level = level;
        this.checksum = checksum;
    }

    /** Reads {@code {"level": int, "checksum": boolean}} as the CPU codec does; decoding needs neither. */
    static CudaZstdCodec create(CudaBackend backend, CudaDevice device, Map<String, Object> configuration) {
        Config c = Config.of(NAME, configuration, Set.of("level", "checksum"));
        int level = (int) c.integer("level", -131072, 22, 0);
        return new CudaZstdCodec(backend, device, level, c.bool("checksum", false));
    }

    public int level() {
        return level;
    }

    public boolean checksum() {
        return checksum;
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
    public long encodedSize(long decodedSize) {
        return -1;
    }

    /** zstd's {@code ZSTD_COMPRESSBOUND}. */
    @Override
    public long maxEncodedSize(long decodedSize) {
        long margin = decodedSize < (128L << 10) ? ((128L << 10) - decodedSize) >> 11 : 0;
        return decodedSize + (decodedSize >> 8) + margin;
    }

    @Override
    public void encode(CodecBatch batch) {
        throw new UnsupportedOperationException("zstd encoding does not run on " + device + "; writes must use the CPU"
                + " zstd codec (the registry picks it for encoding, or set zarrdirect.codec.zstd=cpu)");
    }

    @Override
    public void decode(CodecBatch batch) {
        for (int from = 0; from < batch.size(); from += MAX_FRAMES_PER_LAUNCH) {
            decode(batch, from, Math.min(batch.size(), from + MAX_FRAMES_PER_LAUNCH));
        }
    }

    private void decode(CodecBatch batch, int from, int to) {
        int cap = to - from;
        int[] item = new int[cap];
        long[] sa = new long[cap];
        long[] ss = new long[cap];
        long[] da = new long[cap];
        long[] ds = new long[cap];
        int n = 0;
        for (int i = from; i < to; i++) {
            try {
                long in = DeviceWork.address(NAME, batch, i, batch.input(i), "input", device);
                long out = DeviceWork.address(NAME, batch, i, batch.output(i), "output", device);
                long inSize = batch.input(i).byteSize();
                if (inSize == 0) {
                    throw new CorruptChunkException(NAME, "zstd frame of " + batch.label(i) + " is empty: no frame in 0"
                            + " bytes, expected " + batch.output(i).byteSize() + " decoded bytes");
                }
                item[n] = i;
                sa[n] = in;
                ss[n] = inSize;
                da[n] = out;
                ds[n] = batch.output(i).byteSize();
                n++;
            } catch (ZarrDirectException e) {
                batch.fail(i, e);
            }
        }
        if (n == 0) {
            return;
        }
        ItemTable t = ItemTable.of(java.util.Arrays.copyOf(sa, n), java.util.Arrays.copyOf(ss, n),
                java.util.Arrays.copyOf(da, n), java.util.Arrays.copyOf(ds, n));
        int threads = Integer.getInteger(BLOCK_PROPERTY, 32);
        try (DeviceWork w = new DeviceWork(backend, device)) {
            MemorySegment host = w.arena.allocate(t.byteSize(), 8);
            t.writeTo(host);
            long table = w.upload(host);
            long scratch = w.scratch(SCRATCH_PER_FRAME * n);
            KernelArgs args = new KernelArgs()
                    .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                    .u64(t.dstBase()).u64(table + t.dstOffsetsAt()).u64(table + t.dstSizesAt())
                    .u64(scratch).u64(SCRATCH_PER_FRAME).u64(table + t.statusAt()).u32(n);
            w.launch("zd_zstd_decode_batch", n, threads, 0, args);
            w.download(table + t.statusAt(), host, t.statusAt(), 4L * n);
            w.sync("zd_zstd_decode_batch over " + n + " frames starting with " + batch.label(item[0]));
            for (int k = 0; k < n; k++) {
                int st = host.get(ValueLayout.JAVA_INT, t.statusAt() + 4L * k);
                int i = item[k];
                if (st == ZdStatus.OK) {
                    batch.complete(i, ds[k]);
                } else {
                    batch.fail(i, new CorruptChunkException(NAME, "zstd frame of " + batch.label(i) + " is undecodable on "
                            + device.device() + ": " + ZdStatus.name(st) + " (" + ZdStatus.text(st) + "), expected " + ds[k]
                            + " decoded bytes (" + ss[k] + " encoded bytes)"));
                }
            }
        }
    }

    @Override
    public String toString() {
        return "CudaZstdCodec[" + device.device() + "]";
    }
}
