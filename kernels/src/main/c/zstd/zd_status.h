/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_status.h - status words written by the decoding kernels (zstd, blosc, deflate/gzip/zlib), one
 * per frame or chunk. 0 is success. Invalid input (or a feature we reject): 1..31 and 64..95;
 * zstd from 1 upward, blosc 18..25, deflate/gzip/zlib from 31 downward and 64.. (they also reuse
 * the generic 1, 2, 3, 5, 6, 11, 12, 13). Caller errors (scratch too small, bad launch): 32..63.
 * The Java side is dev.zarrdirect.kernels.ZdStatus; ZdStatusMirrorTest keeps the two equal.
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
#define ZD_STATUS_INFLATE_SPLIT_SERIAL 35u       /* a split deflate stream did not verify: decode it serially */

/* deflate (inflate/zd_inflate.h), gzip (inflate/zd_gzip.h), zlib (inflate/zd_zlib.h); they also
   use TRUNCATED, BAD_MAGIC (gzip ID1/ID2), RESERVED_BIT (gzip flags, block type 3),
   OUTPUT_OVERFLOW/UNDERFLOW, CHECKSUM (CRC-32, Adler-32) and DICTIONARY_NOT_SUPPORTED (zlib FDICT) */
#define ZD_STATUS_CORRUPT_DEFLATE_STORED_LENGTH 31u /* stored block LEN is not the complement of NLEN */
#define ZD_STATUS_CORRUPT_DEFLATE_CODE_LENGTHS 30u  /* HLIT > 286, HDIST > 30, bad length repeat, no end-of-block code */
#define ZD_STATUS_CORRUPT_DEFLATE_CODE_SET 29u      /* Huffman code lengths over-subscribed or incomplete */
#define ZD_STATUS_CORRUPT_DEFLATE_SYMBOL 28u        /* unused code, literal/length 286-287 or distance 30-31 */
#define ZD_STATUS_CORRUPT_DEFLATE_DISTANCE 27u      /* match distance before the stream's first output byte */
#define ZD_STATUS_CORRUPT_COMPRESSION_METHOD 26u    /* gzip CM or zlib CM not 8, or zlib CINFO > 7 */
#define ZD_STATUS_CORRUPT_GZIP_HEADER_CRC 67u       /* gzip FHCRC differs from the header's CRC-16 */
#define ZD_STATUS_CORRUPT_GZIP_SIZE 66u             /* gzip ISIZE differs from the member's size mod 2^32 */
#define ZD_STATUS_CORRUPT_ZLIB_HEADER_CHECK 65u     /* zlib CMF*256+FLG is not a multiple of 31 */
#define ZD_STATUS_CORRUPT_TRAILING_BYTES 64u        /* bytes after the end of a zlib or raw deflate stream */
#define ZD_STATUS_GROUP_TOO_LARGE 63u               /* work-group larger than ZD_INF_MAX_ITEMS */

#endif
