// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

/**
 * Status words written by the device kernels (zstd, blosc, deflate, delta; {@code zstd/zd_status.h}): one per
 * chunk, {@code 0} for success. Backends turn a non-zero word into an exception naming the chunk. The numbers
 * come from the header through {@link KernelContract}, generated at build time; the descriptions are
 * Java's, and ZdStatusMirrorTest checks that every status of the header has one.
 */
public enum ZdStatus {
    OK(KernelContract.ZD_STATUS_OK, "ok"),
    CORRUPT_TRUNCATED(KernelContract.ZD_STATUS_CORRUPT_TRUNCATED, "input ends inside a header, block or table"),
    CORRUPT_BAD_MAGIC(KernelContract.ZD_STATUS_CORRUPT_BAD_MAGIC, "not a zstd frame (bad magic number)"),
    CORRUPT_RESERVED_BIT(KernelContract.ZD_STATUS_CORRUPT_RESERVED_BIT, "reserved bit, block type or sequence-mode bits set"),
    CORRUPT_WINDOW_TOO_LARGE(KernelContract.ZD_STATUS_CORRUPT_WINDOW_TOO_LARGE, "window larger than 2^31 bytes"),
    CORRUPT_OUTPUT_OVERFLOW(KernelContract.ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW, "frame declares or produces more bytes than the chunk's decoded size"),
    CORRUPT_OUTPUT_UNDERFLOW(KernelContract.ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW, "frames end before the chunk's decoded size is reached"),
    CORRUPT_LITERALS_HEADER(KernelContract.ZD_STATUS_CORRUPT_LITERALS_HEADER, "bad literals section header"),
    CORRUPT_HUFFMAN_TABLE(KernelContract.ZD_STATUS_CORRUPT_HUFFMAN_TABLE, "bad Huffman tree description"),
    CORRUPT_FSE_TABLE(KernelContract.ZD_STATUS_CORRUPT_FSE_TABLE, "bad FSE table description or repeat without a previous table"),
    CORRUPT_SEQUENCES(KernelContract.ZD_STATUS_CORRUPT_SEQUENCES, "bad sequences section"),
    CORRUPT_OFFSET_BEFORE_START(KernelContract.ZD_STATUS_CORRUPT_OFFSET_BEFORE_START, "match offset before the start of the frame's output"),
    CORRUPT_CHECKSUM(KernelContract.ZD_STATUS_CORRUPT_CHECKSUM, "content checksum mismatch"),
    CORRUPT_DICTIONARY_NOT_SUPPORTED(KernelContract.ZD_STATUS_CORRUPT_DICTIONARY_NOT_SUPPORTED, "frame needs a dictionary (not supported)"),
    CORRUPT_BLOCK_SIZE(KernelContract.ZD_STATUS_CORRUPT_BLOCK_SIZE, "block larger than Block_Maximum_Size"),
    CORRUPT_CONTENT_SIZE(KernelContract.ZD_STATUS_CORRUPT_CONTENT_SIZE, "decoded size differs from the frame's Frame_Content_Size"),
    CORRUPT_HUFFMAN_STREAM(KernelContract.ZD_STATUS_CORRUPT_HUFFMAN_STREAM, "Huffman literal stream not consumed exactly"),
    CORRUPT_NO_FRAME(KernelContract.ZD_STATUS_CORRUPT_NO_FRAME, "input holds no zstd frame"),
    CORRUPT_BLOSC_HEADER(KernelContract.ZD_STATUS_CORRUPT_BLOSC_HEADER, "blosc header field invalid (version 0, typesize 0, blocksize 0, both shuffles, bad memcpyed cbytes)"),
    BLOSC_VERSION_UNSUPPORTED(KernelContract.ZD_STATUS_BLOSC_VERSION_UNSUPPORTED, "blosc format version above 2 (a Blosc2 buffer)"),
    BLOSC_CODEC_UNSUPPORTED(KernelContract.ZD_STATUS_BLOSC_CODEC_UNSUPPORTED, "blosc compressor the kernels do not decode (snappy, zlib, or a code above 4)"),
    CORRUPT_BLOSC_NBYTES(KernelContract.ZD_STATUS_CORRUPT_BLOSC_NBYTES, "blosc nbytes differs from the chunk's decoded size"),
    CORRUPT_BLOSC_BLOCK_OFFSET(KernelContract.ZD_STATUS_CORRUPT_BLOSC_BLOCK_OFFSET, "blosc block start outside the buffer's data region"),
    CORRUPT_BLOSC_STREAM_SIZE(KernelContract.ZD_STATUS_CORRUPT_BLOSC_STREAM_SIZE, "blosc stream size not positive, past cbytes, or splits that do not divide the block"),
    CORRUPT_LZ4(KernelContract.ZD_STATUS_CORRUPT_LZ4, "LZ4 block malformed (ends without its last literals)"),
    CORRUPT_BLOSCLZ(KernelContract.ZD_STATUS_CORRUPT_BLOSCLZ, "BloscLZ stream malformed (empty, or ends with a match)"),
    SCRATCH_TOO_SMALL(KernelContract.ZD_STATUS_SCRATCH_TOO_SMALL, "scratch buffer smaller than ZD_ZSTD_SCRATCH_PER_FRAME"),
    BAD_ARGUMENT(KernelContract.ZD_STATUS_BAD_ARGUMENT, "kernel argument out of range"),
    BLOSC_BLOCK_TOO_LARGE(KernelContract.ZD_STATUS_BLOSC_BLOCK_TOO_LARGE, "blosc block larger than the per-group scratch given to the kernel"),
    INFLATE_SPLIT_SERIAL(KernelContract.ZD_STATUS_INFLATE_SPLIT_SERIAL, "deflate stream decoded in segments did not verify; it is to be decoded serially"),
    CORRUPT_DEFLATE_STORED_LENGTH(KernelContract.ZD_STATUS_CORRUPT_DEFLATE_STORED_LENGTH, "deflate stored block length does not match its complement"),
    CORRUPT_DEFLATE_CODE_LENGTHS(KernelContract.ZD_STATUS_CORRUPT_DEFLATE_CODE_LENGTHS, "bad deflate code lengths (too many codes, bad repeat or no end-of-block code)"),
    CORRUPT_DEFLATE_CODE_SET(KernelContract.ZD_STATUS_CORRUPT_DEFLATE_CODE_SET, "deflate Huffman code lengths over-subscribed or incomplete"),
    CORRUPT_DEFLATE_SYMBOL(KernelContract.ZD_STATUS_CORRUPT_DEFLATE_SYMBOL, "deflate stream uses an unused code, length symbol 286-287 or distance symbol 30-31"),
    CORRUPT_DEFLATE_DISTANCE(KernelContract.ZD_STATUS_CORRUPT_DEFLATE_DISTANCE, "deflate match distance before the start of the stream's output"),
    CORRUPT_COMPRESSION_METHOD(KernelContract.ZD_STATUS_CORRUPT_COMPRESSION_METHOD, "gzip or zlib compression method is not 8 (deflate), or zlib window above 32 KiB"),
    CORRUPT_GZIP_HEADER_CRC(KernelContract.ZD_STATUS_CORRUPT_GZIP_HEADER_CRC, "gzip header CRC-16 mismatch"),
    CORRUPT_GZIP_SIZE(KernelContract.ZD_STATUS_CORRUPT_GZIP_SIZE, "gzip ISIZE differs from the member's decoded size"),
    CORRUPT_ZLIB_HEADER_CHECK(KernelContract.ZD_STATUS_CORRUPT_ZLIB_HEADER_CHECK, "zlib header check bits (FCHECK) wrong"),
    CORRUPT_TRAILING_BYTES(KernelContract.ZD_STATUS_CORRUPT_TRAILING_BYTES, "bytes after the end of the zlib or deflate stream"),
    GROUP_TOO_LARGE(KernelContract.ZD_STATUS_GROUP_TOO_LARGE, "work-group larger than the kernel supports (ZD_INF_MAX_ITEMS)");

    /** Global scratch each zstd frame needs (ZD_ZSTD_SCRATCH_PER_FRAME): the literals of two 128 KiB blocks. */
    public static final long ZSTD_SCRATCH_PER_FRAME = KernelContract.ZD_ZSTD_SCRATCH_PER_FRAME;

    /** Bytes of the blosc plan for a batch (ZD_BLOSC_PLAN_BYTES): one u64 per chunk and the total. */
    public static long bloscPlanBytes(int nChunks) {
        return KernelContract.ZD_BLOSC_PLAN_BYTES(nChunks);
    }

    /**
     * Global scratch per work-group of the blosc decode kernels (ZD_BLOSC_SCRATCH_PER_GROUP, or
     * ZD_BLOSC_LZ_SCRATCH_PER_GROUP for the entries without zstd) for blocks of up to {@code maxBlock}
     * bytes; a shuffled block larger than that fails its chunk with {@link #BLOSC_BLOCK_TOO_LARGE}.
     */
    public static long bloscScratchPerGroup(long maxBlock, boolean withZstd) {
        return withZstd ? KernelContract.ZD_BLOSC_SCRATCH_PER_GROUP(maxBlock)
                : KernelContract.ZD_BLOSC_LZ_SCRATCH_PER_GROUP(maxBlock);
    }

    private final int code;
    private final String description;

    ZdStatus(int code, String description) {
        this.code = code;
        this.description = description;
    }

    public int code() {
        return code;
    }

    public String description() {
        return description;
    }

    /** The status for a kernel's word; unknown words raise IllegalArgumentException naming the value. */
    public static ZdStatus of(int code) {
        for (ZdStatus s : values()) if (s.code == code) return s;
        throw new IllegalArgumentException("unknown kernel status word " + code + " (0x" + Integer.toHexString(code) + ")");
    }
}
