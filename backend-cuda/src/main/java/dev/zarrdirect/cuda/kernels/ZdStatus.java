// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.kernels;

/**
 * The status words the kernels write, one per chunk, as {@code zstd/zd_status.h} defines them:
 * 0 is success, 1 to 31 mean the input is not valid, 32 and up are caller errors.
 */
public final class ZdStatus {

    public static final int OK = 0;
    public static final int CORRUPT_TRUNCATED = 1;
    public static final int CORRUPT_CHECKSUM = 12;
    public static final int SCRATCH_TOO_SMALL = 32;
    public static final int BAD_ARGUMENT = 33;

    private static final String[] NAMES = {
            "OK",
            "CORRUPT_TRUNCATED",
            "CORRUPT_BAD_MAGIC",
            "CORRUPT_RESERVED_BIT",
            "CORRUPT_WINDOW_TOO_LARGE",
            "CORRUPT_OUTPUT_OVERFLOW",
            "CORRUPT_OUTPUT_UNDERFLOW",
            "CORRUPT_LITERALS_HEADER",
            "CORRUPT_HUFFMAN_TABLE",
            "CORRUPT_FSE_TABLE",
            "CORRUPT_SEQUENCES",
            "CORRUPT_OFFSET_BEFORE_START",
            "CORRUPT_CHECKSUM",
            "CORRUPT_DICTIONARY_NOT_SUPPORTED",
            "CORRUPT_BLOCK_SIZE",
            "CORRUPT_CONTENT_SIZE",
            "CORRUPT_HUFFMAN_STREAM",
            "CORRUPT_NO_FRAME",
    };

    private static final String[] TEXT = {
            "success",
            "the input ends inside a header, block or table",
            "neither a zstd nor a skippable frame magic number",
            "a reserved header bit, block type 3 or reserved mode bits are set",
            "the window is larger than the decoder supports",
            "the frames declare or produce more bytes than expected",
            "all frames decoded but produced fewer bytes than expected",
            "bad literals section header or sizes",
            "bad Huffman tree description or weights",
            "bad FSE table description, RLE symbol or repeat without a table",
            "bad sequences header, bitstream or lengths",
            "a match offset reaches before the start of the output",
            "content checksum mismatch",
            "the frame names a dictionary, which is not supported",
            "a block is larger than the maximum block size",
            "the frame's declared content size differs from what it decodes to",
            "a Huffman stream was not consumed exactly",
            "the input holds no zstd frame at all",
    };

    private ZdStatus() {
    }

    /** {@code ZD_STATUS_CORRUPT_TRUNCATED} for 1; {@code ZD_STATUS_<n>} for codes this backend does not know. */
    public static String name(int status) {
        if (status >= 0 && status < NAMES.length) {
            return "ZD_STATUS_" + NAMES[status];
        }
        return switch (status) {
            case SCRATCH_TOO_SMALL -> "ZD_STATUS_SCRATCH_TOO_SMALL";
            case BAD_ARGUMENT -> "ZD_STATUS_BAD_ARGUMENT";
            case 31 -> "ZD_STATUS_CORRUPT_DEFLATE_STORED_LENGTH";
            case 30 -> "ZD_STATUS_CORRUPT_DEFLATE_CODE_LENGTHS";
            case 29 -> "ZD_STATUS_CORRUPT_DEFLATE_CODE_SET";
            case 28 -> "ZD_STATUS_CORRUPT_DEFLATE_SYMBOL";
            case 27 -> "ZD_STATUS_CORRUPT_DEFLATE_DISTANCE";
            case 26 -> "ZD_STATUS_CORRUPT_COMPRESSION_METHOD";
            case 25 -> "ZD_STATUS_CORRUPT_GZIP_HEADER_CRC";
            case 24 -> "ZD_STATUS_CORRUPT_GZIP_SIZE";
            case 23 -> "ZD_STATUS_CORRUPT_ZLIB_HEADER_CHECK";
            case 22 -> "ZD_STATUS_CORRUPT_TRAILING_BYTES";
            case 63 -> "ZD_STATUS_GROUP_TOO_LARGE";
            default -> "ZD_STATUS_" + Integer.toUnsignedString(status);
        };
    }

    /** What the status means, in words. */
    public static String text(int status) {
        if (status >= 0 && status < TEXT.length) {
            return TEXT[status];
        }
        return switch (status) {
            case SCRATCH_TOO_SMALL -> "the scratch memory passed to the kernel is too small";
            case BAD_ARGUMENT -> "a kernel argument is out of range";
            case 31 -> "a deflate stored block's length does not match its complement";
            case 30 -> "bad deflate code lengths (too many codes, a bad repeat or no end-of-block code)";
            case 29 -> "deflate Huffman code lengths are over-subscribed or incomplete";
            case 28 -> "the deflate stream uses an unused code, length symbol 286-287 or distance symbol 30-31";
            case 27 -> "a deflate match distance reaches before the start of the stream's output";
            case 26 -> "the gzip or zlib compression method is not 8 (deflate), or the zlib window is above 32 KiB";
            case 25 -> "gzip header CRC-16 mismatch";
            case 24 -> "a gzip member's ISIZE differs from its decoded size";
            case 23 -> "the zlib header check bits (FCHECK) are wrong";
            case 22 -> "bytes follow the end of the zlib or deflate stream";
            case 63 -> "the work-group is larger than the kernel supports";
            default -> "unknown status";
        };
    }

    /** True for the statuses that blame the input (1 to 31). */
    public static boolean corrupt(int status) {
        return status >= 1 && status < 32;
    }
}
