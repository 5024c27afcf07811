// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The block size a device blosc codec sizes its first pass's scratch for, and what it learns from
 * frames whose blocks outgrew it ({@code blosc/zd_blosc.h}: a shuffled block larger than its group's
 * scratch fails as {@code BLOSC_BLOCK_TOO_LARGE} and must be decoded again).
 *
 * <p>Why learn: the array metadata rarely says the block size (zarr-python's {@code blocksize} 0
 * means c-blosc's choice), and c-blosc 1.21 picks 512 KiB for lz4 level 5 with shuffle and
 * typesize 4, the default v2 store, above the 256 KiB a first pass assumes. A store's chunks share
 * their block size, so the first retry teaches the codec, and later batches decode in one pass.
 * One instance per codec (per array); thread-safe.
 */
public final class BloscBlockSizes {

    /** Scratch block of a first pass when nothing larger is known: c-blosc's automatic blocks up to clevel 7. */
    public static final long DEFAULT = 256L << 10;
    /** The largest block size learned; larger blocks still decode, each batch by a second pass. */
    public static final long LARGEST_LEARNED = 8L << 20;
    /**
     * Blocks a compute unit (an SM) below which a launch has few: every unit then holds a few
     * groups at most, and the codecs give each more threads, which copy faster while the parse
     * (one thread a stream) is the same.
     */
    public static final int FEW_BLOCKS_PER_UNIT = 8;

    private final AtomicLong seen = new AtomicLong();

    /** The block size a first pass's scratch is sized for, given the metadata's {@code blocksize} (0: unknown). */
    public long firstPass(long metadataBlocksize) {
        return Math.max(Math.max(DEFAULT, metadataBlocksize), seen.get());
    }

    /** Records that a frame held blocks of {@code blockSize} bytes that outgrew the first pass. */
    public void outgrown(long blockSize) {
        seen.accumulateAndGet(Math.min(blockSize, LARGEST_LEARNED), Math::max);
    }

    /**
     * Whether chunks of {@code decodedSizes} bytes, in blocks of about {@code block} bytes, give a
     * launch on {@code units} compute units fewer than {@link #FEW_BLOCKS_PER_UNIT} blocks a unit. The
     * host reads no header, so the count is an estimate; a wrong one costs speed only.
     */
    public static boolean fewBlocks(long[] decodedSizes, long block, int units) {
        long blocks = 0;
        for (long d : decodedSizes) {
            blocks += (d + block - 1) / block;
        }
        return blocks < (long) FEW_BLOCKS_PER_UNIT * units;
    }

    /** The block size learned so far, 0 while no frame has outgrown a first pass. */
    public long learned() {
        return seen.get();
    }
}
