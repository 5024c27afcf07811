/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_inflate_split.h - one deflate stream (raw, zlib or single-member gzip) decoded by many
 * work-groups at once. A deflate stream is serial: on a GPU one item reads it, at a few MB/s, so a
 * batch of a few large chunks (a netCDF-like zlib store of 66 MB chunks) decodes far slower on the
 * device than on the CPU's cores. The stream's blocks are independent except for the 32 KiB window,
 * and a dynamic block's header can be recognised without decoding what comes before it (the idea
 * of rapidgzip, Knespel and Brunst 2023), which gives these launches:
 *
 *   1. find (zd_infs_find_group, one group per range): the stream's bytes are cut into ranges of
 *      seg_bytes. Range 0 starts where the wrapper's header ends; the group of range k > 0 looks for
 *      the first bit in its range at which a dynamic-Huffman block header passes every check the
 *      decoder makes (zd_inf_dynamic_thread): a complete code length code, lengths that stay inside
 *      HLIT + HDIST and repeat something, an end-of-block code, a complete literal/length code and
 *      a complete (or one-code-of-one-bit, or empty) distance code. Random bits pass all of that
 *      rarely, and a range with no block header in it finds nothing: its bytes go to the segment
 *      before it, unless
 *   1b. sync (zd_infs_sync_thread, one group per range, where ranges are smaller than a block:
 *      InflateSplitPlan.syncs) gives it a start inside its Huffman block: the first symbol at or
 *      past its first bit on which two decoders, started some thousands of bits before it with the
 *      tables of the block start found before, agree (a Huffman decoder started at a wrong bit
 *      falls into step with the true symbols soon). Such a start (ZD_INFS_F_MID) carries the bit of
 *      its block's header, whose tables its decode reads first.
 *   2. decode (zd_infs_decode_group, one group per range that found a start): zd_inflate.h's
 *      decoder, from the start to the next start (a symbol or block boundary at or past it), into
 *      16-bit cells: a byte (< 256), or ZD_INFS_REF | w for a byte not known yet, the w-th of the 32
 *      KiB before the segment's output (a match reaching back past the segment's start; a later
 *      match that copies such a cell copies the reference, which stays right: it is relative to the
 *      segment's start).
 *   3. finish, in three launches:
 *      a. chain (zd_infs_chain_group, one group per stream): the segments are the stream's true
 *         parts only if, from range 0 on, each one stopped exactly at the next one's start (a start
 *         inside a block: at its bit, in the block whose header it names) and the
 *         last one ended the final block, where the input ends before the wrapper's trailer and
 *         the sizes add up. Then the last 32 KiB of each segment (its tail) is laid out in dst, in
 *         order, its references read from the tails before it. A reference reaches only the 32
 *         KiB before its segment, which are tails, so only this part is serial.
 *      b. layout (zd_infs_layout_group, one group per segment): the rest of each segment, its
 *         references read from the tails, all segments at once; then the segment's Adler-32
 *         (zlib) or CRC-32 (gzip) alone.
 *      c. check (zd_infs_check_thread, one item per stream): the segments' sums combined in order
 *         and compared with the trailer (gzip: ISIZE too).
 *      (One group laid out a whole stream in order before, and summed it: 77 ms for a group of
 *      66 MB streams on an H200, some 40% of their split decode's time.)
 *
 * Any doubt gives ZD_STATUS_INFLATE_SPLIT_SERIAL for the stream: a start that was not a block
 * start, a segment whose cells ran out (the caller may retry it with more cells: ZD_INFS_F_RETRY),
 * any error in any segment, a reference before the stream's start, a size, trailer or checksum that
 * differs, a gzip header with FHCRC or a second member. The caller then decodes that stream with the
 * serial decoder (zd_{deflate,zlib,gzip}_decode_group), which gives corrupt streams their statuses:
 * this path accepts only streams whose every byte and check it verified.
 *
 * Memory:
 *   global: the segment records (zd_infs_seg, ZD_INFS_SEG_BYTES a range, written by the caller:
 *           stream, index, cell0, cap; tables and end_hdr ZD_INF_NO_STOP; the rest zero), and the cells: 2 bytes each. A range's cells are
 *           cap, contiguous with the next range's in the same stream, so that a segment whose
 *           following ranges found no start uses their cells too.
 *   local:  find: ZD_INFS_FIND_LDS_BYTES; sync: ZD_INFLATE_LDS_BYTES; decode: ZD_INFS_DECODE_LDS_BYTES
 *           (the inflate state);
 *           chain: ZD_INFS_CHAIN_LDS_BYTES; layout: ZD_INFS_LAYOUT_LDS_BYTES (checksum lanes and
 *           CRC tables).
 */
#ifndef ZD_INFLATE_SPLIT_H
#define ZD_INFLATE_SPLIT_H

#include "zd_portable.h"
#include "zstd/zd_status.h"
#include "inflate/zd_inflate.h"
#include "inflate/zd_zlib.h"
#include "inflate/zd_gzip.h"

#define ZD_INFS_FORMAT_RAW 0u
#define ZD_INFS_FORMAT_ZLIB 1u
#define ZD_INFS_FORMAT_GZIP 2u

#define ZD_INFS_WINDOW ZD_INF_WINDOW
#define ZD_INFS_REF ZD_INF_REF /* a cell that refers to the window before its segment */
#define ZD_INFS_F_FOUND 1u   /* find: the range has a start */
#define ZD_INFS_F_FINAL 2u   /* decode: the segment ended the stream's final block */
#define ZD_INFS_F_DONE 4u    /* decode: the segment was decoded (status says how) */
#define ZD_INFS_F_RETRY 8u   /* caller: decode this segment again with the cells it now gives it */
#define ZD_INFS_F_CHAIN 16u  /* finish: the segment is part of the verified chain */
#define ZD_INFS_F_LOOSE 32u  /* find: a stored block's start in zero bits (zd_infs_stored_thread) */
#define ZD_INFS_F_MID 64u    /* sync or caller: the start is a symbol inside the block whose header is at `tables` */
#define ZD_INFS_F_SYNC 128u  /* sync: the start was found by decoding into the range (zd_infs_sync_thread) */
/* A range with no block start decodes from the symbol its sync decoders reach first at or past its
   start: the first begins ZD_INFS_SYNC_BITS before it, the second ZD_INFS_SYNC_BITS2 (or one begins
   at the block start found before, if that is within twice ZD_INFS_SYNC_BITS). The two are a prime
   distance apart: where a block's codes all have lengths of one multiple (a Huffman-only block of
   16 byte values: 4 bits), a decoder never falls into step, and two that began a multiple apart
   would agree on a wrong bit; these disagree, and the range finds nothing. */
#define ZD_INFS_SYNC_BITS 4096u
#define ZD_INFS_SYNC_BITS2 2053u
#define ZD_INFS_MAX_SEG_BYTES (1u << 27) /* range offsets in bits, doubled, fit 32 bits */
/* Items a decode group has on every backend (InflateSplitPlan.DECODE_ITEMS): item 0 decodes, the
   second 32 write (zd_inf_run_group), and CUDA's entry is compiled for groups of this many */
#define ZD_INFS_DECODE_ITEMS 64u

typedef struct {
    zd_u64 start_bit; /* find: where the segment's decode starts (bit of the stream) */
    zd_u64 end_bit;   /* decode: the block boundary where it stopped */
    zd_u64 cell0;     /* caller: its first cell, and how many it has (its range's, without */
    zd_u64 cap;       /*   the ranges after it that found no start) */
    zd_u64 out_len;   /* decode: cells filled */
    zd_u64 out_off;   /* finish: where its bytes start in the stream's output */
    zd_u32 stream;    /* caller: its stream, and its range there (0 first) */
    zd_u32 index;
    zd_u32 status;    /* decode: ZD_STATUS_OK or why it failed */
    zd_u32 flags;     /* ZD_INFS_F_* */
    zd_u32 sum;       /* layout: the Adler-32 or CRC-32 of the segment's bytes alone */
    zd_u32 shift;     /* layout, gzip: x^(8 out_len) mod the CRC polynomial (moves a CRC past them) */
    zd_u64 tables;    /* sync or caller, ZD_INFS_F_MID: the bit of the header whose tables start_bit is read with */
    zd_u64 end_hdr;   /* decode: the header's bit of the block end_bit is inside; ZD_INF_NO_STOP at a boundary */
} zd_infs_seg;

#define ZD_INFS_SEG_BYTES 88u
/* where the host reads and writes a record's fields (InflateSplitPlan) */
#define ZD_INFS_SEG_START_AT 0u
#define ZD_INFS_SEG_END_AT 8u
#define ZD_INFS_SEG_CELL0_AT 16u
#define ZD_INFS_SEG_CAP_AT 24u
#define ZD_INFS_SEG_OUT_LEN_AT 32u
#define ZD_INFS_SEG_STREAM_AT 48u
#define ZD_INFS_SEG_INDEX_AT 52u
#define ZD_INFS_SEG_STATUS_AT 56u
#define ZD_INFS_SEG_FLAGS_AT 60u
#define ZD_INFS_SEG_TABLES_AT 72u
#define ZD_INFS_SEG_END_HDR_AT 80u
ZD_STATIC_ASSERT(sizeof(zd_infs_seg) == ZD_INFS_SEG_BYTES, zd_infs_seg_size);
#ifndef __OPENCL_VERSION__
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, start_bit) == ZD_INFS_SEG_START_AT, zd_infs_seg_start_at);
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, end_bit) == ZD_INFS_SEG_END_AT, zd_infs_seg_end_at);
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, cell0) == ZD_INFS_SEG_CELL0_AT, zd_infs_seg_cell0_at);
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, cap) == ZD_INFS_SEG_CAP_AT, zd_infs_seg_cap_at);
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, out_len) == ZD_INFS_SEG_OUT_LEN_AT, zd_infs_seg_out_len_at);
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, stream) == ZD_INFS_SEG_STREAM_AT, zd_infs_seg_stream_at);
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, index) == ZD_INFS_SEG_INDEX_AT, zd_infs_seg_index_at);
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, status) == ZD_INFS_SEG_STATUS_AT, zd_infs_seg_status_at);
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, flags) == ZD_INFS_SEG_FLAGS_AT, zd_infs_seg_flags_at);
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, tables) == ZD_INFS_SEG_TABLES_AT, zd_infs_seg_tables_at);
ZD_STATIC_ASSERT(__builtin_offsetof(zd_infs_seg, end_hdr) == ZD_INFS_SEG_END_HDR_AT, zd_infs_seg_end_hdr_at);
#endif

typedef struct {
    zd_u32 best;
    zd_u32 verdict;
    zd_u64 d0, d1;
} zd_infs_find_lds;

typedef struct {
    zd_inflate_lds inf;
    zd_u64 stop, hstop, cap;
} zd_infs_decode_lds;

typedef struct {
    zd_u32 verdict, bad_ref;
} zd_infs_chain_lds;

typedef struct {
    zd_u32 lanes[2u * ZD_INF_MAX_ITEMS];
    zd_u32 crc[4][256];
    zd_u32 go, bad_ref;
} zd_infs_layout_lds;

#define ZD_INFS_FIND_LDS_BYTES ((zd_u64)sizeof(zd_infs_find_lds))
#define ZD_INFS_DECODE_LDS_BYTES ((zd_u64)sizeof(zd_infs_decode_lds))
#define ZD_INFS_CHAIN_LDS_BYTES ((zd_u64)sizeof(zd_infs_chain_lds))
#define ZD_INFS_LAYOUT_LDS_BYTES ((zd_u64)sizeof(zd_infs_layout_lds))
ZD_STATIC_ASSERT(sizeof(zd_infs_decode_lds) <= 48u * 1024u, zd_infs_decode_lds_fits_48k);
ZD_STATIC_ASSERT(sizeof(zd_infs_layout_lds) <= 48u * 1024u, zd_infs_layout_lds_fits_48k);

/* Item 0: the deflate data of a stream lies in src[*d0 .. *d1) (d1: before the trailer). Returns 0
   if the wrapper cannot be split here (header wrong, FHCRC, too short): the serial decoder decides. */
ZD_FUNC zd_u32 zd_infs_data_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u32 format, zd_u64 *d0,
                                   zd_u64 *d1) {
    if (format == ZD_INFS_FORMAT_RAW) {
        *d0 = 0u;
        *d1 = src_len;
        return 1u;
    }
    if (format == ZD_INFS_FORMAT_ZLIB) {
        if (src_len < 6u) return 0u;
        zd_u32 cmf = src[0], flg = src[1];
        if ((cmf * 256u + flg) % 31u != 0u || (cmf & 15u) != 8u || (cmf >> 4) > 7u || (flg & 0x20u)) return 0u;
        *d0 = 2u;
        *d1 = src_len - 4u;
        return 1u;
    }
    if (src_len < 18u || (src[3] & 2u)) return 0u; /* FHCRC needs the CRC tables: left to the serial path */
    zd_u64 data = 0u;
    if (zd_gzip_header_thread(src, src_len, 0u, (ZD_LOCAL zd_u32(*)[256])0, &data) != ZD_STATUS_OK) return 0u;
    if (src_len - data < 8u) return 0u;
    *d0 = data;
    *d1 = src_len - 8u;
    return 1u;
}

/* Up to 57 bits of src from bit p on (zero past len bytes). */
ZD_INLINE zd_u64 zd_infs_peek_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 len, zd_u64 p) {
    zd_u64 b = p >> 3, v = 0u;
    if (len >= 8u && b <= len - 8u) {
        v = zd_inf_load8_thread(src, b);
    } else {
        for (zd_u32 i = 0; i < 8u; i++)
            if (b + i < len) v |= (zd_u64)src[b + i] << (8u * i);
    }
    return v >> (p & 7u);
}

/* Bit 0 of each of the 19 three-bit fields of a 57-bit word. */
#define ZD_INFS_CL_LOW ZD_U64(0x0049249249249249)

/* The checks of zd_infs_probe_thread that need only the bits from a position on (v: the first 64,
   hi: at least the 10 after them): block type 2, HLIT and HDIST in range, and a complete code length
   code. 0: no header. Random bits pass about once in 1,100 positions (a netCDF-like int16 zlib
   stream); with the code lengths read from v alone, which holds 15 of the 19, the 1 in 4 headers
   that declare more passed untested, once in 18 positions, each a full probe that waits on loads.
   The find runs this at every bit of a range, a warp's items side by side: a loop over the HCLEN
   lengths runs as long as the longest of its items' (any of 32 passes the first checks, nearly
   always), so the lengths are counted without a loop or a branch: fields of length l are the
   three-bit fields that x = fields ^ (l in every field) has zero, and Kraft's sum is that count
   times 2^(7 - l) over l = 1..7 (the fields past HCLEN are masked to 0, counted by no l). */
ZD_INLINE zd_u32 zd_infs_quick_thread(zd_u64 v, zd_u64 hi) {
    if (((v >> 1) & 3u) != 2u) return 0u;
    zd_u32 hlit = (zd_u32)(v >> 3) & 31u, hdist = (zd_u32)(v >> 8) & 31u, hclen = ((zd_u32)(v >> 13) & 15u) + 4u;
    if (hlit > 29u || hdist > 29u) return 0u;
    /* bits 17 .. 73 of the position: the 19 fields, the first at bit 0 */
    zd_u64 f = ((v >> 17) | (hi << 47)) & ((((zd_u64)1) << (3u * hclen)) - 1u);
    zd_u32 kraft = 0u;
    ZD_UNROLL
    for (zd_u32 l = 1; l < 8u; l++) {
        zd_u64 x = f ^ (ZD_INFS_CL_LOW * l);
        zd_u32 other = zd_popcount_u64((x | (x >> 1) | (x >> 2)) & ZD_INFS_CL_LOW);
        kraft += (19u - other) << (7u - l);
    }
    return kraft == 128u;
}

/*
 * Per item: 1 if a dynamic block header that zd_inf_dynamic_thread would accept starts at bit p,
 * its code lengths ending at or before bit e (the end of the stream's deflate data).
 */
ZD_FUNC zd_u32 zd_infs_probe_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 len, zd_u64 p, zd_u64 e) {
    zd_u64 v = zd_infs_peek_thread(src, len, p);
    if (((v >> 1) & 3u) != 2u) return 0u;
    zd_u32 hlit = (zd_u32)(v >> 3) & 31u, hdist = (zd_u32)(v >> 8) & 31u, hclen = ((zd_u32)(v >> 13) & 15u) + 4u;
    if (hlit > 29u || hdist > 29u) return 0u;
    zd_u64 q = p + 17u;
    if (q + 3u * hclen > e) return 0u;
    zd_u64 w = zd_infs_peek_thread(src, len, q);
    zd_u32 kraft = 0u;
    for (zd_u32 i = 0; i < hclen; i++) {
        zd_u32 l = (zd_u32)(w >> (3u * i)) & 7u;
        if (l != 0u) kraft += 128u >> l;
    }
    if (kraft != 128u) return 0u; /* zlib and this decoder want a complete code length code */
    /* the canonical code length code: counts per length, symbols by (length, symbol) */
    zd_u8 cl[19];
    zd_u32 cnt[8], offs[8];
    zd_u8 sorted[19];
    for (zd_u32 i = 0; i < 19u; i++) cl[i] = 0u;
    for (zd_u32 i = 0; i < hclen; i++) cl[zd_inf_cl_order[i]] = (zd_u8)((w >> (3u * i)) & 7u);
    for (zd_u32 l = 0; l < 8u; l++) cnt[l] = 0u;
    for (zd_u32 i = 0; i < 19u; i++) cnt[cl[i]]++;
    cnt[0] = 0u;
    offs[1] = 0u;
    for (zd_u32 l = 1; l < 7u; l++) offs[l + 1u] = offs[l] + cnt[l];
    for (zd_u32 i = 0; i < 19u; i++)
        if (cl[i] != 0u) sorted[offs[cl[i]]++] = (zd_u8)i;
    q += 3u * hclen;
    zd_u32 nlit = hlit + 257u, total = nlit + hdist + 1u;
    zd_u32 klit = 0u, kdist = 0u, dmax = 0u, prev = 0u, eob = 0u;
    for (zd_u32 i = 0; i < total;) {
        if (q > e) return 0u;
        w = zd_infs_peek_thread(src, len, q);
        zd_i32 code = 0, first = 0, index = 0;
        zd_i32 sym = -1;
        zd_u32 l = 1;
        for (; l < 8u; l++) {
            code |= (zd_i32)((w >> (l - 1u)) & 1u);
            zd_i32 c = (zd_i32)cnt[l];
            if (code - first < c) {
                sym = (zd_i32)sorted[index + code - first];
                break;
            }
            index += c;
            first = (first + c) << 1;
            code <<= 1;
        }
        if (sym < 0) return 0u;
        w >>= l;
        q += l;
        zd_u32 val, rep;
        if (sym < 16) {
            val = (zd_u32)sym;
            rep = 1u;
        } else if (sym == 16) {
            if (i == 0u) return 0u;
            val = prev;
            rep = 3u + ((zd_u32)w & 3u);
            q += 2u;
        } else if (sym == 17) {
            val = 0u;
            rep = 3u + ((zd_u32)w & 7u);
            q += 3u;
        } else {
            val = 0u;
            rep = 11u + ((zd_u32)w & 127u);
            q += 7u;
        }
        if (rep > total - i) return 0u;
        for (zd_u32 r = 0; r < rep; r++, i++) {
            if (val == 0u) continue;
            if (i < nlit) {
                klit += 32768u >> val;
                if (i == 256u) eob = 1u;
            } else {
                kdist += 32768u >> val;
                if (val > dmax) dmax = val;
            }
        }
        if (klit > 32768u || kdist > 32768u) return 0u; /* over-subscribed */
        prev = val;
    }
    if (q > e || !eob || klit != 32768u) return 0u;
    return kdist == 32768u || kdist == 0u || (kdist == 16384u && dmax == 1u);
}

/*
 * Per item: the first bit of a stored block whose LEN field is at byte a (w: the 8 bytes from a),
 * or ZD_INF_NO_STOP. A stored block is the other kind of start worth finding: incompressible data
 * (the low bytes of shuffled int16 values) is nothing but stored blocks, where no dynamic header
 * lies. LEN must be the complement of NLEN and the block must fit the data (d0..d1); the header
 * before LEN is 3 bits and the padding to the byte zero bits (as zlib writes it). The header's
 * first bit is then known only up to the run of zero bits before LEN, so:
 *   - the block ends the data: it must be final, its BFINAL the 1 bit that ends the zero run;
 *   - otherwise it is not final, and any bit of the run (from 10 bits before LEN at most, to 3)
 *     reads the same header: the lowest is returned, with *loose = 1, and the segment before it
 *     may end anywhere in the run (zd_infs_meets_thread). The block after it, at the next byte,
 *     must pass too: a stored header with LEN and NLEN that agree, or a dynamic header
 *     (zd_infs_probe_thread): a chance pass of LEN and NLEN, once in 65536 bytes, is not enough.
 *     A fixed-Huffman block after it is not checked: such a start is not taken (its bytes go to
 *     the segment before).
 */
ZD_FUNC zd_u64 zd_infs_stored_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 a, zd_u64 w, zd_u64 d0,
                                     zd_u64 d1, zd_u32 *loose) {
    *loose = 0u;
    zd_u32 ln = (zd_u32)w & 0xFFFFu;
    if ((ln ^ ((zd_u32)(w >> 16) & 0xFFFFu)) != 0xFFFFu || a < d0 + 1u || a + 4u + ln > d1) return ZD_INF_NO_STOP;
    zd_u32 before = ((zd_u32)src[a - 1u] << 8) | (a >= 2u ? (zd_u32)src[a - 2u] : 0u);
    zd_u32 z = 0u; /* zero bits right before LEN */
    while (z < 16u && ((before >> (15u - z)) & 1u) == 0u) z++;
    zd_u64 n = a + 4u + ln;
    if (n == d1) {
        if (z < 2u || z > 9u || 8u * a - 1u - z < 8u * d0) return ZD_INF_NO_STOP;
        return 8u * a - 1u - z;
    }
    if (z < 3u) return ZD_INF_NO_STOP;
    zd_u64 b = zd_max_u64(8u * a - zd_min_u64(z, 10u), 8u * d0);
    if (b > 8u * a - 3u) return ZD_INF_NO_STOP;
    zd_u64 v = zd_infs_peek_thread(src, src_len, 8u * n);
    zd_u32 type = (zd_u32)(v >> 1) & 3u;
    if (type == 0u) {
        zd_u32 ln2 = (zd_u32)(v >> 8) & 0xFFFFu, nl2 = (zd_u32)(v >> 24) & 0xFFFFu;
        if (((v >> 3) & 31u) != 0u || (ln2 ^ nl2) != 0xFFFFu || n + 5u + ln2 > d1) return ZD_INF_NO_STOP;
    } else if (type != 2u || !zd_infs_probe_thread(src, src_len, 8u * n, 8u * d1)) {
        return ZD_INF_NO_STOP;
    }
    *loose = 1u;
    return b;
}

/*
 * Cooperative, one group per range: where range `index` of the stream src[0..src_len) starts
 * (seg->start_bit, ZD_INFS_F_FOUND in seg->flags), ranges being seg_bytes long.
 */
ZD_FUNC void zd_infs_find_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u32 format, zd_u64 seg_bytes,
                                ZD_GLOBAL zd_infs_seg *seg, ZD_LOCAL zd_infs_find_lds *lds) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_u64 k = seg->index;
    if (lid == 0u) {
        zd_u64 d0 = 0u, d1 = 0u;
        lds->verdict = zd_infs_data_thread(src, src_len, format, &d0, &d1);
        lds->d0 = d0;
        lds->d1 = d1;
        lds->best = 0xFFFFFFFFu;
    }
    ZD_BARRIER();
    zd_u64 d0 = lds->d0, d1 = lds->d1;
    zd_u32 ok = lds->verdict;
    ZD_BARRIER();
    if (!ok || seg_bytes == 0u || seg_bytes > ZD_INFS_MAX_SEG_BYTES) {
        if (lid == 0u) {
            seg->flags = 0u;
            seg->status = ZD_STATUS_INFLATE_SPLIT_SERIAL;
        }
        return;
    }
    if (k == 0u) {
        if (lid == 0u) {
            seg->start_bit = 8u * d0;
            seg->flags = ZD_INFS_F_FOUND;
            seg->status = ZD_STATUS_OK;
        }
        return;
    }
    zd_u64 r0 = 8u * zd_max_u64(k * seg_bytes, d0), r1 = 8u * zd_min_u64((k + 1u) * seg_bytes, d1);
    zd_u64 found = ZD_INF_NO_STOP;
    zd_u32 flags = 0u;
    /* an item tests the 8 bit positions of one byte from two words it loads once (r0 is a byte
       boundary), and a stored block's LEN there; neighbouring items load neighbouring bytes. A
       stored block starts up to 10 bits before its LEN, so the LEN bytes of the range's last
       starts lie past r1 (zlib's level 0 lines them up with ranges of 64 KiB multiples) */
    for (zd_u64 base = r0; base < r1 + 10u; base += (zd_u64)ls * 8u) {
        zd_u64 at = (base >> 3) + lid;
        zd_u64 w0 = zd_infs_peek_thread(src, src_len, 8u * at), w1 = zd_infs_peek_thread(src, src_len, 8u * at + 64u);
        for (zd_u32 j = 0; j < 8u; j++) {
            zd_u64 p = 8u * at + j;
            if (p >= r1) break;
            zd_u64 v = j == 0u ? w0 : (w0 >> j) | (w1 << (64u - j));
            if (zd_infs_quick_thread(v, w1 >> j) && zd_infs_probe_thread(src, src_len, p, 8u * d1)) {
                zd_atomic_min_u32_local(&lds->best, (zd_u32)(p - r0) << 1);
                break;
            }
        }
        if (8u * at < r1 + 10u) {
            zd_u32 loose = 0u;
            zd_u64 p = zd_infs_stored_thread(src, src_len, at, w0, d0, d1, &loose);
            if (p >= r0 && p < r1) zd_atomic_min_u32_local(&lds->best, ((zd_u32)(p - r0) << 1) | loose);
        }
        ZD_BARRIER();
        zd_u32 b = lds->best;
        ZD_BARRIER();
        if (b != 0xFFFFFFFFu) {
            found = r0 + (b >> 1);
            flags = ZD_INFS_F_FOUND | ((b & 1u) ? ZD_INFS_F_LOOSE : 0u);
            break;
        }
    }
    if (lid == 0u) {
        seg->start_bit = found;
        seg->flags = flags;
        seg->status = ZD_STATUS_OK;
    }
}

/* The wrapper's trailer after the deflate data: Adler-32 (zlib), CRC-32 and ISIZE (gzip), none (raw). */
ZD_INLINE zd_u64 zd_infs_trailer_thread(zd_u32 format) {
    return format == ZD_INFS_FORMAT_ZLIB ? 4u : format == ZD_INFS_FORMAT_GZIP ? 8u : 0u;
}

/* The last bit of a loose start's zero run (from its start bit s) where the stored header may be:
   the run ends at its LEN field, byte (s + 10) / 8, and the header is 3 bits. */
ZD_INLINE zd_u64 zd_infs_loose_last_thread(zd_u64 s) { return ((s + 10u) >> 3) * 8u - 3u; }

/*
 * Whether a segment that stopped at end_bit (inside the block whose header is at end_hdr, or at a
 * block boundary: ZD_INF_NO_STOP) ends exactly where segment `next` starts: a start inside a block
 * at the same bit of the same block (the same tables, the same final flag: from there both read the
 * same), a block start at a boundary.
 */
ZD_INLINE zd_u32 zd_infs_meets_thread(zd_u64 end_bit, zd_u64 end_hdr, const ZD_GLOBAL zd_infs_seg *next) {
    zd_u64 s = next->start_bit;
    if (next->flags & ZD_INFS_F_MID) return end_bit == s && end_hdr == next->tables;
    if (end_hdr != ZD_INF_NO_STOP) return 0u;
    if (end_bit == s) return 1u;
    /* a loose start's header and padding are zero bits up to its LEN field (byte (s + 10) / 8):
       a header read anywhere in them is the same non-final stored block */
    return (next->flags & ZD_INFS_F_LOOSE) != 0u && end_bit > s && end_bit <= zd_infs_loose_last_thread(s);
}

/* Item 0: the reader of st moved to bit p of its input (the state's block is left as it is). */
ZD_INLINE void zd_infs_seek_thread(zd_inf_state *st, const ZD_GLOBAL zd_u8 *src, zd_u64 p) {
    st->in = p >> 3;
    st->bb = 0u;
    st->nb = 0u;
    st->pad = 0u;
    st->la = st->lb = 0u;
    st->nla = st->nlb = 0u;
    if ((p & 7u) != 0u) {
        zd_inf_refill_thread(st, src);
        (void)zd_inf_take_thread(st, (zd_u32)(p & 7u));
    }
}

/*
 * Item 0: st made to read on from bit `at`, a symbol inside the Huffman block whose header starts
 * at bit `hdr`: the header is read (its tables built in lds, its final flag kept), then the reader
 * moves to `at`. ZD_STATUS_OK, the header's error, or ZD_STATUS_INFLATE_SPLIT_SERIAL where there
 * is no Huffman block to enter (a stored one, or `at` inside the header).
 */
ZD_FUNC zd_u32 zd_infs_enter_thread(zd_inf_state *st, const ZD_GLOBAL zd_u8 *src, ZD_LOCAL zd_inflate_lds *lds,
                                    zd_u64 hdr, zd_u64 at) {
    zd_infs_seek_thread(st, src, hdr);
    zd_inf_refill_thread(st, src);
    st->hdr = hdr;
    st->last = zd_inf_take_thread(st, 1u);
    zd_u32 type = zd_inf_take_thread(st, 2u);
    if (type == 2u) {
        zd_u32 status = zd_inf_dynamic_thread(st, src, lds);
        if (status != ZD_STATUS_OK) return status;
        st->fixed = 0u;
    } else if (type == 1u) {
        zd_inf_fixed_thread(lds);
        st->fixed = 1u;
    } else {
        return ZD_STATUS_INFLATE_SPLIT_SERIAL;
    }
    if (zd_inf_overrun_thread(st) || at < zd_inf_bitpos_thread(st)) return ZD_STATUS_INFLATE_SPLIT_SERIAL;
    zd_infs_seek_thread(st, src, at);
    st->mode = ZD_INF_M_HUFF;
    return ZD_STATUS_OK;
}

/*
 * Item 0: decodes from bit `from` (a block start; with hdr != ZD_INF_NO_STOP, a symbol inside the
 * block whose header is at hdr) to the first symbol or block boundary at or past bit `stop`,
 * writing nothing. Returns 1 with where it stopped (*end, and *end_hdr as zd_inflate_lds.end_hdr),
 * or 0 if it met an error or the end of the final block first.
 */
ZD_FUNC zd_u32 zd_infs_walk_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 from, zd_u64 hdr, zd_u64 stop,
                                   ZD_LOCAL zd_inflate_lds *lds, zd_u64 *end, zd_u64 *end_hdr) {
    zd_inf_state st;
    /* no output is kept: an output position far from 0 makes every distance valid (the window
       before the walk is not known) and none of it ever full */
    zd_inf_start_thread(&st, src_len, from >> 3, 0u, ZD_U64(1) << 42, stop);
    st.out = ZD_U64(1) << 41;
    if (hdr != ZD_INF_NO_STOP) {
        if (zd_infs_enter_thread(&st, src, lds, hdr, from) != ZD_STATUS_OK) return 0u;
    } else {
        zd_infs_seek_thread(&st, src, from);
    }
    ZD_LOCAL zd_inf_batch *bt = &lds->u.b[0];
    do {
        (void)zd_inflate_step_thread(&st, src, lds, bt, 0xFFFFFFFFu);
    } while (bt->op != ZD_INF_OP_DONE);
    if (lds->status != ZD_STATUS_OK || lds->ended_last) return 0u;
    *end = lds->end_bit;
    *end_hdr = lds->end_hdr;
    return 1u;
}

/*
 * Item 0 of a group per segment record (records of a stream consecutive, in range order), after
 * the find: a range that found no block start gets one inside a block if it can be found. The
 * nearest start the find found before it, at bit h, gives the block; two decoders walk into the
 * range, one from ZD_INFS_SYNC_BITS bits before its first bit c with h's tables, one from
 * ZD_INFS_SYNC_BITS2 bits before it, and stop at the first symbol at or past c. A Huffman decoder started at a wrong bit falls
 * into step with the true symbols within some hundreds of bits (benchmarks/python/deflate_sync.py:
 * p99.9 under 1,200 bits in zlib level 1 streams, the worst of 130,000 starts 1,985), so where both
 * stop at the same bit that is a true symbol start. If h is within 2 ZD_INFS_SYNC_BITS of c, one
 * walk from h itself gives it. The start is taken (ZD_INFS_F_FOUND | ZD_INFS_F_SYNC, with
 * ZD_INFS_F_MID and `tables` unless it is a block boundary) only inside the range. Nothing here is
 * trusted: the chain accepts a segment only where the one before it stopped exactly at its start
 * in the same block (zd_infs_meets_thread), and InflateSplitPlan.markRetries restarts one that did
 * not where the one before stopped.
 */
ZD_FUNC void zd_infs_sync_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u32 format, zd_u64 seg_bytes,
                                 ZD_GLOBAL zd_infs_seg *segs, zd_u32 g, ZD_LOCAL zd_inflate_lds *lds) {
    ZD_GLOBAL zd_infs_seg *seg = &segs[g];
    zd_u32 flags = seg->flags;
    if ((flags & ZD_INFS_F_FOUND) != 0u || seg->status != ZD_STATUS_OK || seg->index == 0u) return;
    /* the find checked the wrapper and the range size (else its status is not ZD_STATUS_OK), so
       the header is not parsed again: the data ends before the trailer, and a range before the
       data's start (a gzip header longer than a range) has range 0's start at or past it */
    zd_u64 trailer = zd_infs_trailer_thread(format);
    zd_u64 k = seg->index;
    if (src_len < trailer) return;
    zd_u64 c = 8u * k * seg_bytes, r1 = 8u * zd_min_u64((k + 1u) * seg_bytes, src_len - trailer);
    if (c >= r1) return;
    /* the find's starts only: another group of this launch may be writing its sync start */
    zd_u64 h = ZD_INF_NO_STOP;
    for (zd_u32 j = g; j > 0u && segs[j - 1u].stream == seg->stream; j--) {
        zd_u32 f = segs[j - 1u].flags;
        if ((f & ZD_INFS_F_FOUND) != 0u && (f & (ZD_INFS_F_SYNC | ZD_INFS_F_MID)) == 0u) {
            h = segs[j - 1u].start_bit;
            break;
        }
    }
    if (h == ZD_INF_NO_STOP || h >= c) return;
    zd_u64 end = 0u, end_hdr = 0u;
    zd_u32 near = c - h <= 2u * ZD_INFS_SYNC_BITS;
    /* one call of the walk in a loop (PoCL 3's LLVM 15 crashed building this kernel with three) */
    for (zd_u32 w = 0; w < (near ? 1u : 2u); w++) {
        zd_u64 e = 0u, eh = 0u;
        if (!zd_infs_walk_thread(src, src_len, near ? h : c - (w == 0u ? ZD_INFS_SYNC_BITS : ZD_INFS_SYNC_BITS2),
                                 near ? ZD_INF_NO_STOP : h, c, lds, &e, &eh))
            return;
        if (w > 0u && (e != end || eh != end_hdr)) return;
        end = e;
        end_hdr = eh;
    }
    if (end >= r1) return;
    seg->start_bit = end;
    seg->tables = end_hdr;
    seg->flags = ZD_INFS_F_FOUND | ZD_INFS_F_SYNC | (end_hdr != ZD_INF_NO_STOP ? ZD_INFS_F_MID : 0u);
}

/*
 * Cooperative, one group per segment record: decodes the segment of record g (of n records, a
 * stream's records consecutive) if it has a start and, with `retry`, only if the caller asked for
 * it again (ZD_INFS_F_RETRY: then with its own cells only).
 */
ZD_FUNC void zd_infs_decode_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u16 *cells,
                                  ZD_GLOBAL zd_infs_seg *segs, zd_u32 g, zd_u32 n, zd_u32 retry,
                                  ZD_LOCAL zd_infs_decode_lds *dl) {
    ZD_GLOBAL zd_infs_seg *seg = &segs[g];
    zd_u32 flags = seg->flags;
    if ((flags & ZD_INFS_F_FOUND) == 0u || (seg->status != ZD_STATUS_OK && !retry)) return;
    if (retry && (flags & ZD_INFS_F_RETRY) == 0u) return;
    if (zd_local_size() > ZD_INF_MAX_ITEMS) return; /* the records stay undone: finish says serial */
    zd_u32 lid = zd_local_id();
    zd_u64 cell0 = seg->cell0;
    ZD_LOCAL zd_inflate_lds *lds = &dl->inf;
    if (lid == 0u) {
        /* the next start in the same stream, and the cells up to its range */
        zd_u64 stop = ZD_INF_NO_STOP, hstop = ZD_INF_NO_STOP, cap = seg->cap;
        zd_u32 c = seg->stream;
        for (zd_u32 j = g + 1u; j < n && segs[j].stream == c; j++) {
            if (segs[j].flags & ZD_INFS_F_FOUND) {
                stop = hstop = segs[j].start_bit;
                /* a loose start may be any bit of its zero run, where a fixed block's end-of-block
                   code (seven zero bits) can begin: a symbol there is not past it, only one past
                   the last bit zd_infs_meets_thread takes */
                if (segs[j].flags & ZD_INFS_F_LOOSE) hstop = zd_infs_loose_last_thread(stop) + 1u;
                break;
            }
            if (!retry) cap = segs[j].cell0 + segs[j].cap - cell0;
        }
        dl->stop = stop;
        dl->hstop = hstop;
        dl->cap = cap;
        lds->u.b[1].op = ZD_INF_OP_EXEC; /* an empty batch 1 first, as zd_inflate_stream_group */
        lds->u.b[1].nseg = 0u;
        lds->status = ZD_STATUS_OK;
        lds->end_bit = 0u;
        lds->end_hdr = ZD_INF_NO_STOP;
        lds->ended_last = 0u;
        lds->out_end = cell0;
    }
    ZD_BARRIER();
    zd_u64 start = seg->start_bit;
    zd_inf_state st;
    /* distances may reach the window before the segment (wrapping arithmetic: out - out0 is right) */
    zd_inf_start_thread(&st, src_len, start >> 3, cell0, cell0 + dl->cap, dl->stop);
    st.hstop = dl->hstop;
    st.out0 = cell0 - (seg->index == 0u ? 0u : ZD_INFS_WINDOW);
    if (lid == 0u) {
        if (flags & ZD_INFS_F_MID) {
            zd_u32 status = zd_infs_enter_thread(&st, src, lds, seg->tables, start);
            if (status != ZD_STATUS_OK) { /* nothing to decode: the run below ends at once */
                lds->u.b[1].op = ZD_INF_OP_DONE;
                lds->status = status;
            }
        } else {
            zd_infs_seek_thread(&st, src, start);
        }
    }
    ZD_BARRIER();
    zd_inf_out o;
    o.dst = 0;
    o.cells = cells;
    o.cell0 = cell0;
    zd_inf_run_group(&st, src, o, lds);
    if (lid == 0u) {
        seg->status = lds->status;
        seg->end_bit = lds->end_bit;
        seg->end_hdr = lds->end_hdr;
        seg->out_len = lds->out_end - cell0;
        zd_u32 f = (flags & ~(ZD_INFS_F_FINAL | ZD_INFS_F_RETRY)) | ZD_INFS_F_DONE;
        if (lds->status == ZD_STATUS_OK && lds->ended_last) f |= ZD_INFS_F_FINAL;
        seg->flags = f;
    }
}

/* The cells of a segment before its tail: the tail is its last ZD_INFS_WINDOW (or all of it). */
ZD_INLINE zd_u64 zd_infs_tail_thread(zd_u64 len) { return len > ZD_INFS_WINDOW ? len - ZD_INFS_WINDOW : 0u; }

/*
 * Items lid, lid + ls, ...: the bytes of cells c[a .. b) of a segment whose output starts at o,
 * into dst; a reference reads dst in the ZD_INFS_WINDOW bytes before o, which must be final.
 * Returns 1 on an item that met a cell no decoder writes or a reference before the stream.
 */
ZD_INLINE zd_u32 zd_infs_lay_thread(ZD_GLOBAL zd_u8 *dst, const ZD_GLOBAL zd_u16 *c, zd_u64 o, zd_u64 a, zd_u64 b,
                                    zd_u32 lid, zd_u32 ls) {
    zd_u32 bad = 0u;
    for (zd_u64 i = a + lid; i < b; i += ls) {
        zd_u32 v = c[i];
        if (v < 256u) {
            dst[o + i] = (zd_u8)v;
        } else {
            zd_u64 w = v & (ZD_INFS_WINDOW - 1u);
            if (v < ZD_INFS_REF || o + w < ZD_INFS_WINDOW) bad = 1u;
            else dst[o + i] = dst[o + w - ZD_INFS_WINDOW];
        }
    }
    return bad;
}

/*
 * Cooperative, one group per stream (step 3a): verifies the chain of the stream's records
 * segs[0..n) (its own, in range order), marks its segments ZD_INFS_F_CHAIN with their out_off, and
 * lays their tails out in dst, in order. ZD_STATUS_OK lets zd_infs_layout_group and
 * zd_infs_check_thread go on; anything else is ZD_STATUS_INFLATE_SPLIT_SERIAL (decode the stream
 * serially), on every item.
 */
ZD_FUNC zd_u32 zd_infs_chain_group(zd_u64 src_len, zd_u32 format, ZD_GLOBAL zd_u8 *dst, zd_u64 dst_len,
                                   const ZD_GLOBAL zd_u16 *cells, ZD_GLOBAL zd_infs_seg *segs, zd_u32 n,
                                   ZD_LOCAL zd_infs_chain_lds *lds) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    if (lid == 0u) {
        zd_u32 ok = n > 0u;
        zd_u64 out = 0u, end_bit = 0u;
        zd_u32 k = 0u, final_seen = 0u;
        while (ok && k < n) {
            ZD_GLOBAL zd_infs_seg *s = &segs[k];
            zd_u32 f = s->flags;
            if ((f & ZD_INFS_F_FOUND) == 0u || (f & ZD_INFS_F_DONE) == 0u || s->status != ZD_STATUS_OK) {
                ok = 0u;
                break;
            }
            s->out_off = out;
            s->flags = f | ZD_INFS_F_CHAIN;
            out += s->out_len;
            zd_u32 j = k + 1u;
            while (j < n && (segs[j].flags & ZD_INFS_F_FOUND) == 0u) j++;
            if (f & ZD_INFS_F_FINAL) {
                final_seen = 1u;
                end_bit = s->end_bit;
                if (j < n) ok = 0u; /* a start after the final block: not this stream's */
                break;
            }
            if (j >= n || !zd_infs_meets_thread(s->end_bit, s->end_hdr, &segs[j])) ok = 0u;
            k = j;
        }
        if (!final_seen || out != dst_len) ok = 0u;
        zd_u64 in_end = (end_bit + 7u) >> 3;
        zd_u64 trailer = zd_infs_trailer_thread(format);
        if (ok && (in_end > src_len || src_len - in_end != trailer)) ok = 0u;
        lds->verdict = ok;
        lds->bad_ref = 0u;
    }
    ZD_BARRIER();
    zd_u32 ok = lds->verdict;
    ZD_BARRIER();
    if (!ok) return ZD_STATUS_INFLATE_SPLIT_SERIAL;
    /* in order: a tail's references read the tails before it (a barrier apart) */
    for (zd_u32 k = 0; k < n; k++) {
        if ((segs[k].flags & ZD_INFS_F_CHAIN) == 0u) continue;
        zd_u64 len = segs[k].out_len;
        if (zd_infs_lay_thread(dst, cells + segs[k].cell0, segs[k].out_off, zd_infs_tail_thread(len), len, lid, ls))
            zd_atomic_or_u32_local(&lds->bad_ref, 1u);
        ZD_BARRIER();
    }
    return lds->bad_ref ? ZD_STATUS_INFLATE_SPLIT_SERIAL : ZD_STATUS_OK;
}

/*
 * Cooperative, one group per segment record (step 3b), after zd_infs_chain_group: if its stream's
 * *status is ZD_STATUS_OK and the segment is in the chain, lays out the cells before its tail
 * (references read the tails before it), then sums its bytes into seg->sum (and seg->shift). A bad
 * cell sets *status to ZD_STATUS_INFLATE_SPLIT_SERIAL.
 */
ZD_FUNC void zd_infs_layout_group(zd_u32 format, ZD_GLOBAL zd_u8 *dst, const ZD_GLOBAL zd_u16 *cells,
                                  ZD_GLOBAL zd_infs_seg *seg, ZD_GLOBAL zd_u32 *status,
                                  ZD_LOCAL zd_infs_layout_lds *lds) {
    /* every group goes through every barrier, a segment it skips as one of no bytes: no return
       before a barrier hangs on what memory says (PoCL runs a group's items as loops between them) */
    if (zd_local_id() == 0u) {
        zd_u32 go = *status == ZD_STATUS_OK && (seg->flags & ZD_INFS_F_CHAIN) != 0u;
        if (go && zd_local_size() > ZD_INF_MAX_ITEMS) { /* the lanes would not fit */
            *status = ZD_STATUS_INFLATE_SPLIT_SERIAL;
            go = 0u;
        }
        lds->go = go;
        lds->bad_ref = 0u;
    }
    if (zd_local_size() > ZD_INF_MAX_ITEMS) return; /* the same on every item */
    ZD_BARRIER();
    zd_u64 o = lds->go ? seg->out_off : 0u, len = lds->go ? seg->out_len : 0u;
    if (format == ZD_INFS_FORMAT_GZIP) zd_crc32_tables_group(lds->crc);
    if (zd_infs_lay_thread(dst, cells + seg->cell0, o, 0u, zd_infs_tail_thread(len), zd_local_id(), zd_local_size()))
        zd_atomic_or_u32_local(&lds->bad_ref, 1u);
    ZD_BARRIER();
    zd_u32 sum = 0u; /* on every item; the group's own writes are visible after the barrier */
    if (format == ZD_INFS_FORMAT_ZLIB) sum = zd_adler32_group(dst + o, len, lds->lanes);
    else if (format == ZD_INFS_FORMAT_GZIP) sum = zd_crc32_group(dst + o, len, lds->crc, lds->lanes);
    if (zd_local_id() == 0u && lds->go) {
        seg->sum = sum;
        seg->shift = format == ZD_INFS_FORMAT_GZIP ? zd_crc32_x8n_thread(len) : 0u;
        if (lds->bad_ref) *status = ZD_STATUS_INFLATE_SPLIT_SERIAL;
    }
}

/*
 * One item per stream (step 3c), after zd_infs_layout_group: the stream's sum from its segments'
 * (Adler-32: a = a1 + a2 - 1, b = b1 + b2 + len2 (a1 - 1), mod 65521; CRC-32: the first moved past
 * the second's bytes, xor the second), compared with the trailer after the final block. Returns
 * status unless it is ZD_STATUS_OK; then ZD_STATUS_OK only if the trailer matches.
 */
ZD_FUNC zd_u32 zd_infs_check_thread(const ZD_GLOBAL zd_u8 *src, zd_u32 format, zd_u64 dst_len,
                                    const ZD_GLOBAL zd_infs_seg *segs, zd_u32 n, zd_u32 status) {
    if (status != ZD_STATUS_OK || format == ZD_INFS_FORMAT_RAW) return status;
    zd_u32 a = 1u, b = 0u, crc = 0u;
    zd_u64 end_bit = 0u;
    for (zd_u32 k = 0; k < n; k++) {
        const ZD_GLOBAL zd_infs_seg *s = &segs[k];
        if ((s->flags & ZD_INFS_F_CHAIN) == 0u) continue;
        end_bit = s->end_bit; /* the chain's last is the final block */
        if (format == ZD_INFS_FORMAT_ZLIB) {
            zd_u32 a2 = s->sum & 0xFFFFu, b2 = s->sum >> 16;
            zd_u64 len2 = s->out_len % ZD_ADLER_MOD;
            zd_u64 na = ((zd_u64)a + a2 + ZD_ADLER_MOD - 1u) % ZD_ADLER_MOD;
            zd_u64 nb = ((zd_u64)b + b2 + len2 * ((a + ZD_ADLER_MOD - 1u) % ZD_ADLER_MOD)) % ZD_ADLER_MOD;
            a = (zd_u32)na;
            b = (zd_u32)nb;
        } else {
            crc = zd_crc32_mul_thread(s->shift, crc) ^ s->sum;
        }
    }
    const ZD_GLOBAL zd_u8 *q = src + ((end_bit + 7u) >> 3);
    if (format == ZD_INFS_FORMAT_ZLIB) {
        zd_u32 stored = ((zd_u32)q[0] << 24) | ((zd_u32)q[1] << 16) | ((zd_u32)q[2] << 8) | (zd_u32)q[3];
        return stored == ((b << 16) | a) ? ZD_STATUS_OK : ZD_STATUS_INFLATE_SPLIT_SERIAL;
    }
    return zd_le32_thread(q) == crc && zd_le32_thread(q + 4u) == (zd_u32)dst_len ? ZD_STATUS_OK
                                                                                : ZD_STATUS_INFLATE_SPLIT_SERIAL;
}

#endif
