// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.GzipSpec;
import dev.zarrdirect.api.codec.spec.ZlibSpec;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.kernels.ZdStatus;
import dev.zarrdirect.kernels.InflateSplitPlan;
import dev.zarrdirect.kernels.KernelContract;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The deflate codecs on a CUDA device: {@code gzip} (RFC 1952 members, CRC-32 and ISIZE checked)
 * and numcodecs' {@code zlib} (RFC 1950, Adler-32 checked), through the kernels module's
 * {@code zd_gzip_decode_batch} and {@code zd_zlib_decode_batch} (inflate/): one thread block per
 * chunk. A deflate stream decodes serially, so the parallelism is the number of chunks in flight
 * (see docs/performance.md for what was measured). A chunk that does not decode fails alone with a {@link CorruptChunkException} naming the status.
 * Encoding runs on the CPU codec.
 */
public final class CudaInflateCodec extends CudaDecodeOnlyCodec {

    /** Threads per chunk's block: the decoding item plus the items that copy its matches. */
    static final String THREADS_PROPERTY = "zarrdirect.cuda.inflateThreads";
    static final int DEFAULT_THREADS = 64;
    static final int MAX_CHUNKS_PER_LAUNCH = 1 << 16;

    private final String kernel;
    private final int format;
    private final int threads;
    /** Largest range of a split stream ({@code zarrdirect.cuda.inflateSplitBytes}); 0: every stream serially. */
    private final long rangeBytes;
    private final java.util.concurrent.atomic.AtomicLong splitStreams = new java.util.concurrent.atomic.AtomicLong();

    private CudaInflateCodec(CudaBackend backend, CudaDevice device, String name, String kernel, int format) {
        super(backend, device, name);
        this.kernel = kernel;
        this.format = format;
        this.threads = Integer.getInteger(THREADS_PROPERTY, DEFAULT_THREADS);
        this.rangeBytes = backend.cudaSettings().inflateSplitBytes();
    }

    /** {@code gzip} with its configuration checked as every backend checks it. */
    static CudaInflateCodec gzip(CudaBackend backend, CudaDevice device, Map<String, Object> configuration) {
        GzipSpec.parse(configuration);
        return new CudaInflateCodec(backend, device, GzipSpec.NAME, "zd_gzip_decode_batch",
                (int) KernelContract.ZD_INFS_FORMAT_GZIP);
    }

    /** numcodecs' zlib under {@code name} ({@code numcodecs.zlib} or the v2 id {@code zlib}). */
    static CudaInflateCodec zlib(CudaBackend backend, CudaDevice device, String name, Map<String, Object> configuration) {
        ZlibSpec spec = ZlibSpec.parse(name, configuration);
        return new CudaInflateCodec(backend, device, spec.name(), "zd_zlib_decode_batch",
                (int) KernelContract.ZD_INFS_FORMAT_ZLIB);
    }

    /** Stored deflate blocks: 5 bytes per 65535, plus the largest wrapper (gzip header and trailer). */
    @Override
    public long maxEncodedSize(long decodedSize) {
        return decodedSize + 5 * (decodedSize / 65535 + 1) + 18;
    }

    /**
     * A deflate stream is read by one item of its group, start to end: the whole chunk is one serial
     * run, unless it is split ({@link InflateSplit}): then a run is about a range's share, taken as
     * twice the range (a ratio of 2).
     */
    @Override
    public long serialDecodeBytes(long decodedSize) {
        return InflateSplitPlan.serialRunBytes(decodedSize, rangeBytes);
    }

    /** Whether a stream decodes split ({@link InflateSplitPlan#splits(long, long, long)}). */
    private boolean splits(long encoded, long decoded) {
        return InflateSplitPlan.splits(encoded, decoded, rangeBytes);
    }

    @Override
    public void decode(CodecBatch batch) {
        for (int from = 0; from < batch.size(); from += MAX_CHUNKS_PER_LAUNCH) {
            decode(batch, from, Math.min(batch.size(), from + MAX_CHUNKS_PER_LAUNCH));
        }
    }

    private void decode(CodecBatch batch, int from, int to) {
        BatchItems items = BatchItems.collect(name, batch, from, to, device, i -> { });
        int n = items.size();
        if (n == 0) {
            return;
        }
        List<Integer> large = new ArrayList<>();
        List<Integer> rest = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            (splits(items.srcSize()[k], items.dstSize()[k]) ? large : rest).add(k);
        }
        if (InflateSplit.TRACE) {
            System.err.println(name + " batch of " + n + ": " + large.size() + " split, " + rest.size() + " serial; first "
                    + items.srcSize()[0] + " encoded, " + items.dstSize()[0] + " decoded, ranges of at most " + rangeBytes);
        }
        // the streams that do not split decode on a stream of their own, alongside the split ones:
        // one after the other, a read of the int16 store (H100) spent 206 ms in the serial kernel
        // after about 190 in the split kernels
        try (DeviceWork w = new DeviceWork(backend, device);
             DeviceWork side = large.isEmpty() || rest.isEmpty() ? null : new DeviceWork(backend, device)) {
            Serial early = side == null || rest.isEmpty() ? null : Serial.launch(side, kernel, threads, items, rest);
            List<Integer> late = new ArrayList<>(early == null ? rest : List.of());
            try {
                if (!large.isEmpty()) {
                    List<Integer> serial = InflateSplit.decode(w, name, batch, items, large, format, rangeBytes);
                    splitStreams.addAndGet(large.size() - serial.size());
                    late.addAll(serial);
                }
                if (!late.isEmpty()) {
                    Serial.launch(w, kernel, threads, items, late).complete(batch, name, device);
                }
            } catch (RuntimeException | Error e) {
                if (early != null) {
                    early.settle(e); // its copy into side's arena must land before the arena closes
                }
                throw e;
            }
            if (early != null) {
                early.complete(batch, name, device);
            }
        }
    }

    /** Streams decoded by the serial kernel, one thread block each: launched, then completed. */
    private record Serial(DeviceWork w, String kernel, BatchItems items, ItemTable t, MemorySegment host) {

        /** Launches the kernel over {@code which} (indices into {@code all}). */
        static Serial launch(DeviceWork w, String kernel, int threads, BatchItems all, List<Integer> which) {
            BatchItems items = all.subset(which);
            int n = items.size();
            ItemTable t = items.table();
            MemorySegment host = w.arena.allocate(t.byteSize(), 8);
            t.writeTo(host);
            long table = w.upload(host);
            // the decoders need no global scratch (ZD_INFLATE_SCRATCH_PER_CHUNK is 0): NULL and 0
            w.launch(kernel, n, threads, 0, new KernelArgs()
                    .u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                    .u64(t.dstBase()).u64(table + t.dstOffsetsAt()).u64(table + t.dstSizesAt())
                    .u64(0).u64(0).u64(table + t.statusAt()).u32(n));
            w.download(table + t.statusAt(), host, t.statusAt(), 4L * n);
            return new Serial(w, kernel, items, t, host);
        }

        /** Waits for the kernel after {@code failure} elsewhere, adding its own failure to it. */
        void settle(Throwable failure) {
            try {
                w.sync(kernel + " over " + items.size() + " chunks");
            } catch (RuntimeException | Error e) {
                failure.addSuppressed(e);
            }
        }

        /** Waits for the kernel and completes or fails each stream. */
        void complete(CodecBatch batch, String name, CudaDevice device) {
            int n = items.size();
            w.sync(kernel + " over " + n + " chunks starting with " + batch.label(items.item()[0]));
            for (int j = 0; j < n; j++) {
                int st = host.get(ValueLayout.JAVA_INT, t.statusAt() + 4L * j);
                int i = items.item()[j];
                long ds = items.dstSize()[j], ss = items.srcSize()[j];
                if (st == ZdStatus.OK) {
                    batch.complete(i, ds);
                } else {
                    batch.fail(i, new CorruptChunkException(name, name + " stream of " + batch.label(i)
                            + " is undecodable on " + device.device() + ": " + ZdStatus.name(st) + " ("
                            + ZdStatus.text(st) + "), expected " + ds + " decoded bytes (" + ss + " encoded bytes)"));
                }
            }
        }
    }

    /** Streams this codec decoded split and verified so far (the others went to the serial kernel). */
    public long splitStreams() {
        return splitStreams.get();
    }

    @Override
    public String toString() {
        return "CudaInflateCodec[" + name + ", " + device.device() + "]";
    }
}
