/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_mp_seqs.h - pass 2b of the multi-pass zstd decoder (zd_zstd_mp.h): the sequences of large blocks,
 *   a block an item (with the sequence records of pass 2).
 */
#ifndef ZD_ZSTD_MP_SEQS_H
#define ZD_ZSTD_MP_SEQS_H

#include "zstd/zd_zstd_mp_entropy.h"

/* ---------------------------------------------------------------- pass 2b
 * The sequences of large blocks, a block an item. Pass 2's loop is one item's serial chain, and
 * a chain's step costs about a hundred dependent instructions whatever the group's width, so
 * the pass's rate is (chains a multiprocessor) / (a step's latency). Here each item keeps its
 * own three tables in shared memory in compact cells (half of zd_fse_cell: twice the chains a
 * multiprocessor), and the launch chooses how many items of a warp decode (`lanes`): items of
 * one warp run every path any of them takes, so fewer lanes a warp shorten a step, more warps
 * a multiprocessor keep the schedulers busy.
 *
 * A compact cell holds the symbol (bits 0-5) and the state counter ns of RFC 8878's table build
 * (bits 6-15; ns < 2 * size <= 1024): the loop derives Num_Bits = log - highbit(ns) and the
 * next state's baseline (ns << Num_Bits) - size. A symbol's code (value baseline and extra bits)
 * comes from a table the group shares (zd_mp_seq_codes).
 */
#define ZD_MPS_SYM(c) ((c) & 63u)
#define ZD_MPS_NS(c) ((c) >> 6)

/* Local memory of one pass 2b item: its tables, and the build's counts. An odd number of 32-bit
   words, so that items in the same state (an RLE table has one) read different banks. */
typedef struct {
    zd_u16 ll[1u << ZD_LL_MAX_LOG];
    zd_u16 ml[1u << ZD_ML_MAX_LOG];
    zd_u16 of[1u << ZD_OF_MAX_LOG];
    zd_i16 norm[ZD_FSE_MAX_SYMBOLS];
    zd_u16 next[ZD_FSE_MAX_SYMBOLS];
    zd_u16 pad[2];
} zd_mp_seq_lds;
ZD_STATIC_ASSERT(sizeof(zd_mp_seq_lds) == 2820u, zd_mp_seq_lds_is_2820_bytes); /* MultiPassLaunch.SEQ_LDS_BYTES */

/* The literal and match length codes as (value baseline << 5) | extra bits, shared by a group's
   items (one shared load where __constant__ loads serialise when the items' codes differ). */
typedef struct {
    zd_u32 ll[ZD_LL_MAX_SYM + 1u];
    zd_u32 ml[ZD_ML_MAX_SYM + 1u];
} zd_mp_seq_codes;
#define ZD_MP_SEQ_CODES_BYTES 368u /* sizeof(zd_mp_seq_codes) rounded up to 16: the items' tables follow */
ZD_STATIC_ASSERT(sizeof(zd_mp_seq_codes) <= ZD_MP_SEQ_CODES_BYTES, zd_mp_seq_codes_fit);

/* Fills the code table, as item lid of ls (the items meet at a barrier before they use it). */
ZD_INLINE void zd_mp_seq_codes_items(ZD_LOCAL zd_mp_seq_codes *c, zd_u32 lid, zd_u32 ls) {
    for (zd_u32 i = lid; i <= ZD_LL_MAX_SYM + ZD_ML_MAX_SYM + 1u; i += ls) {
        if (i <= ZD_LL_MAX_SYM)
            c->ll[i] = (zd_ll_base[i] << 5) | zd_ll_bits[i];
        else
            c->ml[i - ZD_LL_MAX_SYM - 1u] =
                (zd_ml_base[i - ZD_LL_MAX_SYM - 1u] << 5) | zd_ml_bits[i - ZD_LL_MAX_SYM - 1u];
    }
}

/* Builds table k (0 LL, 1 OF, 2 ML) of compact cells from its recorded description (the same
   modes and checks as zd_mp_build_fse_thread, the same spread as zd_fse_build_thread). */
ZD_FUNC zd_u32 zd_mp_build_seq_table_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u32 k, zd_u32 mode,
                                            zd_u64 at, ZD_LOCAL zd_u16 *t, ZD_LOCAL zd_mp_seq_lds *lds,
                                            zd_u32 *log_out) {
    zd_u32 max_sym = k == 0u ? ZD_LL_MAX_SYM : (k == 1u ? ZD_OF_MAX_SYM : ZD_ML_MAX_SYM);
    zd_u32 max_log = k == 0u ? ZD_LL_MAX_LOG : (k == 1u ? ZD_OF_MAX_LOG : ZD_ML_MAX_LOG);
    ZD_LOCAL zd_i16 *norm = lds->norm;
    ZD_LOCAL zd_u16 *next = lds->next;
    zd_u32 log = 0u, nsym = 0u;
    if (mode == 0u) {
        nsym = k == 0u ? 36u : (k == 1u ? 29u : 53u);
        log = k == 1u ? 5u : 6u;
        for (zd_u32 i = 0; i < nsym; i++)
            norm[i] = k == 0u ? zd_ll_default_norm[i] : (k == 1u ? zd_of_default_norm[i] : zd_ml_default_norm[i]);
    } else if (mode == 1u) {
        if (at >= src_len) return ZD_STATUS_CORRUPT_FSE_TABLE;
        zd_u32 sym = src[at];
        if (sym > max_sym) return ZD_STATUS_CORRUPT_FSE_TABLE;
        t[0] = (zd_u16)(sym | (1u << 6)); /* log 0: no bits, baseline 0 */
        *log_out = 0u;
        return ZD_STATUS_OK;
    } else {
        zd_u64 used = 0;
        if (at >= src_len) return ZD_STATUS_CORRUPT_FSE_TABLE;
        if (zd_fse_read_ncount_thread(src + at, src_len - at, max_sym, max_log, norm, &log, &nsym, &used) !=
            ZD_STATUS_OK)
            return ZD_STATUS_CORRUPT_FSE_TABLE;
    }
    zd_u32 size = 1u << log, total = 0u, high = size - 1u;
    for (zd_u32 s = 0; s < nsym; s++) total += (zd_u32)(norm[s] < 0 ? 1 : norm[s]);
    if (total != size) return ZD_STATUS_CORRUPT_FSE_TABLE;
    for (zd_u32 s = 0; s < nsym; s++) {
        if (norm[s] == -1) {
            t[high] = (zd_u16)s; /* "less than 1" symbols fill the table from the end */
            high--;
            next[s] = 1u;
        } else {
            next[s] = (zd_u16)norm[s];
        }
    }
    zd_u32 step = (size >> 1) + (size >> 3) + 3u, mask = size - 1u, pos = 0u;
    for (zd_u32 s = 0; s < nsym; s++) {
        zd_i32 cnt = norm[s];
        for (zd_i32 i = 0; i < cnt; i++) {
            t[pos] = (zd_u16)s;
            do {
                pos = (pos + step) & mask;
            } while (pos > high);
        }
    }
    if (pos != 0u) return ZD_STATUS_CORRUPT_FSE_TABLE;
    for (zd_u32 u = 0; u < size; u++) {
        zd_u32 s = t[u];
        zd_u32 ns = next[s];
        next[s] = (zd_u16)(ns + 1u);
        t[u] = (zd_u16)(s | (ns << 6));
    }
    *log_out = log;
    return ZD_STATUS_OK;
}

/* The aligned 8-byte words around a pass 2b item's container: lo and hi hold the container's
   bytes, pre the word below them, loaded one reload ahead (the stream is read downwards), so a
   reload shifts registers instead of waiting on memory. wa: lo's address (NULL: none yet). */
typedef struct {
    const ZD_GLOBAL zd_u64 *wa;
    zd_u64 lo, hi, pre;
} zd_mp_bw_words;

/* zd_bwdf_reload_thread from the words, while they lie inside the frame: the 16 bytes from the
   container's first byte are in the stream, and the 7 before a stream's start belong to its
   frame (block and frame headers precede every sequence bitstream); elsewhere (a stream's last
   16 bytes, read first) the byte loads. Little-endian devices only (CUDA; the host tests). */
ZD_INLINE void zd_mp_bw_reload(zd_bwdf_bits *r, zd_mp_bw_words *w) {
    if (r->pos >= 64) {
        zd_u32 cb = ((zd_u32)r->pos - 56u) >> 3;
        if (cb + 16u <= r->len) {
            const ZD_GLOBAL zd_u8 *q = r->p + cb;
            zd_u32 sh = (zd_u32)((size_t)q & 7u);
            const ZD_GLOBAL zd_u64 *na = (const ZD_GLOBAL zd_u64 *)(q - sh);
            if (na != w->wa) {
                if (w->wa != NULL && na == w->wa - 1) {
                    /* one word down: pre was loaded (na is at or above the stream's start - 7) */
                    w->hi = w->lo;
                    w->lo = w->pre;
                } else {
                    w->lo = na[0];
                    w->hi = na[1];
                }
                w->wa = na;
                w->pre = (const ZD_GLOBAL zd_u8 *)(na - 1) + 7 >= r->p ? na[-1] : 0u;
            }
            sh *= 8u;
            r->c = sh != 0u ? (w->lo >> sh) | (w->hi << (64u - sh)) : w->lo;
            r->cbits = (zd_i32)(cb << 3);
            return;
        }
    }
    zd_bwdf_reload_thread(r);
}
ZD_INLINE void zd_mp_bw_refill(zd_bwdf_bits *r, zd_mp_bw_words *w, zd_i32 need) {
    if (r->pos - r->cbits < need && r->cbits != 0) zd_mp_bw_reload(r, w);
}

/*
 * Pass 2b, one item: decodes the sequences of block `b` of a chunk whose literals pass 2 decoded
 * with the same seq_min (nothing to do for a block of fewer sequences, a failed one, or one that
 * is not a compressed block of a chunk in ZD_MP_MODE_RUN). Same sequences, repeat offsets and
 * checks as pass 2's loop (zd_zstd_mp_entropy_items); a change to one must be made to the other.
 */
ZD_FUNC void zd_zstd_mp_sequences_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                         ZD_GLOBAL zd_u8 *scratch, zd_u32 b, zd_u32 seq_min,
                                         ZD_LOCAL zd_mp_seq_lds *lds, const ZD_LOCAL zd_mp_seq_codes *codes) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    if (hdr->mode != ZD_MP_MODE_RUN || b >= hdr->n_blocks) return;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES) + b;
    if (blk->type != 2u || blk->nseq < seq_min || blk->nseq == 0u || blk->status != ZD_STATUS_OK) return;
    ZD_GLOBAL zd_u32 *out = (ZD_GLOBAL zd_u32 *)(scratch + zd_zstd_mp_seq_off(dst_len, src_len)) + 3u * blk->seq_at;
    zd_u32 nseq = blk->nseq, regen = blk->regen;
    zd_u64 end = blk->in + blk->size;
    zd_u32 status = ZD_STATUS_OK, logs[3] = {0u, 0u, 0u};
    for (zd_u32 k = 0; k < 3u && status == ZD_STATUS_OK; k++)
        status = zd_mp_build_seq_table_thread(src, src_len, k, (blk->tab_mode >> (2u * k)) & 3u, blk->tab_desc[k],
                                              k == 0u ? lds->ll : (k == 1u ? lds->of : lds->ml), lds, &logs[k]);
    zd_u32 r1 = ZD_MP_SYM_OF(0), r2 = ZD_MP_SYM_OF(1), r3 = ZD_MP_SYM_OF(2), bad = 0u;
    zd_u64 lsum = 0u, tsum = 0u;
    zd_bwdf_bits br;
    zd_mp_bw_words bw = {NULL, 0u, 0u, 0u};
    if (status == ZD_STATUS_OK && zd_bwdf_init_thread(&br, src + blk->bits_at, end - blk->bits_at) != 0)
        status = ZD_STATUS_CORRUPT_SEQUENCES;
    if (status == ZD_STATUS_OK) {
        /* Num_Bits = log - highbit(ns) = (log + clz(ns)) - 31: the 31 goes into the logs */
        zd_u32 lgl = logs[0] - 31u, lgo = logs[1] - 31u, lgm = logs[2] - 31u;
        zd_u32 szl = 1u << logs[0], szo = 1u << logs[1], szm = 1u << logs[2];
        zd_u32 s_ll = zd_bwdf_read_thread(&br, logs[0]);
        zd_u32 s_of = zd_bwdf_read_thread(&br, logs[1]);
        zd_u32 s_ml = zd_bwdf_read_thread(&br, logs[2]);
        for (zd_u32 i = 0; i < nseq; i++) {
            zd_u32 cl = lds->ll[s_ll], cm = lds->ml[s_ml], co = lds->of[s_of];
            zd_u32 wl = codes->ll[ZD_MPS_SYM(cl)], wm = codes->ml[ZD_MPS_SYM(cm)];
            zd_u32 ofc = ZD_MPS_SYM(co), mlb = wm & 31u, llb = wl & 31u;
            zd_u32 nsl = ZD_MPS_NS(cl), nsm = ZD_MPS_NS(cm), nso = ZD_MPS_NS(co);
            zd_u32 nbl = lgl + (31u - zd_highbit32(nsl)), nbm = lgm + (31u - zd_highbit32(nsm));
            zd_u32 nbo = lgo + (31u - zd_highbit32(nso));
            zd_u32 need = ofc + mlb + llb + nbl + nbm + nbo;
            zd_u32 ofv, ml, ll;
            if (need <= 56u) zd_mp_bw_refill(&br, &bw, (zd_i32)need);
            zd_i32 avail = br.pos - br.cbits;
            if (need <= 56u && avail >= (zd_i32)need) {
                /* every bit of this sequence is in the container (no overrun) */
                zd_u64 c = br.c;
                zd_u32 a = (zd_u32)avail;
                ofv = (1u << ofc) + zd_mp_take_bits(c, &a, ofc);
                ml = (wm >> 5) + zd_mp_take_bits(c, &a, mlb);
                ll = (wl >> 5) + zd_mp_take_bits(c, &a, llb);
                out = zd_mp_seq_record(out, ll, ml, ofv, &r1, &r2, &r3, &bad, &lsum, &tsum);
                br.pos -= (zd_i32)(ofc + mlb + llb);
                if (i + 1u < nseq) {
                    s_ll = (nsl << nbl) - szl + zd_mp_take_bits(c, &a, nbl);
                    s_ml = (nsm << nbm) - szm + zd_mp_take_bits(c, &a, nbm);
                    s_of = (nso << nbo) - szo + zd_mp_take_bits(c, &a, nbo);
                    br.pos -= (zd_i32)(nbl + nbm + nbo);
                }
                continue;
            }
            zd_mp_bw_refill(&br, &bw, (zd_i32)(ofc + mlb));
            ofv = (1u << ofc) + zd_bwdf_read_thread(&br, ofc);
            ml = (wm >> 5) + zd_bwdf_read_thread(&br, mlb);
            zd_mp_bw_refill(&br, &bw, (zd_i32)(llb + nbl + nbm + nbo));
            ll = (wl >> 5) + zd_bwdf_read_thread(&br, llb);
            if (br.pos < 0) {
                status = ZD_STATUS_CORRUPT_SEQUENCES;
                break;
            }
            out = zd_mp_seq_record(out, ll, ml, ofv, &r1, &r2, &r3, &bad, &lsum, &tsum);
            if (i + 1u < nseq) {
                s_ll = (nsl << nbl) - szl + zd_bwdf_read_thread(&br, nbl);
                s_ml = (nsm << nbm) - szm + zd_bwdf_read_thread(&br, nbm);
                s_of = (nso << nbo) - szo + zd_bwdf_read_thread(&br, nbo);
            }
        }
        if (status == ZD_STATUS_OK && br.pos != 0) status = ZD_STATUS_CORRUPT_SEQUENCES;
    }
    zd_mp_block_close(blk, hdr, regen, status, bad, lsum, tsum, r1, r2, r3);
}

#endif
