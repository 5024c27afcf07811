/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_inflate.h - raw deflate (RFC 1951) decoding by one work-group.
 *
 * Design (the zstd decoder's, zstd/zd_zstd_frame.h):
 *   - Item 0 alone reads the bit stream (zd_inflate_step_thread): block headers, Huffman tables
 *     (built in local memory), and the symbols of up to ZD_INF_BATCH records. A record is a run of
 *     literals (kept in local memory) followed by one match. Consecutive matches of the same
 *     distance with no literal between them are merged into one record: an LZ77 copy is defined
 *     byte by byte, so two back-to-back copies at distance d are one copy at distance d, and a run
 *     of zeros becomes one record instead of thousands.
 *   - The other items write the batch byte-parallel (zd_inf_write_segment_thread). Item 0 cut the
 *     batch into segments such that no match reads a byte written in its own segment; a barrier
 *     separates segments. An overlapping match (distance < length) only reads the distance bytes
 *     before it (its output repeats with that period), so it never forces a cut by itself.
 *   - Decoding and writing overlap: there are two batch buffers, and while the writers (from item
 *     32 when the group has 64 items or more, so that item 0's warp decodes alone; else from item
 *     1) write batch k segment by segment, item 0 decodes batch k + 1 ZD_INF_SLICE symbols at a
 *     time between the segment barriers, every item meeting every barrier.
 *   - A stored block is one copy order, run by the writers.
 *
 * Huffman decoding: a primary table of 2^ZD_INF_LBITS (literal/length) or 2^ZD_INF_DBITS
 * (distance) entries (ZD_INF_E_*: symbol and code length; two literals at once where both codes
 * fit; a length's or distance's base and extra bits), indexed by the next bits of the stream. Codes
 * longer than the primary index (rare by construction: each is used at most once in 2^10
 * symbols) and invalid codes find an empty entry and go to a canonical decode over the code
 * counts, which also rejects codes no symbol has (the holes of an incomplete set).
 *
 * Validation: over-subscribed code sets; incomplete sets except one code of length 1 (or none,
 * for distances), as RFC 1951 3.2.7 allows and zlib accepts; code length repeats without a
 * previous length or past HLIT + HDIST; HLIT > 286 or HDIST > 30; a missing end-of-block code;
 * literal/length symbols 286-287 and distance symbols 30-31; distances before the stream's first
 * output byte; stored LEN != ~NLEN; input ending anywhere (the bit reader pads with zero bytes and
 * counts them: consuming a padding bit is truncation); output past dst_len.
 *
 * Memory:
 *   local:  sizeof(zd_inflate_lds) = ZD_INFLATE_LDS_BYTES (about 18 KiB: two batches of 128
 *           records, 2 KiB of literals and their segments; two primary tables), checked below to
 *           be <= 48 KiB.
 *   global: no scratch (ZD_INFLATE_SCRATCH_PER_CHUNK is 0): the 32 KiB window is the output.
 */
#ifndef ZD_INFLATE_H
#define ZD_INFLATE_H

#include "zd_portable.h"
#include "zstd/zd_status.h"

#define ZD_INF_LBITS 10u       /* literal/length primary table index bits */
#define ZD_INF_DBITS 9u        /* distance primary table index bits (also the code length code) */
/* Batch sizes: a stream decodes no faster with larger batches (the one decoding item is the
   limit), while more groups fit a SM with smaller ones. H100, zd_inflate_check.cu, zlib level 1 of
   1 MiB chunks, 1,024 / 4,096 chunks in flight, GB/s: ERA5-like floats 2.03 / 2.60 with 320
   records, 5 KiB of literals and slices of 32, 3.34 / 3.98 with 128, 2 KiB and 16; text 3.82 / 5.11
   against 7.43 / 9.35; 64 records and 1 KiB gave no more than 128. At 256 chunks, which fit the
   SMs either way, the rates are the same. */
#ifndef ZD_INF_BATCH
#define ZD_INF_BATCH 128u      /* records per batch */
#endif
#ifndef ZD_INF_LITS
#define ZD_INF_LITS 2048u      /* literal bytes per batch */
#endif
#ifndef ZD_INF_SLICE
#define ZD_INF_SLICE 16u       /* symbols item 0 decodes between two segments the others write */
#endif
/* How many records of one segment may read bytes written in that segment, where every item meets
   at every segment (zd_inf_run_group without ZD_TAIL_BARRIER): the writers resolve such a byte by
   following its copies back through the batch's records (at most this many hops) to a literal or
   a byte of an earlier segment, so a segment ends only when the chain would grow longer. Fewer
   segments, fewer rounds. Measured on CUDA running this scheme (H200, zd_inflate_stepcost.cu, zlib
   chunks of int16 high bytes, one 1 MiB chunk / 1,320 chunks): groups of 64 (OpenCL's default)
   118.6 ms / 6.89 GB/s with 0, 92.3 / 7.01 with 4, 103.9 / 7.04 with 8; groups of 32 144.9 / 7.36
   with 0, 134.6 / 8.04 with 8. OpenCL itself was not timed each way. */
#ifndef ZD_INF_CHASE
#define ZD_INF_CHASE 8u
#endif
#define ZD_INF_MAX_ITEMS 1024u /* largest work-group (checksum lanes share the record array) */
/* A batch ends once it spans this many output bytes, so offsets inside it fit 32 bits. */
#define ZD_INF_BATCH_SPAN (1u << 30)
#define ZD_INFLATE_SCRATCH_PER_CHUNK ((zd_u64)0)

typedef struct {
    zd_u32 out_rel;   /* first output byte (literal run), relative to zd_inflate_lds.base */
    zd_u32 lit_len;   /* literals, at lit[lit_off ..) */
    zd_u32 lit_off;
    zd_u32 match_len; /* then a match of this length (0: none) ... */
    zd_u32 dist;      /* ... at this distance */
} zd_inf_rec;

#define ZD_INF_OP_DONE 0u
#define ZD_INF_OP_EXEC 1u /* write rec[0..nrec) */
#define ZD_INF_OP_COPY 2u /* stored block: copy_n bytes from src[copy_src] to dst[copy_dst] */

/* One order of item 0 to the writers. */
typedef struct {
    zd_inf_rec rec[ZD_INF_BATCH];
    zd_u8 lit[ZD_INF_LITS];
    zd_u32 seg_pos[ZD_INF_BATCH + 1u];   /* segment k starts at base + seg_pos[k] ... */
    zd_u16 seg_first[ZD_INF_BATCH + 1u]; /* ... inside record seg_first[k] */
    zd_u64 base, copy_src, copy_dst, copy_n;
    zd_u32 op, nrec, nseg, batch_bytes;
} zd_inf_batch;

typedef struct {
    zd_u32 ltab[1u << ZD_INF_LBITS]; /* ZD_INF_E_* entries */
    zd_u32 dtab[1u << ZD_INF_DBITS];
    zd_u16 lcount[16], dcount[16];
    zd_u16 lsym[288], dsym[32];
    zd_u8 lens[288 + 32];
    zd_u8 cl_lens[19];
    union {
        zd_inf_batch b[2];                   /* item 0 fills one while the others write the other */
        zd_u32 lanes[2u * ZD_INF_MAX_ITEMS]; /* checksums of the wrappers, after the stream */
    } u;
    zd_u64 in_end, out_end;
    zd_u64 end_bit;    /* the bit after the stream's last block, or where a split segment stopped */
    zd_u64 end_hdr;    /* a stop inside a Huffman block: its header's bit; at a block boundary ZD_INF_NO_STOP */
    zd_u32 ended_last; /* 1 if the final block ended the decode, 0 if a stop bit did */
    zd_u32 status;
} zd_inflate_lds;

#define ZD_INFLATE_LDS_BYTES ((zd_u64)sizeof(zd_inflate_lds))
ZD_STATIC_ASSERT(sizeof(zd_inflate_lds) <= 48u * 1024u, zd_inflate_lds_fits_48k);
ZD_STATIC_ASSERT(ZD_INF_BATCH <= 65535u, zd_inf_batch_fits_u16);

ZD_CONST_TABLE zd_u16 zd_inf_len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                             31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
ZD_CONST_TABLE zd_u8 zd_inf_len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                             2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
ZD_CONST_TABLE zd_u16 zd_inf_dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                              33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                              1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
ZD_CONST_TABLE zd_u8 zd_inf_dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                              6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
/* RFC 1951 3.2.7: the order in which the code length code lengths are sent. */
ZD_CONST_TABLE zd_u8 zd_inf_cl_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

#define ZD_INF_M_HEADER 0u /* at a block header (or past the final block) */
#define ZD_INF_M_HUFF 1u   /* inside a Huffman block */
#define ZD_INF_M_STORED 2u /* a stored block's header bits are read; the block is next */

#define ZD_INF_KIND_CL 0u
#define ZD_INF_KIND_LIT 1u
#define ZD_INF_KIND_DIST 2u

/* Bit reader and block state, private to item 0. */
typedef struct {
    zd_u64 bb;        /* bit buffer, next bit in bit 0 */
    zd_u32 nb, pad;   /* bits in bb; zero bytes appended past the input's end (the top 8 * pad bits) */
    zd_u64 in, end;   /* next byte to load; end of input */
    /* Look-ahead: the 16 bytes before `in` not yet in bb, loaded words ahead of their use (la: nla
       bits, the next ones; lb: nlb bits, 0 or 64, after them), so that a refill waits on no load
       but the one it issued 8 bytes of input earlier. */
    zd_u64 la, lb;
    zd_u32 nla, nlb;
    zd_u64 out, out0, dst_len;
    /* where a split segment stops (zd_inflate_split.h): at the first block boundary at or past
       stop, or the first symbol at or past hstop (literals are then decoded one a lookup from 10
       bits before it, so that no symbol is stepped over); ZD_INF_NO_STOP for a whole stream */
    zd_u64 stop, hstop;
    zd_u64 hdr; /* the bit where the current block's header starts */
    zd_u32 mode, last, fixed;
    /* the batch being filled, between two calls of zd_inflate_step_thread */
    zd_u32 open, nrec, nlit, nseg, rlit, rlit_off;
    zd_u32 sdep;  /* records of the open segment that read bytes of it ... */
    zd_u32 chase; /* ... at most this many (0 or ZD_INF_CHASE, set by zd_inf_run_group) */
    zd_u32 ldist, lmlen, lp; /* the open batch's last record: distance, match length, where its match starts */
    zd_u64 base, rout, seg_start;
} zd_inf_state;

/* src[p .. p + 8) as a little-endian word; the caller checked the bounds. */
ZD_INLINE zd_u64 zd_inf_load8_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 p) {
    zd_u64 v = 0;
    for (zd_u32 i = 0; i < 8u; i++) v |= (zd_u64)src[p + i] << (8u * i);
    return v;
}

#define ZD_INF_NO_STOP (~ZD_U64(0))

/* The bit of src the reader is at (bits loaded, less those not consumed; padding is not input). */
ZD_INLINE zd_u64 zd_inf_bitpos_thread(const zd_inf_state *s) {
    return 8u * (s->in + s->pad) - s->nla - s->nlb - s->nb;
}

/*
 * The stop as a count of buffered bits: the reader is at or past hstop when nb <= the value
 * returned (zd_inf_bitpos_thread is top - nb, where only a refill changes top), clamped to
 * [-64, 64] (nb is 0..64: -64 never stops, 64 always does); -64 without a stop. Valid until the
 * next refill.
 */
ZD_INLINE zd_i32 zd_inf_stop_lim_thread(const zd_inf_state *s) {
    if (s->hstop == ZD_INF_NO_STOP) return -64;
    zd_u64 top = zd_inf_bitpos_thread(s) + s->nb;
    if (top >= s->hstop) return (zd_i32)zd_min_u64(top - s->hstop, 64u);
    return -(zd_i32)zd_min_u64(s->hstop - top, 64u);
}

/* The bytes loaded from src but not yet consumed, and where the next unconsumed byte is. */
ZD_INLINE zd_u64 zd_inf_next_byte_thread(const zd_inf_state *s) {
    return s->in - ((s->nla + s->nlb) >> 3) - ((s->nb - 8u * s->pad) >> 3);
}

/* The byte reader: near the start (no look-ahead yet) and the end of the input, where it appends
   zero bytes past the end and counts them (pad). The look-ahead's bytes are given back to it first. */
ZD_INLINE void zd_inf_refill_slow_thread(zd_inf_state *s, const ZD_GLOBAL zd_u8 *src) {
    s->in -= (s->nla + s->nlb) >> 3;
    s->la = s->lb = 0u;
    s->nla = s->nlb = 0u;
    zd_u32 k = (64u - s->nb) >> 3;
    if (s->end - s->in >= k) {
        if (s->end - s->in > 512u) zd_prefetch(src + s->in + 512u); /* the reader's next lines */
        zd_u64 v = 0;
        for (zd_u32 i = 0; i < k; i++) v |= (zd_u64)src[s->in + i] << (8u * i);
        s->bb |= v << s->nb;
        s->nb += 8u * k;
        s->in += k;
        if (s->end - s->in >= 16u) { /* room for both look-ahead words: the next refills use them */
            s->la = zd_inf_load8_thread(src, s->in);
            s->lb = zd_inf_load8_thread(src, s->in + 8u);
            s->in += 16u;
            s->nla = s->nlb = 64u;
        }
        return;
    }
    while (s->nb <= 56u) {
        zd_u64 b = 0;
        if (s->in < s->end) b = src[s->in++];
        else s->pad++;
        s->bb |= b << s->nb;
        s->nb += 8u;
    }
}

/* Refills bb to at least 57 bits from the look-ahead words, or by the byte reader below them near
   the input's ends. A symbol's decode then depends on no load issued for it: on a GPU one thread
   reads a stream, and a load on the critical path of every symbol was most of its time. */
ZD_INLINE void zd_inf_refill_thread(zd_inf_state *s, const ZD_GLOBAL zd_u8 *src) {
    if (s->nb > 56u) return;
    zd_u32 want = (64u - s->nb) & ~7u; /* whole bytes, 8..64 bits */
    if (s->nla < want) {
        if (s->nlb != 64u) {
            zd_inf_refill_slow_thread(s, src);
            return;
        }
        /* la's bits, then lb becomes la; the load of the word after it starts now */
        s->bb |= s->la << s->nb;
        s->nb += s->nla;
        want -= s->nla;
        s->la = s->lb;
        s->nla = 64u;
        s->nlb = 0u;
        if (s->end - s->in >= 8u) {
            if (s->end - s->in > 512u) zd_prefetch(src + s->in + 512u); /* the reader's next lines */
            s->lb = zd_inf_load8_thread(src, s->in);
            s->in += 8u;
            s->nlb = 64u;
        }
    }
    if (want == 64u) {
        s->bb = s->la;
        s->la = 0u;
    } else if (want > 0u) {
        s->bb |= (s->la & ((ZD_U64(1) << want) - 1u)) << s->nb;
        s->la >>= want;
    }
    s->nla -= want;
    s->nb += want;
}

/* n <= 32 bits, already in the buffer. */
ZD_INLINE zd_u32 zd_inf_take_thread(zd_inf_state *s, zd_u32 n) {
    zd_u32 v = (zd_u32)(s->bb & ((ZD_U64(1) << n) - 1u));
    s->bb >>= n;
    s->nb -= n;
    return v;
}

/* Consumed a padding bit: the input ended before the stream did. */
ZD_INLINE zd_u32 zd_inf_overrun_thread(const zd_inf_state *s) { return s->nb < 8u * s->pad; }

/* Primary table entries: length (bits 0-3, 0 = no code of <= index bits here) and symbol (4-12);
   literal/length entries whose code is a literal followed, within the index bits, by the code of
   another literal also hold that literal (13-20) and its length (21-24): one lookup, two bytes.
   Length symbols hold their base - 3 (13-20) and extra bits (25-27), distance symbols their base
   (13-27) and extra bits (28-31), which spares the decoder two table loads a match. */
#define ZD_INF_E_LEN(e) ((e) & 15u)
#define ZD_INF_E_SYM(e) (((e) >> 4) & 0x1FFu)
#define ZD_INF_E_SYM2(e) (((e) >> 13) & 0xFFu)
#define ZD_INF_E_LEN2(e) (((e) >> 21) & 15u)
#define ZD_INF_E_LBASE(e) ((((e) >> 13) & 0xFFu) + 3u)
#define ZD_INF_E_LEXTRA(e) (((e) >> 25) & 7u)
#define ZD_INF_E_DBASE(e) (((e) >> 13) & 0x7FFFu)
#define ZD_INF_E_DEXTRA(e) ((e) >> 28)

/* The length or distance fields of a symbol's entry (0 for others, and for 286-287 and 30-31,
   which the decoder rejects). */
ZD_INLINE zd_u32 zd_inf_fields_thread(zd_u32 kind, zd_u32 sym) {
    if (kind == ZD_INF_KIND_LIT && sym >= 257u && sym <= 285u)
        return ((zd_u32)(zd_inf_len_base[sym - 257u] - 3u) << 13) | ((zd_u32)zd_inf_len_extra[sym - 257u] << 25);
    if (kind == ZD_INF_KIND_DIST && sym < 30u)
        return ((zd_u32)zd_inf_dist_base[sym] << 13) | ((zd_u32)zd_inf_dist_extra[sym] << 28);
    return 0u;
}

/*
 * Builds the decoding structures of one prefix code from lens[0..n) (each 0..15): the primary
 * table (2^tbits entries, symbol << 4 | length, 0 = longer or no code), the count of codes per
 * length and the symbols sorted by (length, symbol) for the canonical decode of long codes.
 */
ZD_FUNC zd_u32 zd_inf_build_thread(const ZD_LOCAL zd_u8 *lens, zd_u32 n, ZD_LOCAL zd_u32 *tab, zd_u32 tbits,
                                   ZD_LOCAL zd_u16 *count, ZD_LOCAL zd_u16 *sorted, zd_u32 kind) {
    zd_u32 cnt[16], next[16], offs[16];
    for (zd_u32 l = 0; l < 16u; l++) cnt[l] = 0u;
    for (zd_u32 i = 0; i < n; i++) cnt[lens[i]]++;
    cnt[0] = 0u;
    zd_i32 left = 1;
    zd_u32 maxlen = 0;
    for (zd_u32 l = 1; l < 16u; l++) {
        left = 2 * left - (zd_i32)cnt[l];
        if (left < 0) return ZD_STATUS_CORRUPT_DEFLATE_CODE_SET; /* over-subscribed */
        if (cnt[l] != 0u) maxlen = l;
    }
    /* RFC 1951 3.2.7 allows one distance code of one bit; zlib also accepts no distance codes and,
       for literal/lengths, a lone end-of-block code of one bit. Any other hole is an error. */
    if (left > 0 && (kind == ZD_INF_KIND_CL || maxlen > 1u)) return ZD_STATUS_CORRUPT_DEFLATE_CODE_SET;
    zd_u32 code = 0, o = 0;
    for (zd_u32 l = 1; l < 16u; l++) {
        code = (code + cnt[l - 1u]) << 1;
        next[l] = code;
        offs[l] = o;
        o += cnt[l];
        count[l] = (zd_u16)cnt[l];
    }
    count[0] = 0u;
    zd_u32 size = 1u << tbits;
    for (zd_u32 i = 0; i < size; i++) tab[i] = 0u;
    for (zd_u32 sym = 0; sym < n; sym++) {
        zd_u32 l = lens[sym];
        if (l == 0u) continue;
        zd_u32 c = next[l]++;
        sorted[offs[l]++] = (zd_u16)sym;
        if (l > tbits) continue;
        zd_u32 r = 0; /* the stream sends codes most significant bit first */
        for (zd_u32 b = 0; b < l; b++) r |= ((c >> b) & 1u) << (l - 1u - b);
        zd_u32 e = (sym << 4) | l | zd_inf_fields_thread(kind, sym);
        for (zd_u32 i = r; i < size; i += 1u << l) tab[i] = e;
    }
    return ZD_STATUS_OK;
}

/* Adds the second literals to a literal/length primary table (see ZD_INF_E_*). An entry's own
   symbol and length stay as they are, so entries already extended can still be read as firsts. */
ZD_FUNC void zd_inf_pairs_thread(ZD_LOCAL zd_u32 *tab) {
    for (zd_u32 i = 0; i < (1u << ZD_INF_LBITS); i++) {
        zd_u32 e = tab[i], l1 = ZD_INF_E_LEN(e);
        if (l1 == 0u || l1 >= ZD_INF_LBITS || ZD_INF_E_SYM(e) >= 256u) continue;
        zd_u32 e2 = tab[i >> l1], l2 = ZD_INF_E_LEN(e2);
        if (l2 == 0u || l2 > ZD_INF_LBITS - l1 || ZD_INF_E_SYM(e2) >= 256u) continue;
        tab[i] = (e & 0x1FFFu) | (ZD_INF_E_SYM(e2) << 13) | (l2 << 21);
    }
}

/* Canonical decode of the code at the bottom of bits (codes longer than the primary table, and
   holes): the symbol, its length in *len; -1 if no code of <= 15 bits matches. */
ZD_INLINE zd_i32 zd_inf_slow_thread(zd_u64 bits, const ZD_LOCAL zd_u16 *count, const ZD_LOCAL zd_u16 *sorted,
                                    zd_u32 *len) {
    zd_i32 code = 0, first = 0, index = 0;
    for (zd_u32 l = 1; l < 16u; l++) {
        code |= (zd_i32)((bits >> (l - 1u)) & 1u);
        zd_i32 c = (zd_i32)count[l];
        if (code - first < c) {
            *len = l;
            return (zd_i32)sorted[index + code - first];
        }
        index += c;
        first = (first + c) << 1;
        code <<= 1;
    }
    return -1;
}

/* Decodes one symbol: its entry (ZD_INF_E_*, the fields of `kind`), its bits consumed; 0 for a
   code no symbol has. Needs 15 bits buffered. */
ZD_INLINE zd_u32 zd_inf_entry_thread(zd_inf_state *s, zd_u32 e, const ZD_LOCAL zd_u16 *count,
                                     const ZD_LOCAL zd_u16 *sorted, zd_u32 kind) {
    if (ZD_INF_E_LEN(e) == 0u) {
        zd_u32 len;
        zd_i32 sym = zd_inf_slow_thread(s->bb, count, sorted, &len);
        if (sym < 0) return 0u;
        e = ((zd_u32)sym << 4) | len | zd_inf_fields_thread(kind, (zd_u32)sym);
    }
    s->bb >>= ZD_INF_E_LEN(e);
    s->nb -= ZD_INF_E_LEN(e);
    return e;
}

/* Decodes one symbol with a table pair; -1 for a code no symbol has. Needs 15 bits buffered. */
ZD_INLINE zd_i32 zd_inf_decode_thread(zd_inf_state *s, const ZD_LOCAL zd_u32 *tab, zd_u32 tbits,
                                      const ZD_LOCAL zd_u16 *count, const ZD_LOCAL zd_u16 *sorted) {
    zd_u32 e = tab[s->bb & ((1u << tbits) - 1u)];
    zd_u32 len;
    zd_i32 sym;
    if (e != 0u) {
        len = e & 15u;
        sym = (zd_i32)((e >> 4) & 0x1FFu);
    } else {
        sym = zd_inf_slow_thread(s->bb, count, sorted, &len);
        if (sym < 0) return -1;
    }
    s->bb >>= len;
    s->nb -= len;
    return sym;
}

/* Reads a dynamic block's code lengths and builds its two tables (RFC 1951 3.2.7). */
ZD_FUNC zd_u32 zd_inf_dynamic_thread(zd_inf_state *s, const ZD_GLOBAL zd_u8 *src, ZD_LOCAL zd_inflate_lds *lds) {
    zd_inf_refill_thread(s, src);
    zd_u32 hlit = zd_inf_take_thread(s, 5u) + 257u;
    zd_u32 hdist = zd_inf_take_thread(s, 5u) + 1u;
    zd_u32 hclen = zd_inf_take_thread(s, 4u) + 4u;
    if (hlit > 286u || hdist > 30u) return ZD_STATUS_CORRUPT_DEFLATE_CODE_LENGTHS;
    for (zd_u32 i = 0; i < 19u; i++) lds->cl_lens[i] = 0u;
    for (zd_u32 i = 0; i < hclen; i++) {
        zd_inf_refill_thread(s, src);
        lds->cl_lens[zd_inf_cl_order[i]] = (zd_u8)zd_inf_take_thread(s, 3u);
    }
    if (zd_inf_overrun_thread(s)) return ZD_STATUS_CORRUPT_TRUNCATED;
    /* the code length code lives in the distance table until the lengths are read */
    zd_u32 st = zd_inf_build_thread(lds->cl_lens, 19u, lds->dtab, ZD_INF_DBITS, lds->dcount, lds->dsym, ZD_INF_KIND_CL);
    if (st != ZD_STATUS_OK) return st;
    zd_u32 total = hlit + hdist;
    for (zd_u32 i = 0; i < total;) {
        zd_inf_refill_thread(s, src);
        zd_i32 sym = zd_inf_decode_thread(s, lds->dtab, ZD_INF_DBITS, lds->dcount, lds->dsym);
        if (sym < 0) return ZD_STATUS_CORRUPT_DEFLATE_CODE_LENGTHS;
        if (sym < 16) {
            lds->lens[i++] = (zd_u8)sym;
        } else {
            zd_u32 rep, val = 0u;
            if (sym == 16) {
                if (i == 0u) return ZD_STATUS_CORRUPT_DEFLATE_CODE_LENGTHS; /* nothing to repeat */
                val = lds->lens[i - 1u];
                rep = 3u + zd_inf_take_thread(s, 2u);
            } else if (sym == 17) {
                rep = 3u + zd_inf_take_thread(s, 3u);
            } else {
                rep = 11u + zd_inf_take_thread(s, 7u);
            }
            if (rep > total - i) return ZD_STATUS_CORRUPT_DEFLATE_CODE_LENGTHS;
            for (zd_u32 k = 0; k < rep; k++) lds->lens[i++] = (zd_u8)val;
        }
        if (zd_inf_overrun_thread(s)) return ZD_STATUS_CORRUPT_TRUNCATED;
    }
    if (lds->lens[256] == 0u) return ZD_STATUS_CORRUPT_DEFLATE_CODE_LENGTHS; /* no end-of-block code */
    st = zd_inf_build_thread(lds->lens, hlit, lds->ltab, ZD_INF_LBITS, lds->lcount, lds->lsym, ZD_INF_KIND_LIT);
    if (st != ZD_STATUS_OK) return st;
    zd_inf_pairs_thread(lds->ltab);
    return zd_inf_build_thread(lds->lens + hlit, hdist, lds->dtab, ZD_INF_DBITS, lds->dcount, lds->dsym,
                               ZD_INF_KIND_DIST);
}

/* RFC 1951 3.2.6. Codes 286-287 and 30-31 take part in the code but are rejected when read. */
ZD_FUNC void zd_inf_fixed_thread(ZD_LOCAL zd_inflate_lds *lds) {
    for (zd_u32 i = 0; i < 288u; i++) lds->lens[i] = (zd_u8)(i < 144u ? 8u : i < 256u ? 9u : i < 280u ? 7u : 8u);
    for (zd_u32 i = 0; i < 32u; i++) lds->lens[288u + i] = 5u;
    (void)zd_inf_build_thread(lds->lens, 288u, lds->ltab, ZD_INF_LBITS, lds->lcount, lds->lsym, ZD_INF_KIND_LIT);
    zd_inf_pairs_thread(lds->ltab);
    (void)zd_inf_build_thread(lds->lens + 288u, 32u, lds->dtab, ZD_INF_DBITS, lds->dcount, lds->dsym,
                              ZD_INF_KIND_DIST);
}

/* Item 0's end of a step: publishes an order. */
ZD_INLINE void zd_inf_publish_thread(ZD_LOCAL zd_inflate_lds *lds, ZD_LOCAL zd_inf_batch *bt, zd_u32 op,
                                     zd_u32 status) {
    bt->op = op;
    lds->status = status;
}
/* Why the symbol loop of zd_inflate_step_thread ended. */
#define ZD_INF_LEAVE_BATCH 0u  /* the batch is full, or at hstop with records pending: close it */
#define ZD_INF_LEAVE_BUDGET 1u /* the symbols of this call are done, the batch stays open */
#define ZD_INF_LEAVE_STOP 2u   /* at hstop, nothing pending: the decode ends there */
#define ZD_INF_LEAVE_BLOCK 3u  /* an end-of-block code */
#define ZD_INF_STOP(lds, st)                                    \
    do {                                                        \
        zd_inf_publish_thread((lds), bt, ZD_INF_OP_DONE, (st)); \
        s->open = 0u;                                           \
        *state = sc;                                            \
        return 1u;                                              \
    } while (0)

/*
 * Item 0: reads the stream on until it has one order for the group in bt: a batch of records
 * (ZD_INF_OP_EXEC), a stored block (ZD_INF_OP_COPY), or the end (ZD_INF_OP_DONE, with the
 * status, and on success where the stream's last byte and output end); returns 1 then. Returns
 * 0 after `budget` symbols with the batch still open: the next call goes on filling it.
 */
ZD_FUNC zd_u32 zd_inflate_step_thread(zd_inf_state *state, const ZD_GLOBAL zd_u8 *src, ZD_LOCAL zd_inflate_lds *lds,
                                      ZD_LOCAL zd_inf_batch *bt, zd_u32 budget) {
    /* a copy whose address stays here, so the compiler keeps the bit reader in registers (the
       caller's state lives in memory: on a GPU, the slow local memory); every return writes it back */
    zd_inf_state sc = *state;
    zd_inf_state *s = &sc;
    zd_u64 base, seg_start, rout; /* rout: where the open record's literals start */
    zd_u32 nrec, nlit, nseg, rlit, rlit_off, sdep;
    if (s->open) {
        base = s->base, seg_start = s->seg_start, rout = s->rout;
        nrec = s->nrec, nlit = s->nlit, nseg = s->nseg, rlit = s->rlit, rlit_off = s->rlit_off, sdep = s->sdep;
    } else {
        base = s->out, seg_start = base, rout = base;
        nrec = 0u, nlit = 0u, nseg = 1u, rlit = 0u, rlit_off = 0u, sdep = 0u;
        bt->base = base;
        bt->seg_pos[0] = 0u;
        bt->seg_first[0] = 0u;
    }
    for (;;) {
        if (s->mode == ZD_INF_M_HUFF) {
            /* The symbol loop keeps its positions as 32-bit offsets from base (a batch spans less
               than ZD_INF_BATCH_SPAN), the last record's fields in registers, and the stop as a bit
               count (zd_inf_stop_lim_thread), and tests at as few branches as the errors' order
               allows: one thread reads the stream, so each instruction on its chain is the
               decoder's time (before, an H200 decoder alone spent 0.63 us on a symbol or literal
               pair, some 245 instructions; docs/performance.md, "The decoder's own
               instructions"). s->out and the batch's fields are written back when it leaves. */
            zd_u32 orel = (zd_u32)(s->out - base);
            zd_u32 room = (zd_u32)zd_min_u64(s->dst_len - base, 0xFFFFFFFFu);
            /* how far before base distances may reach (out0 may wrap below 0: the difference is right) */
            zd_u32 reach = (zd_u32)zd_min_u64(base - s->out0, 0x80000000u);
            zd_u32 seg = (zd_u32)(seg_start - base), rrel = (zd_u32)(rout - base);
            zd_u32 ldist = s->ldist, lmlen = s->lmlen, lp = s->lp; /* read only while nrec > 0 */
            zd_i32 lim = zd_inf_stop_lim_thread(s);
            zd_u32 leave;
            for (;;) {
                /* at or past hstop; the batch full (room for two literals is left, so that a pair
                   needs no test of its own); the call's symbols done: one branch, then which */
                zd_u32 full = nrec >= ZD_INF_BATCH - 1u || nlit >= ZD_INF_LITS - 1u || orel >= ZD_INF_BATCH_SPAN;
                if ((zd_i32)s->nb <= lim || full || budget == 0u) {
                    leave = (zd_i32)s->nb <= lim ? (nrec > 0u || rlit > 0u ? ZD_INF_LEAVE_BATCH : ZD_INF_LEAVE_STOP)
                            : full              ? ZD_INF_LEAVE_BATCH
                                                : ZD_INF_LEAVE_BUDGET;
                    break;
                }
                budget--;
                if (s->nb < 48u) { /* a whole match reads at most 15 + 5 + 15 + 13 bits */
                    zd_inf_refill_thread(s, src);
                    lim = zd_inf_stop_lim_thread(s);
                }
                zd_u32 e = lds->ltab[s->bb & ((1u << ZD_INF_LBITS) - 1u)];
                /* two literals at one lookup only where both end before hstop's symbol */
                if (ZD_INF_E_LEN2(e) != 0u && room - orel >= 2u && (zd_i32)s->nb >= lim + (zd_i32)ZD_INF_LBITS) {
                    zd_u32 n = ZD_INF_E_LEN(e) + ZD_INF_E_LEN2(e);
                    s->bb >>= n;
                    s->nb -= n;
                    if (zd_inf_overrun_thread(s)) ZD_INF_STOP(lds, ZD_STATUS_CORRUPT_TRUNCATED);
                    bt->lit[nlit] = (zd_u8)ZD_INF_E_SYM(e);
                    bt->lit[nlit + 1u] = (zd_u8)ZD_INF_E_SYM2(e);
                    nlit += 2u;
                    rlit += 2u;
                    orel += 2u;
                    continue;
                }
                e = zd_inf_entry_thread(s, e, lds->lcount, lds->lsym, ZD_INF_KIND_LIT);
                /* Each kind of symbol tests its errors at one branch, and reports the first in
                   the CPU decoder's order: bits past the input, a code no symbol has, then the
                   symbol's own. A code no symbol has (e == 0) reads as symbol 0, a literal. */
                zd_u32 sym = ZD_INF_E_SYM(e);
                zd_u32 nb_sym = s->nb;
                if (sym < 256u) {
                    if (zd_inf_overrun_thread(s) || e == 0u || orel >= room)
                        ZD_INF_STOP(lds, zd_inf_overrun_thread(s) ? ZD_STATUS_CORRUPT_TRUNCATED
                                         : e == 0u               ? ZD_STATUS_CORRUPT_DEFLATE_SYMBOL
                                                                 : ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW);
                    bt->lit[nlit++] = (zd_u8)sym;
                    rlit++;
                    orel++;
                    continue;
                }
                if (sym == 256u) {
                    if (zd_inf_overrun_thread(s)) ZD_INF_STOP(lds, ZD_STATUS_CORRUPT_TRUNCATED);
                    leave = ZD_INF_LEAVE_BLOCK;
                    break;
                }
                /* The match is read whole before any test (a bad symbol's fields are 0, so every
                   read stays in bounds, and the bit buffer holds the 48 bits the most can take),
                   then tested at one branch; the error, if any, is the first in the CPU decoder's
                   order: bits past the input after the length code, the symbol, bits past the
                   input after the distance code, that code, bits past the input after its extra
                   bits, the distance, the output. */
                zd_u32 len = ZD_INF_E_LBASE(e) + zd_inf_take_thread(s, ZD_INF_E_LEXTRA(e));
                zd_u32 de = zd_inf_entry_thread(s, lds->dtab[s->bb & ((1u << ZD_INF_DBITS) - 1u)], lds->dcount,
                                                lds->dsym, ZD_INF_KIND_DIST);
                zd_u32 nb_code = s->nb;
                zd_u32 dist = ZD_INF_E_DBASE(de) + zd_inf_take_thread(s, ZD_INF_E_DEXTRA(de));
                zd_u32 bad_code = de == 0u || ZD_INF_E_SYM(de) >= 30u;
                if (sym > 285u || bad_code || zd_inf_overrun_thread(s) || dist > orel + reach || len > room - orel) {
                    zd_u32 pb = 8u * s->pad;
                    ZD_INF_STOP(lds, nb_sym < pb     ? ZD_STATUS_CORRUPT_TRUNCATED
                                     : sym > 285u    ? ZD_STATUS_CORRUPT_DEFLATE_SYMBOL
                                     : nb_code < pb  ? ZD_STATUS_CORRUPT_TRUNCATED
                                     : bad_code      ? ZD_STATUS_CORRUPT_DEFLATE_SYMBOL
                                     : s->nb < pb    ? ZD_STATUS_CORRUPT_TRUNCATED
                                     : dist > orel + reach ? ZD_STATUS_CORRUPT_DEFLATE_DISTANCE
                                                     : ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW);
                }
                zd_u32 j, p;
                if (rlit == 0u && nrec > 0u && ldist == dist) {
                    j = nrec - 1u; /* same distance, no literal between: one longer copy */
                    lmlen += len;
                    bt->rec[j].match_len = lmlen;
                    p = lp;
                } else {
                    j = nrec++;
                    bt->rec[j].out_rel = rrel;
                    bt->rec[j].lit_len = rlit;
                    bt->rec[j].lit_off = rlit_off;
                    bt->rec[j].match_len = len;
                    bt->rec[j].dist = dist;
                    ldist = dist;
                    lmlen = len;
                    lp = orel;
                    p = orel;
                }
                /* the bytes this match reads: [p - dist, p - dist + min(len, dist)), which may begin
                   before base (signed: p < 2^31, dist <= 32768); where some are in the segment, the
                   writers chase them, up to s->chase records deep (counted per record that reads in
                   the segment, a bound on any chain) */
                if (p > seg && (zd_i32)(p - dist + (lmlen < dist ? lmlen : dist)) > (zd_i32)seg) {
                    if (sdep >= s->chase) {
                        bt->seg_pos[nseg] = p;
                        bt->seg_first[nseg] = (zd_u16)j;
                        nseg++;
                        seg = p;
                        sdep = 0u;
                    } else {
                        sdep++;
                    }
                }
                orel += len;
                rrel = orel;
                rlit = 0u;
                rlit_off = nlit;
            }
            s->out = base + orel;
            seg_start = base + seg;
            rout = base + rrel;
            s->ldist = ldist, s->lmlen = lmlen, s->lp = lp;
            if (leave == ZD_INF_LEAVE_BATCH) break;
            if (leave == ZD_INF_LEAVE_BLOCK) {
                s->mode = ZD_INF_M_HEADER;
                continue;
            }
            if (leave == ZD_INF_LEAVE_BUDGET) {
                s->base = base, s->seg_start = seg_start, s->rout = rout;
                s->nrec = nrec, s->nlit = nlit, s->nseg = nseg, s->rlit = rlit, s->rlit_off = rlit_off, s->sdep = sdep;
                s->open = 1u;
                *state = sc;
                return 0u;
            }
            lds->in_end = zd_inf_next_byte_thread(s); /* ZD_INF_LEAVE_STOP: at hstop, nothing pending */
            lds->out_end = s->out;
            lds->end_bit = zd_inf_bitpos_thread(s);
            lds->end_hdr = s->hdr;
            lds->ended_last = 0u;
            ZD_INF_STOP(lds, ZD_STATUS_OK);
        }
        /* a stored block or the end: a pending batch goes first (a new Huffman block needs not
           wait: the batch holds no reference to the tables) */
        zd_u32 pending = nrec > 0u || rlit > 0u;
        if (s->mode == ZD_INF_M_STORED) {
            if (pending) break;
            zd_u32 drop = s->nb & 7u; /* to a byte boundary */
            s->bb >>= drop;
            s->nb -= drop;
            if (s->nb < 32u + 8u * s->pad) ZD_INF_STOP(lds, ZD_STATUS_CORRUPT_TRUNCATED);
            zd_u32 len = zd_inf_take_thread(s, 16u);
            zd_u32 nlen = zd_inf_take_thread(s, 16u);
            if ((len ^ nlen) != 0xFFFFu)
                ZD_INF_STOP(lds, ZD_STATUS_CORRUPT_DEFLATE_STORED_LENGTH);
            zd_u64 at = zd_inf_next_byte_thread(s);
            if (s->end - at < len) ZD_INF_STOP(lds, ZD_STATUS_CORRUPT_TRUNCATED);
            if (len > s->dst_len - s->out)
                ZD_INF_STOP(lds, ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW);
            s->in = at + len;
            s->bb = 0u;
            s->nb = 0u;
            s->pad = 0u;
            s->la = s->lb = 0u;
            s->nla = s->nlb = 0u;
            s->mode = ZD_INF_M_HEADER;
            if (len == 0u) continue;
            bt->copy_src = at;
            bt->copy_dst = s->out;
            bt->copy_n = len;
            s->out += len;
            zd_inf_publish_thread(lds, bt, ZD_INF_OP_COPY, ZD_STATUS_OK);
            s->open = 0u;
            *state = sc;
            return 1u;
        }
        if (s->last || (s->stop != ZD_INF_NO_STOP && zd_inf_bitpos_thread(s) >= s->stop)) {
            if (pending) break;
            lds->in_end = zd_inf_next_byte_thread(s);
            lds->out_end = s->out;
            lds->end_bit = zd_inf_bitpos_thread(s);
            lds->end_hdr = ZD_INF_NO_STOP;
            lds->ended_last = s->last;
            ZD_INF_STOP(lds, ZD_STATUS_OK);
        }
        s->hdr = zd_inf_bitpos_thread(s);
        zd_inf_refill_thread(s, src);
        s->last = zd_inf_take_thread(s, 1u);
        zd_u32 type = zd_inf_take_thread(s, 2u);
        if (zd_inf_overrun_thread(s)) ZD_INF_STOP(lds, ZD_STATUS_CORRUPT_TRUNCATED);
        if (type == 0u) {
            s->mode = ZD_INF_M_STORED;
        } else if (type == 1u) {
            if (!s->fixed) zd_inf_fixed_thread(lds);
            s->fixed = 1u;
            s->mode = ZD_INF_M_HUFF;
        } else if (type == 2u) {
            s->fixed = 0u;
            *state = sc; /* the header reader runs on the caller's copy: sc's address must not leave */
            zd_u32 st = zd_inf_dynamic_thread(state, src, lds);
            sc = *state;
            if (st != ZD_STATUS_OK) ZD_INF_STOP(lds, st);
            s->mode = ZD_INF_M_HUFF;
        } else {
            ZD_INF_STOP(lds, ZD_STATUS_CORRUPT_RESERVED_BIT);
        }
    }
    /* close the batch */
    if (rlit > 0u) {
        bt->rec[nrec].out_rel = (zd_u32)(rout - base);
        bt->rec[nrec].lit_len = rlit;
        bt->rec[nrec].lit_off = rlit_off;
        bt->rec[nrec].match_len = 0u;
        bt->rec[nrec].dist = 0u;
        nrec++;
    }
    bt->nrec = nrec;
    bt->nseg = nseg;
    bt->batch_bytes = (zd_u32)(s->out - base);
    zd_inf_publish_thread(lds, bt, ZD_INF_OP_EXEC, ZD_STATUS_OK);
    s->open = 0u;
    *state = sc;
    return 1u;
}

#define ZD_INF_EXEC_CHUNK 16u /* output bytes per item and round when executing a batch */

#define ZD_INF_WINDOW 32768u
#define ZD_INF_REF 0x8000u /* a split segment's cell that refers to the window before the segment */

/*
 * Where a batch is written: bytes of the stream's output (cells NULL), or the 16-bit cells of a
 * split segment (inflate/zd_inflate_split.h) whose first cell is cell0: a cell holds a byte, or
 * ZD_INF_REF | w for the w-th byte of the ZD_INF_WINDOW before the segment, not known yet. The
 * functions that take one are inlined into each kernel with a constant cells, so the byte path
 * carries no cell code.
 */
typedef struct {
    ZD_GLOBAL zd_u8 *dst;
    ZD_GLOBAL zd_u16 *cells;
    zd_u64 cell0;
} zd_inf_out;

/* The record of bt holding output element x (relative to base), among rec[lo..hi]. */
ZD_INLINE zd_u32 zd_inf_find_rec_thread(const ZD_LOCAL zd_inf_batch *bt, zd_u32 x, zd_u32 lo, zd_u32 hi) {
    while (lo < hi) {
        zd_u32 mid = (lo + hi + 1u) >> 1;
        if (bt->rec[mid].out_rel <= x) lo = mid;
        else hi = mid - 1u;
    }
    return lo;
}

/*
 * Per item: writes output elements [x0, x1) (relative to base, x1 - x0 <= ZD_INF_EXEC_CHUNK) of
 * the segment [s0, ..) whose records are rec[jf..jl]. An element is a literal, or a match element
 * whose source lies before the segment (loaded), or in it: then the source's own record is found
 * and followed, at most `chase` times (the decoder's, which cut the segments so), to a literal or
 * a byte before the segment. So all loads can be in flight before the first store. In cells, a
 * source before cell0 becomes a reference (the decoder kept dist <= back + window); a match that
 * copies a reference copies it unchanged, which stays right: it is relative to the segment.
 */
ZD_INLINE void zd_inf_exec_chunk_thread(zd_inf_out o, const ZD_LOCAL zd_inf_batch *bt, zd_u64 base, zd_u32 s0,
                                        zd_u32 x0, zd_u32 x1, zd_u32 jf, zd_u32 jl, zd_u32 chase) {
    zd_u32 j = zd_inf_find_rec_thread(bt, x0, jf, jl);
    zd_u32 rel0 = bt->rec[j].out_rel, ll = bt->rec[j].lit_len, ml = bt->rec[j].match_len;
    zd_u16 v[ZD_INF_EXEC_CHUNK];
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_INF_EXEC_CHUNK; k++) {
        zd_u32 x = x0 + k;
        v[k] = 0u;
        if (x < x1) {
            while (x - rel0 >= ll + ml && j < jl) {
                j++;
                rel0 = bt->rec[j].out_rel;
                ll = bt->rec[j].lit_len;
                ml = bt->rec[j].match_len;
            }
            /* y: the element to read, relative to base (signed: a match may reach before base) */
            zd_u32 c = j, crel = rel0, cll = ll, y = x;
            for (zd_u32 hop = 0;; hop++) {
                zd_u32 r = y - crel;
                if (r < cll) {
                    v[k] = bt->lit[bt->rec[c].lit_off + r];
                    ZD_TEST_MAX(0, hop); /* tests: the deepest chase */
                    break;
                }
                zd_u32 dist = bt->rec[c].dist, q = r - cll;
                if (q >= dist) q = q % dist; /* overlapping match: the source period repeats */
                y = crel + cll + q - dist;
                if ((zd_i32)y < (zd_i32)s0 || hop >= chase) { /* the bound holds by construction */
                    ZD_TEST_MAX(0, hop);
                    ZD_TEST_MAX(1, (zd_i32)y >= (zd_i32)s0); /* tests: 1 if the bound ever cut a chase short */
                    zd_u64 at = base + (zd_u64)(zd_i64)(zd_i32)y;
                    if (o.cells == 0) {
                        v[k] = o.dst[at];
                    } else {
                        zd_i64 back = (zd_i64)(at - o.cell0);
                        v[k] = back >= 0 ? o.cells[at] : (zd_u16)(ZD_INF_REF | (zd_u32)((zd_i64)ZD_INF_WINDOW + back));
                    }
                    break;
                }
                c = zd_inf_find_rec_thread(bt, y, jf, c);
                crel = bt->rec[c].out_rel;
                cll = bt->rec[c].lit_len;
            }
        }
    }
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_INF_EXEC_CHUNK; k++) {
        if (x0 + k < x1) {
            if (o.cells == 0) o.dst[base + x0 + k] = (zd_u8)v[k];
            else o.cells[base + x0 + k] = v[k];
        }
    }
}

/* Writers e = 0 .. ne - 1: segment k of the order in bt (a stored block is one segment), cut by a
   decoder whose chase was `chase` (a constant at each call, so the path without one has no loop). */
ZD_INLINE void zd_inf_write_segment_thread(const ZD_GLOBAL zd_u8 *src, zd_inf_out o, const ZD_LOCAL zd_inf_batch *bt,
                                           zd_u32 k, zd_u32 e, zd_u32 ne, zd_u32 chase) {
    if (bt->op == ZD_INF_OP_COPY) {
        const ZD_GLOBAL zd_u8 *from = src + bt->copy_src;
        zd_u64 n = bt->copy_n;
        if (o.cells == 0) {
            ZD_GLOBAL zd_u8 *to = o.dst + bt->copy_dst;
            for (zd_u64 i = e; i < n; i += ne) to[i] = from[i];
            return;
        }
        ZD_GLOBAL zd_u16 *to = o.cells + bt->copy_dst;
        zd_u64 i = e;
        /* eight loads in flight a writer: a stored block of incompressible data is 64 KiB, and in
           a split stream its segment may be nothing else */
        for (; i + 7u * ne < n; i += 8u * ne) {
            zd_u8 w[8];
            ZD_UNROLL
            for (zd_u32 u = 0; u < 8u; u++) w[u] = from[i + u * ne];
            ZD_UNROLL
            for (zd_u32 u = 0; u < 8u; u++) to[i + u * ne] = w[u];
        }
        for (; i < n; i += ne) to[i] = from[i];
        return;
    }
    zd_u32 nseg = bt->nseg;
    zd_u32 s0 = bt->seg_pos[k];
    zd_u32 s1 = k + 1u < nseg ? bt->seg_pos[k + 1u] : bt->batch_bytes;
    zd_u32 jf = bt->seg_first[k];
    zd_u32 jl = k + 1u < nseg ? bt->seg_first[k + 1u] : bt->nrec - 1u;
    for (zd_u32 x0 = s0 + e * ZD_INF_EXEC_CHUNK; x0 < s1; x0 += ne * ZD_INF_EXEC_CHUNK) {
        zd_u32 x1 = s1 - x0 < ZD_INF_EXEC_CHUNK ? s1 : x0 + ZD_INF_EXEC_CHUNK;
        zd_inf_exec_chunk_thread(o, bt, bt->base, s0, x0, x1, jf, jl, chase);
    }
}

/* A decoder state that reads from byte in0 and writes from out0 (of dst_len), up to the stop bit. */
ZD_INLINE void zd_inf_start_thread(zd_inf_state *st, zd_u64 src_len, zd_u64 in0, zd_u64 out0, zd_u64 dst_len,
                                   zd_u64 stop) {
    st->bb = 0u;
    st->nb = 0u;
    st->pad = 0u;
    st->in = in0;
    st->la = 0u;
    st->lb = 0u;
    st->nla = 0u;
    st->nlb = 0u;
    st->end = src_len;
    st->out = out0;
    st->out0 = out0;
    st->dst_len = dst_len;
    st->stop = stop;
    st->hstop = stop;
    st->hdr = ZD_INF_NO_STOP;
    st->mode = ZD_INF_M_HEADER;
    st->last = 0u;
    st->fixed = 0u;
    st->open = 0u;
    st->ldist = st->lmlen = st->lp = 0u; /* read only while a batch holds records; set for tidiness */
    st->chase = 0u;
}

/*
 * Cooperative: item 0 decodes from *st (its state; the others' copies are unused) while the other
 * items write each batch into o, until the decoder is done; lds->status and the ends say how it
 * went. The caller set an empty batch 1 (op EXEC, nseg 0) and a barrier before.
 */
ZD_INLINE void zd_inf_run_group(zd_inf_state *st, const ZD_GLOBAL zd_u8 *src, zd_inf_out o, ZD_LOCAL zd_inflate_lds *lds) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_u32 e0 = ls >= 64u ? 32u : ls > 1u ? 1u : 0u; /* the first writer */
    if (ZD_TAIL_BARRIER_OK(e0)) {
        /* The writers meet between segments at a barrier of their own, so item 0 decodes the
           whole next batch meanwhile and the group meets once a batch: a batch takes the longer
           of its decode and its writes. (With every item at every segment's barrier, item 0
           decoding ZD_INF_SLICE symbols a segment, the writers' latency a segment, times
           segments, was added to the decode: an H200 decoder alone took 117.5 ms for a 1 MiB
           chunk that its step function reads in 66.4.) No chase: with the decode off the
           writers' rounds it saved 4% of a decoder alone and cost registers (groups an SM). */
        st->chase = 0u;
        for (zd_u32 cur = 1;; cur ^= 1u) {
            ZD_LOCAL zd_inf_batch *bt = &lds->u.b[cur];
            if (bt->op == ZD_INF_OP_DONE) break;
            if (lid == 0u) {
                while (!zd_inflate_step_thread(st, src, lds, &lds->u.b[cur ^ 1u], 0xFFFFFFFFu)) {
                }
            } else if (lid >= e0) {
                zd_u32 nseg = bt->op == ZD_INF_OP_EXEC ? bt->nseg : 1u;
                for (zd_u32 k = 0; k < nseg; k++) {
                    if (k > 0u) ZD_TAIL_BARRIER(e0);
                    zd_inf_write_segment_thread(src, o, bt, k, lid - e0, ls - e0, 0u);
                }
            }
            ZD_BARRIER();
        }
        return;
    }
    st->chase = ZD_INF_CHASE;
    for (zd_u32 cur = 1;; cur ^= 1u) {
        ZD_LOCAL zd_inf_batch *bt = &lds->u.b[cur];
        if (bt->op == ZD_INF_OP_DONE) break;
        /* rounds 0 .. nseg - 1 write the segments; in the last, item 0 finishes the next batch */
        zd_u32 nseg = bt->op == ZD_INF_OP_EXEC ? bt->nseg : 1u, ready = 0u;
        for (zd_u32 k = 0; k <= nseg; k++) {
            if (lid == 0u && !ready)
                ready = zd_inflate_step_thread(st, src, lds, &lds->u.b[cur ^ 1u], k < nseg ? ZD_INF_SLICE : 0xFFFFFFFFu);
            if (k < nseg && lid >= e0) zd_inf_write_segment_thread(src, o, bt, k, lid - e0, ls - e0, ZD_INF_CHASE);
            ZD_BARRIER();
        }
    }
}

/*
 * Cooperative: decodes the raw deflate stream at src[in0 ..) (it may end before src_len) into
 * dst[out0 .. dst_len); distances may not reach before out0. Every item calls with the same
 * arguments; the status, *in_end (the byte after the stream's last) and *out_end (the byte
 * after its output) are valid on every item. A non-zero status leaves dst[out0 ..) undefined.
 */
ZD_FUNC zd_u32 zd_inflate_stream_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 in0, ZD_GLOBAL zd_u8 *dst,
                                       zd_u64 dst_len, zd_u64 out0, zd_u64 *in_end, zd_u64 *out_end,
                                       ZD_LOCAL zd_inflate_lds *lds) {
    zd_inf_state st;
    zd_inf_start_thread(&st, src_len, in0, out0, dst_len, ZD_INF_NO_STOP);
    if (zd_local_id() == 0u) { /* an empty batch 1 first: its one round decodes batch 0 */
        lds->u.b[1].op = ZD_INF_OP_EXEC;
        lds->u.b[1].nseg = 0u;
    }
    ZD_BARRIER();
    zd_inf_out o;
    o.dst = dst;
    o.cells = 0;
    o.cell0 = 0u;
    zd_inf_run_group(&st, src, o, lds);
    zd_u32 status = lds->status;
    *in_end = lds->in_end;
    *out_end = lds->out_end;
    ZD_BARRIER();
    return status;
}

/* Cooperative: raw deflate, src[0..src_len) exactly one stream of exactly dst_len bytes. */
ZD_FUNC zd_u32 zd_deflate_decode_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst,
                                       zd_u64 dst_len, ZD_LOCAL zd_inflate_lds *lds) {
    if (zd_local_size() > ZD_INF_MAX_ITEMS) return ZD_STATUS_GROUP_TOO_LARGE;
    zd_u64 in_end = 0, out_end = 0;
    zd_u32 s = zd_inflate_stream_group(src, src_len, 0u, dst, dst_len, 0u, &in_end, &out_end, lds);
    if (s != ZD_STATUS_OK) return s;
    if (out_end != dst_len) return ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW;
    if (in_end != src_len) return ZD_STATUS_CORRUPT_TRAILING_BYTES;
    return ZD_STATUS_OK;
}

#endif
