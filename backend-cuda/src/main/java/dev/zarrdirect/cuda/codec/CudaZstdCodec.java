// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.ZstdSpec;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.kernels.ZdStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;

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
 * <h2>Large frames</h2>
 * Frames of more than {@value #DEFAULT_MP_MIN} decoded bytes, that is of 256 KiB and more ({@link #MP_MIN_PROPERTY};
 * the device's {@link ZstdKernelPolicy}, chosen when the backend starts, says), take the
 * multi-pass path of zd_zstd_mp.h in the same call ({@link MultiPassLaunch}: block tables,
 * entropy decoding per block, linking, block-parallel execution, checksums), with the single-pass
 * decoder as fallback in the last launch for anything unusual or invalid, so statuses are the
 * same. Scratch: {@link #mpScratchBytes} per frame (about 5x its decoded size); launches are split
 * so that one launch's scratch stays under a third of the device's free memory (at most
 * {@value #MP_SCRATCH_CAP} bytes), since fewer frames per launch means fewer blocks in flight.
 *
 * <h2>Encoding</h2>
 * Not on the device: {@link #encode} throws {@link UnsupportedOperationException}. The registry must
 * choose the CPU implementation for writes.
 */
public final class CudaZstdCodec extends CudaDecodeOnlyCodec {

    static final String NAME = "zstd";
    /** Device scratch per frame: the literals of two blocks ({@code ZD_ZSTD_SCRATCH_PER_FRAME}, 256 KiB). */
    public static final long SCRATCH_PER_FRAME = dev.zarrdirect.kernels.KernelContract.ZD_ZSTD_SCRATCH_PER_FRAME;
    /** Threads per frame; default 32 (one warp: 1024 frames fit on an H200 at once). */
    public static final String BLOCK_PROPERTY = "zarrdirect.cuda.zstdThreads";
    /** Frames per launch at most; a larger batch runs as several launches (bounds the scratch to 1 GiB). */
    static final int MAX_FRAMES_PER_LAUNCH = 4096;
    /**
     * Frames of more than this many DECODED bytes use the multi-pass, block-parallel path
     * (zd_zstd_mp.h, {@link MultiPassLaunch}); a negative value turns it off. The work of a frame
     * spreads over its 128 KiB blocks, so what matters is how many blocks it has.
     */
    public static final String MP_MIN_PROPERTY = "zarrdirect.cuda.zstdMultiPassMin";
    // measured on the H200 (ZstdKernelBench, 1 GiB batches of generated float frames, GB/s at
    // levels 1/3/9): 256 KiB frames 92.8/78.6/66.2 multi-pass against 63.0/48.0/40.3 single-pass,
    // 512 KiB 91.0/52.8/50.5 against 70.0/41.6/36.7, 1 MiB 94.1/41.9/36.2 against 65.6/36.1/30.8;
    // 64 KiB frames (one block) stay single-pass: 55.1/55.5/50.6
    public static final long DEFAULT_MP_MIN = (256L << 10) - 1;
    /**
     * Threads per group of the multi-pass execute launch (one sequence per thread and batch);
     * defaults in {@link MultiPassLaunch#DEFAULT_WINDOW_THREADS}.
     */
    public static final String MP_THREADS_PROPERTY = "zarrdirect.cuda.zstdMultiPassThreads";
    /** Device scratch of one multi-pass launch at most (frames beyond it go to the next launch). */
    static final long MP_SCRATCH_CAP = 32L << 30;
    /** sizeof(zd_mp_block). */
    static final long MP_BLOCK_BYTES = 152;
    /**
     * Whether the execute pass builds each 128 KiB block in shared memory
     * ({@code zd_zstd_mp_exec_win}, where the device has {@link MultiPassLaunch#WIN_SHARED_BYTES}
     * per group) or in place in the output ({@code zd_zstd_mp_exec}).
     */
    public static final String MP_WINDOW_PROPERTY = "zarrdirect.cuda.zstdMultiPassWindow";
    /** Whether short matches of the execute pass mark their bytes at once ({@link MultiPassLaunch#sameRound()}). */
    public static final String MP_SAME_ROUND_PROPERTY = "zarrdirect.cuda.zstdMultiPassSameRound";
    /** Whether the execute pass may use pointer jumping ({@link MultiPassLaunch#jump()}). */
    public static final String MP_JUMP_PROPERTY = "zarrdirect.cuda.zstdMultiPassJump";
    /** Whether the entropy pass decodes two blocks a group ({@link MultiPassLaunch#entropyPairs()}). */
    public static final String MP_ENTROPY_PAIRS_PROPERTY = "zarrdirect.cuda.zstdMultiPassEntropyPairs";
    /** Whether a multi-pass batch's frames are ordered by encoded size ({@link MultiPassLaunch#frameOrder}). */
    public static final String MP_SORT_PROPERTY = "zarrdirect.cuda.zstdMultiPassSortFrames";

    private final ZstdKernelPolicy policy;
    private final int level;
    private final boolean checksum;

    CudaZstdCodec(CudaBackend backend, CudaDevice device, ZstdKernelPolicy policy, int level, boolean checksum) {
        super(backend, device, NAME);
        this.policy = java.util.Objects.requireNonNull(policy, "policy");
        this.level = level;
        this.checksum = checksum;
    }

    /** Reads {@code {"level": int, "checksum": boolean}} as the CPU codec does; decoding needs neither. */
    static CudaZstdCodec create(CudaBackend backend, CudaDevice device, Map<String, Object> configuration) {
        ZstdSpec spec = ZstdSpec.parse(configuration);
        return new CudaZstdCodec(backend, device, backend.zstdPolicy(device), spec.level(), spec.checksum());
    }

    public int level() {
        return level;
    }

    public boolean checksum() {
        return checksum;
    }

    /** How the kernels run on this codec's device (chosen when the backend started). */
    public ZstdKernelPolicy policy() {
        return policy;
    }

    /** zstd's {@code ZSTD_COMPRESSBOUND}. */
    @Override
    public long maxEncodedSize(long decodedSize) {
        return ZstdSpec.maxEncodedSize(decodedSize);
    }

    @Override
    public void decode(CodecBatch batch) {
        for (int from = 0; from < batch.size(); from += MAX_FRAMES_PER_LAUNCH) {
            decode(batch, from, Math.min(batch.size(), from + MAX_FRAMES_PER_LAUNCH));
        }
    }

    private void decode(CodecBatch batch, int from, int to) {
        BatchItems items = BatchItems.collect(NAME, batch, from, to, device, i -> {
            if (batch.input(i).byteSize() == 0) {
                throw new CorruptChunkException(NAME, "zstd frame of " + batch.label(i) + " is empty: no frame in 0"
                        + " bytes, expected " + batch.output(i).byteSize() + " decoded bytes");
            }
        });
        int n = items.size();
        // copies: the multi-pass split below reorders them in place
        int[] item = items.item().clone();
        long[] sa = items.srcAddr().clone(), ss = items.srcSize().clone(), da = items.dstAddr().clone(),
                ds = items.dstSize().clone();
        if (n == 0) {
            return;
        }
        // ---- multi-pass split (zd_zstd_mp.h): frames above MP_MIN_PROPERTY go through the
        // block-parallel path, the others through zd_zstd_decode_batch below.
        int nl = 0;
        for (int k = 0; k < n; k++) {
            if (policy.multiPass(ds[k])) nl++;
        }
        if (nl > 0) {
            int[] li = new int[nl];
            long[] lsa = new long[nl], lss = new long[nl], lda = new long[nl], lds = new long[nl];
            int ns = 0, m = 0;
            for (int k = 0; k < n; k++) {
                if (policy.multiPass(ds[k])) {
                    li[m] = item[k]; lsa[m] = sa[k]; lss[m] = ss[k]; lda[m] = da[k]; lds[m] = ds[k]; m++;
                } else {
                    item[ns] = item[k]; sa[ns] = sa[k]; ss[ns] = ss[k]; da[ns] = da[k]; ds[ns] = ds[k]; ns++;
                }
            }
            device.makeCurrent();
            long scratchCap = Math.min(MP_SCRATCH_CAP, Math.max(1L << 30, device.driver().memGetInfo()[0] / 3));
            MultiPassLaunch mpl = policy.multiPass();
            // a sub-batch with one frame large enough defers all of its frames, each with its refs:
            // counted for every frame when any could
            long largest = java.util.Arrays.stream(lds).max().orElse(0);
            boolean refsCount = mpl.defers(largest);
            int lo = 0;
            while (lo < nl) { // sub-batches of at most scratchCap bytes of scratch (at least one frame)
                int hi = lo;
                long bytes = 0;
                while (hi < nl) {
                    long more = mpScratchBytes(lds[hi], lss[hi]) + (refsCount ? MultiPassLaunch.refBytes(lds[hi]) : 0);
                    if (hi > lo && bytes + more > scratchCap) break;
                    bytes += more;
                    hi++;
                }
                decodeMultiPass(batch, mpl, java.util.Arrays.copyOfRange(li, lo, hi), java.util.Arrays.copyOfRange(lsa, lo, hi),
                        java.util.Arrays.copyOfRange(lss, lo, hi), java.util.Arrays.copyOfRange(lda, lo, hi),
                        java.util.Arrays.copyOfRange(lds, lo, hi));
                lo = hi;
            }
            n = ns;
            if (n == 0) {
                return;
            }
        }
        // ---- end of the multi-pass split
        ItemTable t = ItemTable.of(java.util.Arrays.copyOf(sa, n), java.util.Arrays.copyOf(ss, n),
                java.util.Arrays.copyOf(da, n), java.util.Arrays.copyOf(ds, n));
        int threads = policy.singlePassThreads();
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
            report(batch, host, t.statusAt(), item, ss, ds, n);
        }
    }

    private void report(CodecBatch batch, MemorySegment host, long statusAt, int[] item, long[] ss, long[] ds, int n) {
        for (int k = 0; k < n; k++) {
            int st = host.get(ValueLayout.JAVA_INT, statusAt + 4L * k);
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

    // ------------------------------------------------------------------ multi-pass path (zd_zstd_mp.h)

    /**
     * Device scratch of one frame on the multi-pass path, for {@code d} decoded bytes: the same
     * formula as {@code zd_zstd_mp_scratch_bytes} in zd_zstd_mp.h for d decoded and s encoded bytes
     * (block table of min(d/2048, s/3)+16 entries of 152 bytes, a literal region of max(d, 256 KiB),
     * 12 bytes per possible sequence, d/3+1024), rounded up to 256 bytes. About 5 d.
     */
    public static long mpScratchBytes(long d, long s) {
        long slots = mpSlots(d, s);
        long lit = (Math.max(d, SCRATCH_PER_FRAME) + 7) & ~7L;
        long seqs = d / 3 + 1024;
        return (64 + slots * MP_BLOCK_BYTES + lit + 12 * seqs + 255) & ~255L;
    }

    /** Pass 2's block slots of one frame: {@code zd_zstd_mp_slots}. */
    public static long mpSlots(long d, long s) {
        return Math.min(d / 2048, s / 3) + 16;
    }

    /** The launches of {@link MultiPassLaunch} for frames whose scratch fits together. */
    private void decodeMultiPass(CodecBatch batch, MultiPassLaunch mpl, int[] item0, long[] sa0, long[] ss0, long[] da0,
                                 long[] ds0) {
        int n = item0.length;
        int[] order = MultiPassLaunch.frameOrder(ss0, policy.sortFrames());
        int[] item = new int[n];
        long[] sa = new long[n], ss = new long[n], da = new long[n], ds = new long[n];
        for (int k = 0; k < n; k++) {
            int o = order[k];
            item[k] = item0[o]; sa[k] = sa0[o]; ss[k] = ss0[o]; da[k] = da0[o]; ds[k] = ds0[o];
        }
        ItemTable t = ItemTable.of(sa, ss, da, ds);
        long[] sco = new long[n];
        long[] sb = new long[n + 1];
        long[] refOff = new long[n];
        long scr = 0, slots = 0, maxSlots = 0, minBlocks = 0, decoded = 0, maxDecoded = 0;
        for (int k = 0; k < n; k++) {
            refOff[k] = decoded;
            decoded += ds[k];
            maxDecoded = Math.max(maxDecoded, ds[k]);
            sco[k] = scr;
            minBlocks += MultiPassLaunch.minBlocks(ds[k]);
            scr += mpScratchBytes(ds[k], ss[k]);
            sb[k] = slots;
            long ks = mpSlots(ds[k], ss[k]);
            slots += ks;
            maxSlots = Math.max(maxSlots, ks);
        }
        sb[n] = slots;
        try (DeviceWork w = new DeviceWork(backend, device)) {
            MemorySegment host = w.arena.allocate(t.byteSize(), 8);
            t.writeTo(host);
            long table = w.upload(host);
            MemorySegment extra = w.arena.allocate(8L * (3L * n + 1), 8);
            MemorySegment.copy(sco, 0, extra, ValueLayout.JAVA_LONG, 0, n);
            MemorySegment.copy(sb, 0, extra, ValueLayout.JAVA_LONG, 8L * n, n + 1);
            MemorySegment.copy(refOff, 0, extra, ValueLayout.JAVA_LONG, 8L * (2L * n + 1), n);
            long ex = w.upload(extra);
            long scratch = w.scratch(scr);
            long refs = mpl.defers(maxDecoded) ? w.scratch(MultiPassLaunch.refBytes(decoded)) : 0;
            long srcOff = table + t.srcOffsetsAt(), srcSz = table + t.srcSizesAt();
            long dstOff = table + t.dstOffsetsAt(), dstSz = table + t.dstSizesAt();
            mpl.enqueue(w::launch, t.srcBase(), srcOff, srcSz, t.dstBase(), dstOff, dstSz, scratch, ex, ex + 8L * n,
                    table + t.statusAt(), n, slots, maxSlots, minBlocks, refs, ex + 8L * (2L * n + 1));
            w.download(table + t.statusAt(), host, t.statusAt(), 4L * n);
            w.sync("zd_zstd_mp_* over " + n + " frames starting with " + batch.label(item[0]));
            report(batch, host, t.statusAt(), item, ss, ds, n);
        }
    }

    @Override
    public String toString() {
        return "CudaZstdCodec[" + device.device() + "]";
    }
}
