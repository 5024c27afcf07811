// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

/** Mirror of zd_status.h for the tests (the main-code mirror is {@link ZdStatus}). */
final class ZdStatusCodes {
    static final int OK = 0, TRUNCATED = 1, BAD_MAGIC = 2, RESERVED_BIT = 3, WINDOW_TOO_LARGE = 4, OUTPUT_OVERFLOW = 5,
            OUTPUT_UNDERFLOW = 6, LITERALS_HEADER = 7, HUFFMAN_TABLE = 8, FSE_TABLE = 9, SEQUENCES = 10,
            OFFSET_BEFORE_START = 11, CHECKSUM = 12, DICTIONARY_NOT_SUPPORTED = 13, BLOCK_SIZE = 14, CONTENT_SIZE = 15,
            HUFFMAN_STREAM = 16, NO_FRAME = 17, SCRATCH_TOO_SMALL = 32, BAD_ARGUMENT = 33;
    static final int BLOSC_HEADER = 18, BLOSC_VERSION_UNSUPPORTED = 19, BLOSC_CODEC_UNSUPPORTED = 20, BLOSC_NBYTES = 21,
            BLOSC_BLOCK_OFFSET = 22, BLOSC_STREAM_SIZE = 23, LZ4 = 24, BLOSCLZ = 25, BLOSC_BLOCK_TOO_LARGE = 34;

    private ZdStatusCodes() {}
}
