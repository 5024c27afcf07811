// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

/** Mirror of zd_status.h for the tests (the main-code mirror is {@link ZdStatus}). */
final class ZdStatusCodes {
    static final int OK = 0, TRUNCATED = 1, BAD_MAGIC = 2, RESERVED_BIT = 3, WINDOW_TOO_LARGE = 4, OUTPUT_OVERFLOW = 5,
            OUTPUT_UNDERFLOW = 6, LITERALS_HEADER = 7, HUFFMAN_TABLE = 8, FSE_TABLE = 9, SEQUENCES = 10,
            OFFSET_BEFORE_START = 11, CHECKSUM = 12, DICTIONARY_NOT_SUPPORTED = 13, BLOCK_SIZE = 14, CONTENT_SIZE = 15,
            HUFFMAN_STREAM = 16, NO_FRAME = 17, SCRATCH_TOO_SMALL = 32, BAD_ARGUMENT = 33;
    static final int DEFLATE_STORED_LENGTH = 31, DEFLATE_CODE_LENGTHS = 30, DEFLATE_CODE_SET = 29, DEFLATE_SYMBOL = 28,
            DEFLATE_DISTANCE = 27, COMPRESSION_METHOD = 26, GZIP_HEADER_CRC = 25, GZIP_SIZE = 24,
            ZLIB_HEADER_CHECK = 23, TRAILING_BYTES = 22, GROUP_TOO_LARGE = 63;

    private ZdStatusCodes() {}
}
