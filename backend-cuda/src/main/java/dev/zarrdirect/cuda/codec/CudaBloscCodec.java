// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.BloscSpec;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.kernels.ZdStatus;
import dev.zarrdirect.kernels.BloscBlockSizes;
import dev.zarrdirect.kernels.BloscKernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code blosc} codec (blosc 1.x frames) on a CUDA device: the kernels module's
 * {@code zd_blosc_plan} and {@code zd_blosc_decode[_lz|_zstd|_zlib]} (blosc/zd_blosc.h).
 *
 * <h2>Decoding</h2>
 * Per batch, with no header read by the host (the chunks may have arrived by DMA): one launch of a
 * single block checks every chunk's header and lays out the work units (one per blosc block of
 * every chunk), then a fixed grid decodes the units, so the blocks of one chunk decode in parallel.
 * Byte shuffle and bitshuffle are undone in the same kernel. Internal compressors lz4, lz4hc and
 * blosclz use {@code zd_blosc_decode_lz_overlap} (the first warp parses each batch of sequences while the
 * others copy the batch before; {@code zd_blosc_decode_lz}, 8.5 KiB of shared memory, with
 * {@code zarrdirect.cuda.bloscOverlap=false}); zstd
 * uses {@code zd_blosc_decode_zstd}, which carries the zstd decoder's state, and zlib
 * {@code zd_blosc_decode_zlib}, which carries the deflate decoder's. The
 * kernel is chosen from the array's {@code cname} ({@link BloscKernel}); frames that use another
 * compressor than the metadata says are decoded again by {@code zd_blosc_decode}.
 *
 * <h2>Memory</h2>
 * A shuffled block is decoded into per-group scratch before it is unshuffled: up to
 * {@link #groups()} groups of {@code max(256 KiB, blocksize in the metadata, largest block met)}
 * each, at most 512 MiB a launch ({@code zarrdirect.cuda.bloscScratchBytes}). A chunk whose blocks are larger fails the first pass with
 * {@code BLOSC_BLOCK_TOO_LARGE}; its header is then read back and it is decoded again with scratch
 * sized for it, and the codec remembers that block size (up to 8 MiB) for the first pass of later
 * batches. c-blosc 1.21 writes blocks of 512 KiB for lz4 level 5, shuffle, typesize 4 (zarr-python
 * 2's default on float32): without the memory every chunk of such a store was decoded twice.
 *
 * <h2>Not on the device</h2>
 * Frames compressed with snappy inside blosc: {@link #create} declines a configuration naming it
 * (the CPU codec then runs), and a frame of that kind met anyway fails with a message saying how to
 * choose the CPU codec. Encoding: {@link #encode} throws
 * {@link UnsupportedOperationException}; writes use the CPU codec.
 */
public final class CudaBloscCodec extends CudaDecodeOnlyCodec {

    static final String NAME = BloscSpec.NAME;
    /**
     * Threads per group of {@code zd_blosc_decode_lz} when the launch has many blocks: one warp. With the
     * kernel copying in pieces (H100, zd_blosc_check.cu, lz4 + shuffle), 1 GiB in 128 KiB blocks: 52.8 GB/s
     * at 32 groups a SM, 30.8 with two warps, 20.0 with four. Two warps were the better choice when bytes
     * were copied one by one (40.4 GB/s, against 38.2 with one).
     */
    static final int LZ_THREADS = 32;
    /**
     * Threads per group of {@code zd_blosc_decode_lz} when the launch has few blocks
     * ({@link BloscBlockSizes#fewBlocks}): four warps. 4 chunks of 66 MB in 512 KiB blocks (508 blocks, a
     * 4-step read of an ERA5-like store): 20.0 GB/s, against 17.9 with one warp; with every SM holding a
     * few groups at most, more threads a group copy faster while the parse is the same.
     */
    static final int LZ_THREADS_FEW_BLOCKS = 128;
    /**
     * The entry {@link BloscKernel#LZ}'s launches use with {@code zarrdirect.cuda.bloscOverlap}: the first
     * warp parses each batch while the others copy the batch before ({@code blosc/zd_blosc.h},
     * {@code zd_lz_decode_overlap_group}); twice the LZ entry's shared memory.
     */
    static final String OVERLAP_ENTRY = "zd_blosc_decode_lz_overlap";
    /**
     * Threads per group of {@link #OVERLAP_ENTRY} when the launch has many blocks: two warps, one parsing
     * and one copying. The kernel alone on an H200, 24 TensorStore-written chunks of 66 MB (512 KiB
     * blocks): 10.43 ms at 64 threads and 16 groups a SM, 12.00 at 128; the LZ entry's best, 32 threads
     * at 32 a SM, 12.38. With few blocks the overlap takes {@link #LZ_THREADS_FEW_BLOCKS} (4 of those
     * chunks: 3.96 ms, 4.88 at 64 threads).
     */
    static final int OVERLAP_THREADS = 64;
    /**
     * Threads per group of {@code zd_blosc_decode[_zstd]} (zstd or zlib inside): two warps, the zstd
     * decoder's group, as measured before pieces; the zlib decoder's entropy decoding then has the
     * first warp to itself while the second writes.
     */
    static final int THREADS = 64;
    /** Decode groups per SM. */
    static final int GROUPS_PER_SM = 32;
    /** Chunks per launch at most (the plan kernel scans them in one block). */
    static final int MAX_CHUNKS_PER_LAUNCH = 1 << 16;

    private final BloscSpec spec;
    /** The entry of every batch's first pass, from the metadata's {@code cname}. */
    private final BloscKernel firstPass;
    /** The block size first passes are sized for, learned from frames that outgrew it (a store's chunks share it). */
    private final BloscBlockSizes blockSizes = new BloscBlockSizes();

    /** Scratch one launch takes at most ({@link dev.zarrdirect.cuda.CudaSettings#BLOSC_SCRATCH}). */
    private final long scratchBytes;
    /** {@link dev.zarrdirect.cuda.CudaSettings#BLOSC_OVERLAP}: lz4/blosclz launches use {@link #OVERLAP_ENTRY}. */
    private final boolean overlap;

    private CudaBloscCodec(CudaBackend backend, CudaDevice device, BloscSpec spec, BloscKernel firstPass) {
        super(backend, device, NAME);
        this.spec = spec;
        this.firstPass = firstPass;
        this.scratchBytes = backend.cudaSettings().bloscScratchBytes(device.totalMemory());
        this.overlap = backend.cudaSettings().bloscOverlap();
    }

    /**
     * The device codec for {@code configuration}, or empty when its compressor is one the kernels do
     * not decode (snappy), so that the registry picks the CPU codec.
     *
     * @throws IllegalArgumentException for an invalid configuration
     */
    static Optional<CudaBloscCodec> create(CudaBackend backend, CudaDevice device, Map<String, Object> configuration) {
        BloscSpec spec = BloscSpec.parse(configuration);
        return BloscKernel.firstPass(spec.cname()).map(k -> new CudaBloscCodec(backend, device, spec, k));
    }

    /**
     * The block size (bytes) learned from frames whose blocks outgrew the first pass's scratch, which
     * later first passes are sized for; 0 while none has been met.
     */
    public long learnedBlockSize() {
        return blockSizes.learned();
    }

    /** The configuration this codec was made from. */
    public BloscSpec spec() {
        return spec;
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

    int groups() {
        return device.multiprocessors() * GROUPS_PER_SM;
    }

    @Override
    public void decode(CodecBatch batch) {
        for (int from = 0; from < batch.size(); from += MAX_CHUNKS_PER_LAUNCH) {
            decode(batch, from, Math.min(batch.size(), from + MAX_CHUNKS_PER_LAUNCH));
        }
    }

    private void decode(CodecBatch batch, int from, int to) {
        BatchItems items = BatchItems.collect(NAME, batch, from, to, device, i -> { });
        if (items.size() == 0) {
            return;
        }
        BloscKernel kernel = firstPass;
        long block = blockSizes.firstPass(spec.blocksize());
        // scratch of one launch at most zarrdirect.cuda.bloscScratchBytes, 512 MiB by default (a read keeps up
        // to decodeDepth launches in flight): 2,000 groups of 256 KiB, 16 a SM on an H100
        int groups = (int) Math.max(1, Math.min(groups(), scratchBytes / kernel.scratchPerGroup(block)));
        Pass first = run(batch, items.item(), items.srcAddr(), items.srcSize(), items.dstAddr(), items.dstSize(), kernel,
                block, groups);
        // Second chances: another compressor than the metadata named (the every-codec kernel), or blocks
        // larger than the scratch (scratch sized from the headers, fewer groups if it must).
        first.retry(this, batch);
    }

    /** The outcome of one pass: the statuses, and what may be retried. */
    private record Pass(int[] item, long[] sa, long[] ss, long[] da, long[] ds, int[] status, long[] blocksize,
                        BloscKernel kernel) {
        void retry(CudaBloscCodec codec, CodecBatch batch) {
            int n = item.length;
            int[] again = new int[n];
            int m = 0;
            long largest = 0;
            long outgrown = 0;
            BloscKernel retryKernel = kernel;
            for (int k = 0; k < n; k++) {
                int st = status[k];
                boolean codecRetry = !kernel.decodesEveryCompressor() && st == ZdStatus.BLOSC_CODEC_UNSUPPORTED;
                boolean sizeRetry = st == ZdStatus.BLOSC_BLOCK_TOO_LARGE;
                if (codecRetry || sizeRetry) {
                    again[m++] = k;
                    // a block is no larger than its chunk; a frame retried for its compressor needs scratch
                    // for its blocks too, but did not outgrow the first pass, so the codec learns nothing from it
                    long b = Math.min(blocksize[k], ds[k]);
                    largest = Math.max(largest, b);
                    if (sizeRetry) {
                        outgrown = Math.max(outgrown, b);
                    }
                    if (codecRetry) {
                        retryKernel = BloscKernel.ALL;
                    }
                } else {
                    codec.report(batch, item[k], st, ss[k], ds[k]);
                }
            }
            if (m == 0) {
                return;
            }
            int[] ks = Arrays.copyOf(again, m);
            codec.blockSizes.outgrown(outgrown);
            long block = Math.max(BloscBlockSizes.DEFAULT, largest);
            // scratch of the second pass stays under 1 GiB: fewer, larger groups
            int groups = (int) Math.max(1, Math.min(codec.groups(), (1L << 30) / retryKernel.scratchPerGroup(block)));
            Pass second = codec.run(batch, pick(item, ks), pick(sa, ks), pick(ss, ks), pick(da, ks), pick(ds, ks), retryKernel,
                    block, groups);
            for (int k = 0; k < m; k++) {
                codec.report(batch, second.item[k], second.status[k], second.ss[k], second.ds[k]);
            }
        }

        private static int[] pick(int[] a, int[] ks) {
            return Arrays.stream(ks).map(k -> a[k]).toArray();
        }

        private static long[] pick(long[] a, int[] ks) {
            return Arrays.stream(ks).mapToLong(k -> a[k]).toArray();
        }
    }

    /** One plan launch and one decode launch over the given chunks; reads back statuses and block sizes. */
    private Pass run(CodecBatch batch, int[] item, long[] sa, long[] ss, long[] da, long[] ds, BloscKernel kernel,
                     long block, int groups) {
        int n = item.length;
        ItemTable t = ItemTable.of(sa, ss, da, ds);
        long perGroup = kernel.scratchPerGroup(block);
        int[] status = new int[n];
        long[] blocksize = new long[n];
        try (DeviceWork w = new DeviceWork(backend, device)) {
            MemorySegment host = w.arena.allocate(t.byteSize() + 16L * n, 8);
            t.writeTo(host);
            long table = w.upload(host.asSlice(0, t.byteSize()));
            long plan = w.scratch(8L * (n + 1));
            long scratch = w.scratch(perGroup * groups);
            long srcOff = table + t.srcOffsetsAt(), srcSz = table + t.srcSizesAt();
            long dstOff = table + t.dstOffsetsAt(), dstSz = table + t.dstSizesAt(), st = table + t.statusAt();
            w.launch("zd_blosc_plan", 1, 1024, 0, new KernelArgs()
                    .u64(t.srcBase()).u64(srcOff).u64(srcSz).u64(dstSz).u64(plan).u64(st).u32(n));
            boolean few = BloscBlockSizes.fewBlocks(ds, block, device.multiprocessors());
            boolean lzOverlap = kernel == BloscKernel.LZ && overlap;
            int threads = kernel != BloscKernel.LZ ? THREADS
                    : lzOverlap ? (few ? LZ_THREADS_FEW_BLOCKS : OVERLAP_THREADS)
                    : few ? LZ_THREADS_FEW_BLOCKS : LZ_THREADS;
            String entry = lzOverlap ? OVERLAP_ENTRY : kernel.entry();
            w.launch(entry, groups, threads, 0, new KernelArgs()
                    .u64(t.srcBase()).u64(srcOff).u64(srcSz).u64(t.dstBase()).u64(dstOff).u64(dstSz)
                    .u64(plan).u64(scratch).u64(perGroup).u64(st).u32(n));
            w.download(st, host, t.statusAt(), 4L * n);
            w.sync(entry + " over " + n + " blosc chunks starting with " + batch.label(item[0]));
            boolean retried = false;
            for (int k = 0; k < n; k++) {
                status[k] = host.get(ValueLayout.JAVA_INT, t.statusAt() + 4L * k);
                retried |= retried(kernel, status[k]);
            }
            if (retried) { // the headers' blocksize fields (bytes 8..11), for the second pass's scratch
                long at = t.byteSize();
                for (int k = 0; k < n; k++) {
                    if (retried(kernel, status[k])) {
                        w.download(sa[k], host, at + 16L * k, 16);
                    }
                }
                w.sync("reading the headers of blosc chunks to decode again");
                for (int k = 0; k < n; k++) {
                    if (retried(kernel, status[k])) {
                        blocksize[k] = Integer.toUnsignedLong(host.get(ValueLayout.JAVA_INT_UNALIGNED, at + 16L * k + 8));
                    }
                }
            }
        }
        return new Pass(item, sa, ss, da, ds, status, blocksize, kernel);
    }

    /** Whether a frame with status {@code st} after a pass of {@code kernel} gets a second pass. */
    private static boolean retried(BloscKernel kernel, int st) {
        return st == ZdStatus.BLOSC_BLOCK_TOO_LARGE
                || !kernel.decodesEveryCompressor() && st == ZdStatus.BLOSC_CODEC_UNSUPPORTED;
    }

    private void report(CodecBatch batch, int i, int st, long encoded, long decoded) {
        if (st == ZdStatus.OK) {
            batch.complete(i, decoded);
        } else if (st == ZdStatus.BLOSC_VERSION_UNSUPPORTED) {
            // not corrupt: a format this reader does not read, the CPU codec's class of error
            batch.fail(i, new dev.zarrdirect.api.CodecException(NAME, "blosc buffer of " + batch.label(i)
                    + " has a format version above 2; " + BloscSpec.BLOSC1_ONLY + " (decoded on " + device.device() + ")"));
        } else if (st == ZdStatus.BLOSC_CODEC_UNSUPPORTED) {
            batch.fail(i, new CorruptChunkException(NAME, "blosc frame of " + batch.label(i) + " uses a compressor the "
                    + device.device() + " kernels do not decode (snappy) although the array's metadata says \""
                    + spec.cname() + "\"; read it with the CPU codec: zarrdirect.codec.blosc=cpu"));
        } else {
            batch.fail(i, new CorruptChunkException(NAME, "blosc frame of " + batch.label(i) + " is undecodable on "
                    + device.device() + ": " + ZdStatus.name(st) + " (" + ZdStatus.text(st) + "), expected " + decoded
                    + " decoded bytes (" + encoded + " encoded bytes)"));
        }
    }

    @Override
    public String toString() {
        return "CudaBloscCodec[" + device.device() + ", " + spec.cname() + "]";
    }
}
