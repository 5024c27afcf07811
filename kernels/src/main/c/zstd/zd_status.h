/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_status.h - status words written by the decoding kernels (zstd, blosc; one per frame/chunk).
 * 0 is success; 1..31 mean the input is not a valid frame (or uses a feature we reject);
 * 32.. are caller errors (buffers too small). The Java side mirrors these in ZdStatus.java.
 * The blosc kernels reuse the generic codes (1 truncated, 5/6 output size, 11 offset) and add
 * 18..25 and 34.
 */
#ifndef ZD_STATUS_H
#define ZD_STATUS_H

#define ZD_STATUS_OK 0u
#define ZD_STATUS_CORRUPT_TRUNCATED 1u          /* input ends inside a header, block or table */
#define ZD_STATUS_CORRUPT_BAD_MAGIC 2u          /* neither a zstd nor a skippable frame magic */
#define ZD_STATUS_CORRUPT_RESERVED_BIT 3u       /* reserved header bit, block type 3 or mode bits set */
#define ZD_STATUS_CORRUPT_WINDOW_TOO_LARGE 4u   /* window log above ZD_MAX_WINDOW_LOG */
#define ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW 5u    /* declares or produces more than dst_len bytes */
#define ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW 6u   /* all frames decoded but fewer than dst_len bytes */
#define ZD_STATUS_CORRUPT_LITERALS_HEADER 7u    /* bad literals section header or sizes */
#define ZD_STATUS_CORRUPT_HUFFMAN_TABLE 8u      /* bad Huffman tree description / weights */
#define ZD_STATUS_CORRUPT_FSE_TABLE 9u          /* bad FSE distribution, RLE symbol or repeat w/o table */
#define ZD_STATUS_CORRUPT_SEQUENCES 10u         /* bad sequence header, bitstream or lengths */
#define ZD_STATUS_CORRUPT_OFFSET_BEFORE_START 11u /* match offset reaches before the frame's output */
#define ZD_STATUS_CORRUPT_CHECKSUM 12u          /* XXH64 content checksum mismatch */
#define ZD_STATUS_CORRUPT_DICTIONARY_NOT_SUPPORTED 13u /* frame names a dictionary (id != 0) */
#define ZD_STATUS_CORRUPT_BLOCK_SIZE 14u        /* block larger than Block_Maximum_Size */
#define ZD_STATUS_CORRUPT_CONTENT_SIZE 15u      /* Frame_Content_Size differs from decoded size */
#define ZD_STATUS_CORRUPT_HUFFMAN_STREAM 16u    /* Huffman stream not consumed exactly */
#define ZD_STATUS_CORRUPT_NO_FRAME 17u          /* input holds no zstd frame at all */
#define ZD_STATUS_CORRUPT_BLOSC_HEADER 18u       /* blosc header field invalid (version 0, typesize 0, ...) */
#define ZD_STATUS_BLOSC_VERSION_UNSUPPORTED 19u  /* blosc format version above 2 (a Blosc2 buffer) */
#define ZD_STATUS_BLOSC_CODEC_UNSUPPORTED 20u    /* blosc compressor the kernels do not decode (snappy, zlib, codes 5-7) */
#define ZD_STATUS_CORRUPT_BLOSC_NBYTES 21u       /* blosc nbytes differs from the chunk's decoded size */
#define ZD_STATUS_CORRUPT_BLOSC_BLOCK_OFFSET 22u /* blosc block start outside the buffer's data region */
#define ZD_STATUS_CORRUPT_BLOSC_STREAM_SIZE 23u  /* blosc stream size <= 0 or past cbytes, or splits don't divide */
#define ZD_STATUS_CORRUPT_LZ4 24u                /* LZ4 block malformed (e.g. ends without its last literals) */
#define ZD_STATUS_CORRUPT_BLOSCLZ 25u            /* BloscLZ stream malformed (empty, or ends with a match) */
#define ZD_STATUS_SCRATCH_TOO_SMALL 32u         /* scratch_len < ZD_ZSTD_SCRATCH_PER_FRAME */
#define ZD_STATUS_BAD_ARGUMENT 33u              /* kernel argument out of range (e.g. rank > 8) */
#define ZD_STATUS_BLOSC_BLOCK_TOO_LARGE 34u      /* blosc block needs more per-group scratch than given */

#endif
