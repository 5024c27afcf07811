// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

/**
 * Status words written by the device kernels, zstd and blosc (mirror of {@code zstd/zd_status.h}): one per chunk,
 * {@code 0} for success. Backends turn a non-zero word into an exception naming the chunk.
 */
public enum ZdStatus {
    OK(0, "ok"),
    CORRUPT_TRUNCATED(1, "input ends inside a header, block or table"),
    CORRUPT_BAD_MAGIC(2, "not a zstd frame (bad magic number)"),
    CORRUPT_RESERVED_BIT(3, "reserved bit, block type or sequence-mode bits set"),
    CORRUPT_WINDOW_TOO_LARGE(4, "window larger than 2^31 bytes"),
    CORRUPT_OUTPUT_OVERFLOW(5, "frame declares or produces more bytes than the chunk's decoded size"),
    CORRUPT_OUTPUT_UNDERFLOW(6, "frames end before the chunk's decoded size is reached"),
    CORRUPT_LITERALS_HEADER(7, "bad literals section header"),
    CORRUPT_HUFFMAN_TABLE(8, "bad Huffman tree description"),
    CORRUPT_FSE_TABLE(9, "bad FSE table description or repeat without a previous table"),
    CORRUPT_SEQUENCES(10, "bad sequences section"),
    CORRUPT_OFFSET_BEFORE_START(11, "match offset before the start of the frame's output"),
    CORRUPT_CHECKSUM(12, "content checksum mismatch"),
    CORRUPT_DICTIONARY_NOT_SUPPORTED(13, "frame needs a dictionary (not supported)"),
    CORRUPT_BLOCK_SIZE(14, "block larger than Block_Maximum_Size"),
    CORRUPT_CONTENT_SIZE(15, "decoded size differs from the frame's Frame_Content_Size"),
    CORRUPT_HUFFMAN_STREAM(16, "Huffman literal stream not consumed exactly"),
    CORRUPT_NO_FRAME(17, "input holds no zstd frame"),
    CORRUPT_BLOSC_HEADER(18, "blosc header field invalid (version 0, typesize 0, blocksize 0, both shuffles, bad memcpyed cbytes)"),
    BLOSC_VERSION_UNSUPPORTED(19, "blosc format version above 2 (a Blosc2 buffer)"),
    BLOSC_CODEC_UNSUPPORTED(20, "blosc compressor the kernels do not decode (snappy, zlib, or a code above 4)"),
    CORRUPT_BLOSC_NBYTES(21, "blosc nbytes differs from the chunk's decoded size"),
    CORRUPT_BLOSC_BLOCK_OFFSET(22, "blosc block start outside the buffer's data region"),
    CORRUPT_BLOSC_STREAM_SIZE(23, "blosc stream size not positive, past cbytes, or splits that do not divide the block"),
    CORRUPT_LZ4(24, "LZ4 block malformed (ends without its last literals)"),
    CORRUPT_BLOSCLZ(25, "BloscLZ stream malformed (empty, or ends with a match)"),
    SCRATCH_TOO_SMALL(32, "scratch buffer smaller than ZD_ZSTD_SCRATCH_PER_FRAME"),
    BAD_ARGUMENT(33, "kernel argument out of range"),
    BLOSC_BLOCK_TOO_LARGE(34, "blosc block larger than the per-group scratch given to the kernel"),
    CORRUPT_DEFLATE_STORED_LENGTH(31, "deflate stored block length does not match its complement"),
    CORRUPT_DEFLATE_CODE_LENGTHS(30, "bad deflate code lengths (too many codes, bad repeat or no end-of-block code)"),
    CORRUPT_DEFLATE_CODE_SET(29, "deflate Huffman code lengths over-subscribed or incomplete"),
    CORRUPT_DEFLATE_SYMBOL(28, "deflate stream uses an unused code, length symbol 286-287 or distance symbol 30-31"),
    CORRUPT_DEFLATE_DISTANCE(27, "deflate match distance before the start of the stream's output"),
    CORRUPT_COMPRESSION_METHOD(26, "gzip or zlib compression method is not 8 (deflate), or zlib window above 32 KiB"),
    CORRUPT_GZIP_HEADER_CRC(67, "gzip header CRC-16 mismatch"),
    CORRUPT_GZIP_SIZE(66, "gzip ISIZE differs from the member's decoded size"),
    CORRUPT_ZLIB_HEADER_CHECK(65, "zlib header check bits (FCHECK) wrong"),
    CORRUPT_TRAILING_BYTES(64, "bytes after the end of the zlib or deflate stream"),
    GROUP_TOO_LARGE(63, "work-group larger than the kernel supports (ZD_INF_MAX_ITEMS)");

    /** Global scratch each zstd frame needs (ZD_ZSTD_SCRATCH_PER_FRAME): the literals of one 128 KiB block. */
    public static final long ZSTD_SCRATCH_PER_FRAME = 128 * 1024;

    /** Bytes of the blosc plan for a batch (ZD_BLOSC_PLAN_BYTES): one u64 per chunk and the total. */
    public static long bloscPlanBytes(int nChunks) {
        return 8L * (nChunks + 1L);
    }

    /**
     * Global scratch per work-group of the blosc decode kernels (ZD_BLOSC_SCRATCH_PER_GROUP, or
     * ZD_BLOSC_LZ_SCRATCH_PER_GROUP for the entries without zstd) for blocks of up to {@code maxBlock}
     * bytes; a shuffled block larger than that fails its chunk with {@link #BLOSC_BLOCK_TOO_LARGE}.
     */
    public static long bloscScratchPerGroup(long maxBlock, boolean withZstd) {
        long block = (maxBlock + 15) & ~15L;
        return withZstd ? block + 2 * 128 * 1024 : block;
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
