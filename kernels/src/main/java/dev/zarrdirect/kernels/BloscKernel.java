// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.util.Optional;

/**
 * The decode entries of the blosc kernels ({@code blosc/zd_blosc.h}) and which one a device codec
 * runs, so that the CUDA and OpenCL codecs choose alike.
 *
 * <p>Why four: the entries differ in the local memory and the registers they need, which bound how
 * many groups fit a compute unit. On an H100 (ptxas, CUDA 13.0), in groups of 64 threads: the entry
 * for every compressor takes 154 registers a thread (6 groups a SM), the zstd and zlib entries 126
 * and 127 (8), the lz4/blosclz entry 89 and 8.5 KiB of shared memory. The first pass runs the entry
 * the array's {@code cname} names; a frame whose compressor is another (blosc records it per frame)
 * fails there with {@code BLOSC_CODEC_UNSUPPORTED} and is decoded again by {@link #ALL}.
 */
public enum BloscKernel {
    /** lz4, lz4hc and blosclz: no decoder state beyond the LZ batches, no scratch beyond a shuffled block. */
    LZ("zd_blosc_decode_lz", false),
    /** zstd as well: the zstd decoder's state and its scratch. */
    ZSTD("zd_blosc_decode_zstd", true),
    /** zlib as well: the deflate decoder's state, no scratch beyond a shuffled block. */
    ZLIB("zd_blosc_decode_zlib", false),
    /** Every compressor the kernels decode (zlib as well); the zlib decoder needs no global scratch. */
    ALL("zd_blosc_decode", true);

    private final String entry;
    private final boolean zstdScratch;

    BloscKernel(String entry, boolean zstdScratch) {
        this.entry = entry;
        this.zstdScratch = zstdScratch;
    }

    /** The kernel's name in the CUDA module and the OpenCL program. */
    public String entry() {
        return entry;
    }

    /**
     * The entry of a first pass over an array whose metadata names {@code cname}; empty when the
     * kernels do not decode that compressor (snappy, or a name blosc 1.x does not know), so that the
     * CPU codec reads the array.
     */
    public static Optional<BloscKernel> firstPass(String cname) {
        return Optional.ofNullable(switch (cname) {
            case "lz4", "lz4hc", "blosclz" -> LZ;
            case "zstd" -> ZSTD;
            case "zlib" -> ZLIB;
            default -> null;
        });
    }

    /** Whether this entry decodes every compressor the kernels know, so that no second pass can help. */
    public boolean decodesEveryCompressor() {
        return this == ALL;
    }

    /**
     * The block size c-blosc 1.21 picks for zlib when the caller leaves it automatic, as measured on
     * float32 with byte shuffle at clevel 5 (66 MB chunks: 1 MiB blocks). Lower levels pick smaller
     * blocks, which the device decodes faster than this estimate says.
     */
    public static final long ZLIB_AUTO_BLOCK = 1L << 20;

    /**
     * Decoded bytes of a chunk of {@code decodedSize} bytes that one item inflates serially when this
     * entry is a first pass: a block with zlib inside (its streams follow one another), else 0 (the
     * other compressors spread a block over the group).
     *
     * @param metadataBlocksize the metadata's {@code blocksize}, 0 when automatic
     * @param decodedSize       the chunk's decoded size
     */
    public long serialBytes(long metadataBlocksize, long decodedSize) {
        if (this != ZLIB) {
            return 0;
        }
        return Math.min(decodedSize, metadataBlocksize > 0 ? metadataBlocksize : ZLIB_AUTO_BLOCK);
    }

    /** Global scratch per group for shuffled blocks of up to {@code block} bytes. */
    public long scratchPerGroup(long block) {
        return zstdScratch ? KernelContract.ZD_BLOSC_SCRATCH_PER_GROUP(block)
                : KernelContract.ZD_BLOSC_LZ_SCRATCH_PER_GROUP(block);
    }
}
