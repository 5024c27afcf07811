/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_mp_scan.h - pass 1 of the multi-pass zstd decoder (zd_zstd_mp.h): the frame and block headers,
 *   and where each block's tables are described and its literals and sequences go.
 */
#ifndef ZD_ZSTD_MP_SCAN_H
#define ZD_ZSTD_MP_SCAN_H

#include "zstd/zd_zstd_mp_layout.h"

/* Parses the literals section header at src[p .. end): lit type, regen, header length and the
   section's compressed size (Huffman: tree + streams). */
ZD_INLINE zd_u32 zd_mp_lit_header_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 p, zd_u64 end,
                                         zd_u64 block_max, zd_u32 *type, zd_u32 *hl_out, zd_u64 *regen,
                                         zd_u64 *csize, zd_u32 *nstreams) {
    zd_u64 avail = end - p;
    if (avail < 1u) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    zd_u32 b0 = src[p];
    zd_u32 t = b0 & 3u;
    zd_u32 sf = (b0 >> 2) & 3u;
    *type = t;
    if (t <= 1u) {
        zd_u32 hl = (sf == 1u) ? 2u : (sf == 3u ? 3u : 1u);
        if (avail < hl) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
        zd_u32 v = (zd_u32)zd_load_le_thread(src, src_len, p, hl);
        zd_u64 size = (hl == 1u) ? (v >> 3) : (v >> 4);
        if (size > block_max) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
        zd_u64 cs = t == 0u ? size : 1u;
        if (avail - hl < cs) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
        *hl_out = hl;
        *regen = size;
        *csize = cs;
        *nstreams = 0u;
        return ZD_STATUS_OK;
    }
    zd_u32 hl = sf <= 1u ? 3u : sf + 2u;
    zd_u32 nbits = sf <= 1u ? 10u : (sf == 2u ? 14u : 18u);
    if (avail < hl) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    zd_u64 v = zd_load_le_thread(src, src_len, p, hl);
    zd_u64 rg = (v >> 4) & zd_mask64(nbits);
    zd_u64 cs = (v >> (4u + nbits)) & zd_mask64(nbits);
    if (avail - hl < cs) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    if (rg > block_max) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    *hl_out = hl;
    *regen = rg;
    *csize = cs;
    *nstreams = sf == 0u ? 1u : 4u;
    return ZD_STATUS_OK;
}

/* Pass 1's local memory: each item's scratch for the FSE descriptions it measures (an item parses
   whole blocks, so at most ZD_MP_SCAN_ITEMS items take part), and what item 0's walk found. */
#define ZD_MP_SCAN_ITEMS 32u
typedef struct {
    zd_i16 norm[ZD_MP_SCAN_ITEMS][ZD_FSE_MAX_SYMBOLS];
    zd_u64 block_max;
    zd_u32 n_blocks, mode, fail;
} zd_mp_scan_lds;

/* A block's tab_mode between pass 1's block step and its link step: its own modes (3: repeat the
   last table) in bits 0-5, and whether its literals describe a Huffman tree or reuse the last. */
#define ZD_MP_SCAN_HUF_DEF 0x100u
#define ZD_MP_SCAN_HUF_REUSE 0x200u

/*
 * Pass 1a, item 0: the frame header and the chain of block headers. Each block's size says where
 * the next one starts, so this walk is serial, but it is one load a block: the parsing of each
 * block's sections (pass 1b) is spread over the group's items. Fills blk[i].in, size and type and
 * the chunk header; returns ZD_MP_MODE_RUN or ZD_MP_MODE_FALLBACK.
 */
ZD_FUNC zd_u32 zd_zstd_mp_scan_frame_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                            ZD_GLOBAL zd_u8 *scratch, zd_u32 *nb_out, zd_u64 *block_max_out) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES);
    zd_u64 slots = zd_zstd_mp_slots(dst_len, src_len);
    if (src_len < 6u || dst_len > 0x7FFFFFFFu) return ZD_MP_MODE_FALLBACK; /* offsets must fit 31 bits */
    if ((zd_u32)zd_load_le_thread(src, src_len, 0u, 4u) != ZD_ZSTD_MAGIC) return ZD_MP_MODE_FALLBACK;
    zd_zstd_fhdr fh;
    /* offsets must fit 31 bits: no window above 2^30 */
    if (zd_zstd_frame_header_thread(src, src_len, 0u, &fh) != ZD_STATUS_OK || fh.wlog > 30u) return ZD_MP_MODE_FALLBACK;
    if (fh.has_fcs && fh.fcs != dst_len) return ZD_MP_MODE_FALLBACK;
    zd_u64 block_max = zd_min_u64(fh.window, ZD_ZSTD_BLOCK_MAX);
    zd_u32 has_ck = fh.has_checksum;
    zd_u64 p = fh.end;
    zd_u32 nb = 0;
    zd_u32 last = 0u;
    while (!last) {
        if (src_len - p < 3u) return ZD_MP_MODE_FALLBACK;
        if ((zd_u64)nb >= slots) return ZD_MP_MODE_FALLBACK;
        zd_u32 bh = (zd_u32)zd_load_le_thread(src, src_len, p, 3u);
        p += 3u;
        last = bh & 1u;
        zd_u32 type = (bh >> 1) & 3u;
        zd_u64 size = bh >> 3;
        if (type == 3u || size > block_max) return ZD_MP_MODE_FALLBACK;
        zd_u64 span = type == 1u ? 1u : size; /* an RLE block stores its one byte */
        if (src_len - p < span) return ZD_MP_MODE_FALLBACK;
        blk[nb].in = p;
        blk[nb].size = (zd_u32)size;
        blk[nb].type = type;
        p += span;
        nb++;
    }
    if (has_ck) {
        if (src_len - p < 4u) return ZD_MP_MODE_FALLBACK;
        hdr->cksum_at = p;
        p += 4u;
    }
    if (p != src_len) return ZD_MP_MODE_FALLBACK; /* more frames, or garbage: single-pass */
    hdr->n_blocks = nb;
    hdr->has_checksum = has_ck;
    hdr->has_fcs = fh.has_fcs;
    hdr->fcs = fh.fcs;
    hdr->block_max = block_max;
    *nb_out = nb;
    *block_max_out = block_max;
    return ZD_MP_MODE_RUN;
}

/*
 * Pass 1b, any item, block bp (whose in, size and type pass 1a wrote): parses what the block
 * itself says - its literals section header and Huffman description's length, its sequence count
 * and the lengths of its FSE descriptions - and writes its record. What depends on the blocks
 * before it (tables it repeats, where its literals and sequences go) is left to pass 1c; the
 * record's tab_mode holds the block's own modes and ZD_MP_SCAN_HUF_* bits until then, its
 * huf_desc and tab_desc the descriptions it has itself.
 */
ZD_FUNC zd_u32 zd_zstd_mp_scan_block_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 block_max,
                                            ZD_GLOBAL zd_mp_block *bp, ZD_LOCAL zd_i16 *norm) {
    zd_mp_block b;
    b.in = bp->in;
    b.size = bp->size;
    b.type = bp->type;
    b.lit_in = 0u;
    b.lit_at = 0u;
    b.seq_at = 0u;
    b.huf_desc = 0u;
    b.bits_at = 0u;
    b.regen = 0u;
    b.nseq = 0u;
    b.lit_type = 0u;
    b.lit_len = 0u;
    b.nstreams = 0u;
    b.tab_mode = 0u;
    b.status = ZD_STATUS_OK;
    b.done = 0u;
    b.out_at = 0u;
    b.out_len = b.type == 2u ? 0u : b.size;
    b.lit_used = 0u;
    for (zd_u32 k = 0; k < 3u; k++) {
        b.tab_desc[k] = 0u;
        b.rep_out[k] = ZD_MP_SYM_OF(k);
        b.rep_in[k] = 0u;
    }
    if (b.type == 2u) {
        zd_u64 p = b.in, end = b.in + b.size;
        zd_u32 lt = 0, hl = 0, ns = 0;
        zd_u64 regen = 0, cs = 0;
        if (zd_mp_lit_header_thread(src, src_len, p, end, block_max, &lt, &hl, &regen, &cs, &ns) != ZD_STATUS_OK)
            return ZD_MP_MODE_FALLBACK;
        zd_u64 lp = p + hl;
        zd_u32 own = 0u;
        b.regen = (zd_u32)regen;
        b.lit_in = lp;
        if (lt == 0u) {
            b.lit_at = lp;
        } else {
            b.lit_type = lt == 1u ? 1u : 2u;
        }
        if (lt >= 2u) {
            zd_u64 rem = cs;
            if (lt == 2u) {
                /* Only the description's length here (pass 2 builds and checks the table):
                   FSE-compressed weights take headerByte bytes, direct ones 4 bits each. */
                if (rem < 1u) return ZD_MP_MODE_FALLBACK;
                zd_u32 hb = src[lp];
                zd_u64 used = 1u + (hb < 128u ? hb : (hb - 127u + 1u) / 2u);
                if (used > rem) return ZD_MP_MODE_FALLBACK;
                b.huf_desc = lp;
                own |= ZD_MP_SCAN_HUF_DEF;
                lp += used;
                rem -= used;
            } else {
                own |= ZD_MP_SCAN_HUF_REUSE;
            }
            b.lit_in = lp;
            b.lit_len = (zd_u32)rem;
            b.nstreams = ns;
            zd_u64 s1 = 0, s2 = 0, s3 = 0;
            if (ns == 4u && zd_zstd_jump_table_thread(src, src_len, lp, rem, regen, &s1, &s2, &s3) != ZD_STATUS_OK)
                return ZD_MP_MODE_FALLBACK;
        }
        zd_u64 s = p + hl + cs; /* sequences section */
        if (s >= end) return ZD_MP_MODE_FALLBACK;
        zd_u32 b0 = src[s];
        zd_u32 nseq;
        if (b0 < 128u) {
            nseq = b0;
            s += 1u;
        } else if (b0 < 255u) {
            if (end - s < 2u) return ZD_MP_MODE_FALLBACK;
            nseq = ((b0 - 128u) << 8) + src[s + 1u];
            s += 2u;
        } else {
            if (end - s < 3u) return ZD_MP_MODE_FALLBACK;
            nseq = src[s + 1u] + ((zd_u32)src[s + 2u] << 8) + 0x7F00u;
            s += 3u;
        }
        b.nseq = nseq;
        if (nseq == 0u) {
            if (s != end) return ZD_MP_MODE_FALLBACK;
        } else {
            if (nseq > ZD_ZSTD_MAX_SEQUENCES || s >= end) return ZD_MP_MODE_FALLBACK;
            zd_u32 modes = src[s];
            s += 1u;
            if (modes & 3u) return ZD_MP_MODE_FALLBACK;
            for (zd_u32 k = 0; k < 3u; k++) {
                zd_u32 m = (modes >> (6u - 2u * k)) & 3u; /* LL, OF, ML */
                own |= m << (2u * k);
                if (m == 3u) continue;
                zd_u64 used = 0;
                if (m == 1u) {
                    if (s >= end) return ZD_MP_MODE_FALLBACK;
                    used = 1u;
                } else if (m == 2u) {
                    zd_u32 log = 0, nsym = 0;
                    zd_u32 max_sym = k == 0u ? ZD_LL_MAX_SYM : (k == 1u ? ZD_OF_MAX_SYM : ZD_ML_MAX_SYM);
                    zd_u32 max_log = k == 0u ? ZD_LL_MAX_LOG : (k == 1u ? ZD_OF_MAX_LOG : ZD_ML_MAX_LOG);
                    if (zd_fse_read_ncount_thread(src + s, end - s, max_sym, max_log, norm, &log, &nsym, &used) !=
                        ZD_STATUS_OK)
                        return ZD_MP_MODE_FALLBACK;
                }
                b.tab_desc[k] = s;
                s += used;
            }
            if (s >= end) return ZD_MP_MODE_FALLBACK;
            b.bits_at = s;
        }
        b.tab_mode = own;
    }
    *bp = b;
    return ZD_MP_MODE_RUN;
}

/*
 * Pass 1c, item 0: what a block inherits from the blocks before it. Treeless literals take the
 * last Huffman description, a repeat mode the last table of its kind; decoded literals and
 * sequences go one block after another in the chunk's scratch (running sums). Loads a few fields
 * a block from the records pass 1b just wrote.
 */
ZD_FUNC zd_u32 zd_zstd_mp_scan_link_thread(ZD_GLOBAL zd_mp_block *blk, zd_u32 nb, zd_u64 lit_cap, zd_u64 seq_cap) {
    zd_u64 lit_cur = 0, seq_cur = 0, huf_desc = 0;
    zd_u32 huf_ok = 0u, tab_ok = 0u, tab_mode = 0u;
    zd_u64 tab_desc[3] = {0u, 0u, 0u};
    for (zd_u32 i = 0; i < nb; i++) {
        ZD_GLOBAL zd_mp_block *b = blk + i;
        zd_u32 own = b->tab_mode;
        zd_u32 nseq = b->nseq;
        if (own & ZD_MP_SCAN_HUF_DEF) {
            huf_desc = b->huf_desc;
            huf_ok = 1u;
        } else if ((own & ZD_MP_SCAN_HUF_REUSE) && !huf_ok) {
            return ZD_MP_MODE_FALLBACK;
        }
        b->huf_desc = huf_desc;
        if (b->lit_type != 0u) {
            b->lit_at = lit_cur;
            lit_cur += b->regen;
        }
        b->seq_at = seq_cur;
        if (nseq == 0u) {
            b->tab_mode = 0u;
            continue;
        }
        for (zd_u32 k = 0; k < 3u; k++) {
            zd_u32 m = (own >> (2u * k)) & 3u;
            if (m == 3u) {
                if ((tab_ok & (1u << k)) == 0u) return ZD_MP_MODE_FALLBACK;
            } else {
                tab_desc[k] = b->tab_desc[k];
                tab_mode = (tab_mode & ~(3u << (2u * k))) | (m << (2u * k));
                tab_ok |= 1u << k;
            }
            b->tab_desc[k] = tab_desc[k];
        }
        b->tab_mode = tab_mode;
        seq_cur += nseq;
    }
    /* the sums only grow: checking the totals checks every block */
    if (lit_cur > lit_cap || seq_cur > seq_cap) return ZD_MP_MODE_FALLBACK;
    return ZD_MP_MODE_RUN;
}

/* Pass 1, cooperative: every item calls. `first`: this is chunk 0, whose header holds the batch's
   pass 3 counters. Fills the chunk header and block table; the mode is ZD_MP_MODE_RUN or
   ZD_MP_MODE_FALLBACK. */
ZD_FUNC void zd_zstd_mp_scan_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                   ZD_GLOBAL zd_u8 *scratch, zd_u32 first, ZD_LOCAL zd_mp_scan_lds *lds) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES);
    zd_u32 lid = zd_local_id();
    if (lid == 0u) {
        zd_u32 nb = 0u;
        zd_u64 block_max = 0u;
        lds->mode = zd_zstd_mp_scan_frame_thread(src, src_len, dst_len, scratch, &nb, &block_max);
        lds->n_blocks = nb;
        lds->block_max = block_max;
        lds->fail = 0u;
    }
    ZD_BARRIER();
    zd_u32 items = zd_local_size() < ZD_MP_SCAN_ITEMS ? zd_local_size() : ZD_MP_SCAN_ITEMS;
    if (lds->mode == ZD_MP_MODE_RUN && lid < items) {
        zd_u32 nb = lds->n_blocks;
        zd_u64 block_max = lds->block_max;
        for (zd_u32 i = lid; i < nb; i += items)
            if (zd_zstd_mp_scan_block_thread(src, src_len, block_max, blk + i, lds->norm[lid]) != ZD_MP_MODE_RUN) {
                lds->fail = 1u;
                break;
            }
    }
    ZD_BARRIER();
    if (lid == 0u) {
        zd_u32 m = lds->mode;
        if (m == ZD_MP_MODE_RUN && lds->fail) m = ZD_MP_MODE_FALLBACK;
        if (m == ZD_MP_MODE_RUN)
            m = zd_zstd_mp_scan_link_thread(blk, lds->n_blocks, zd_zstd_mp_lit_bytes(dst_len),
                                            zd_zstd_mp_max_seq(dst_len));
        hdr->mode = m;
        hdr->failed = 0u;
        hdr->resolved = 0u;
        if (m != ZD_MP_MODE_RUN) hdr->n_blocks = 0u;
        if (first) {
            hdr->ticket = 0u;
            hdr->max_blocks = 0u;
            hdr->seq_ticket = 0u;
            hdr->seq_blocks = 0u;
        }
    }
}

#endif
