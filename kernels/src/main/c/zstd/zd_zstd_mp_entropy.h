/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_mp_entropy.h - pass 2 of the multi-pass zstd decoder (zd_zstd_mp.h): a block's tables rebuilt, its
 *   literals and sequences decoded, repeat offsets kept symbolic.
 */
#ifndef ZD_ZSTD_MP_ENTROPY_H
#define ZD_ZSTD_MP_ENTROPY_H

#include "zstd/zd_zstd_mp_layout.h"

/* An FSE table's normalized counts and spread state while it is built. */
typedef struct {
    zd_i16 norm[ZD_FSE_MAX_SYMBOLS];
    zd_u16 next[ZD_FSE_MAX_SYMBOLS];
} zd_mp_fse_tmp;

/* Pass 2 local memory: one block's tables, small enough for many groups per multiprocessor
   (the entropy work is one item's serial chain: occupancy is what hides its latency). The
   literals are decoded before the sequence tables are built, so the Huffman table (with its
   symbols' first cells, for the items' fill) and the three FSE tables share their space (6 KiB
   instead of 10: 32 groups per H200 multiprocessor, its limit, instead of 22). */
typedef struct {
    union {
        struct {
            zd_huf_cell cells[ZD_HUF_TABLE_SIZE];
            zd_u16 start[256];
        } huf;
        struct {
            zd_fse_cell ll[1u << ZD_LL_MAX_LOG];
            zd_fse_cell ml[1u << ZD_ML_MAX_LOG];
            zd_fse_cell of[1u << ZD_OF_MAX_LOG];
        } fse;
    } t;
    /* the Huffman weights' scratch, then that of two of the FSE tables, built beside the first */
    union {
        struct {
            zd_fse_cell hufw[1u << ZD_HUFW_MAX_LOG];
            zd_u8 weights[256];
        } h;
        zd_mp_fse_tmp fse[2];
    } w;
    zd_mp_fse_tmp fse0;
    zd_u64 hs_in[4], hs_len[4], hs_out[4], hs_n[4];
    zd_u32 hs_status[4];
    zd_u32 fse_status[3], fse_log[3];
    zd_u32 status, hs_count, op_byte, nsyms;
} zd_mp_entropy_lds;

/* Builds the FSE table of kind k (0 LL, 1 OF, 2 ML) from its recorded description (scratch: tmp). */
ZD_FUNC zd_u32 zd_mp_build_fse_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u32 k, zd_u32 mode, zd_u64 at,
                                      zd_u64 end, ZD_LOCAL zd_fse_cell *t, ZD_LOCAL zd_mp_fse_tmp *tmp,
                                      zd_u32 *log_out) {
    zd_u32 max_sym = k == 0u ? ZD_LL_MAX_SYM : (k == 1u ? ZD_OF_MAX_SYM : ZD_ML_MAX_SYM);
    zd_u32 max_log = k == 0u ? ZD_LL_MAX_LOG : (k == 1u ? ZD_OF_MAX_LOG : ZD_ML_MAX_LOG);
    zd_u32 log = 0;
    if (mode == 0u) {
        zd_u32 n = k == 0u ? 36u : (k == 1u ? 29u : 53u);
        log = k == 1u ? 5u : 6u;
        for (zd_u32 i = 0; i < n; i++)
            tmp->norm[i] = k == 0u ? zd_ll_default_norm[i] : (k == 1u ? zd_of_default_norm[i] : zd_ml_default_norm[i]);
        if (zd_fse_build_thread(t, tmp->norm, n, log, tmp->next) != ZD_STATUS_OK) return ZD_STATUS_CORRUPT_FSE_TABLE;
    } else if (mode == 1u) {
        if (at >= src_len) return ZD_STATUS_CORRUPT_FSE_TABLE;
        zd_u32 sym = src[at];
        if (sym > max_sym) return ZD_STATUS_CORRUPT_FSE_TABLE;
        zd_fse_build_rle_thread(t, sym);
    } else {
        zd_u32 nsym = 0;
        zd_u64 used = 0;
        if (at >= end) return ZD_STATUS_CORRUPT_FSE_TABLE;
        if (zd_fse_read_ncount_thread(src + at, end - at, max_sym, max_log, tmp->norm, &log, &nsym, &used) !=
            ZD_STATUS_OK)
            return ZD_STATUS_CORRUPT_FSE_TABLE;
        if (zd_fse_build_thread(t, tmp->norm, nsym, log, tmp->next) != ZD_STATUS_OK) return ZD_STATUS_CORRUPT_FSE_TABLE;
    }
    *log_out = log;
    return ZD_STATUS_OK;
}

/* Repeat-offset bookkeeping of one sequence (RFC 8878 3.1.1.5) on ZD_MP_SYM values; returns
   the sequence's offset in the same form and sets *bad for an offset that does not fit. */
ZD_INLINE zd_u32 zd_mp_seq_offset(zd_u32 ofv, zd_u32 ll, zd_u32 *r1, zd_u32 *r2, zd_u32 *r3, zd_u32 *bad) {
    zd_u32 off;
    if (ofv > 3u) {
        off = ofv - 3u;
        if (off & ZD_MP_SYM) *bad = 1u;
        *r3 = *r2;
        *r2 = *r1;
        *r1 = off;
        return off;
    }
    zd_u32 idx = ofv - 1u + (ll == 0u ? 1u : 0u);
    if (idx == 0u) return *r1;
    off = idx == 1u ? *r2 : (idx == 2u ? *r3 : zd_mp_rep_dec(*r1));
    if (idx != 1u) *r3 = *r2;
    *r2 = *r1;
    *r1 = off;
    return off;
}

/* The n (< 32) bits of container c just below bit *a, which moves down past them: the fields of a
   sequence whose bits are all in the container, read without a refill (pass 2's and pass 2b's
   fast paths). */
ZD_INLINE zd_u32 zd_mp_take_bits(zd_u64 c, zd_u32 *a, zd_u32 n) {
    *a -= n;
    return (zd_u32)(c >> *a) & ((1u << n) - 1u);
}

/* Stores one decoded sequence (literal length, match length, offset after the repeat-offset
   bookkeeping) for pass 3 and adds it to the block's sums; returns the next store position.
   Shared by pass 2's and pass 2b's loops. */
ZD_INLINE ZD_GLOBAL zd_u32 *zd_mp_seq_record(ZD_GLOBAL zd_u32 *out, zd_u32 ll, zd_u32 ml, zd_u32 ofv, zd_u32 *r1,
                                             zd_u32 *r2, zd_u32 *r3, zd_u32 *bad, zd_u64 *lsum, zd_u64 *tsum) {
    out[0] = ll;
    out[1] = ml;
    out[2] = zd_mp_seq_offset(ofv, ll, r1, r2, r3, bad);
    *lsum += ll;
    *tsum += (zd_u64)ll + ml;
    return out + 3;
}

/* The end of a block's pass 2 (or 2b): lengths checked as sums (any violation falls back, where
   the single-pass decoder finds the exact status; offsets are checked when pass 3 resolves
   them), then the block's results for the link pass. */
ZD_INLINE void zd_mp_block_close(ZD_GLOBAL zd_mp_block *blk, const ZD_GLOBAL zd_mp_hdr *hdr, zd_u32 regen,
                                 zd_u32 status, zd_u32 bad, zd_u64 lsum, zd_u64 tsum, zd_u32 r1, zd_u32 r2, zd_u32 r3) {
    zd_u64 out_len = tsum + (zd_u64)regen - lsum;
    if (status == ZD_STATUS_OK && (bad || lsum > regen || out_len > hdr->block_max))
        status = ZD_STATUS_CORRUPT_SEQUENCES;
    blk->lit_used = (zd_u32)lsum;
    blk->out_len = status == ZD_STATUS_OK ? (zd_u32)out_len : 0u;
    blk->rep_out[0] = r1;
    blk->rep_out[1] = r2;
    blk->rep_out[2] = r3;
    blk->status = status;
}

/*
 * Pass 2: decodes block `b` of a chunk (literals and sequences) into scratch, as item `lid` of
 * `ls` items that all call with the same arguments (ls = 1: one item alone, no barrier). With
 * `active` 0, or when the slot is not a compressed block of a chunk in ZD_MP_MODE_RUN, the items
 * do nothing but still pass the same barriers: the CUDA pairs kernel runs two of these side by
 * side in one group, and both halves must meet every __syncthreads. Writes blk->status.
 * With `seq_min` > 0, a block of at least seq_min sequences gets only its literals here (and its
 * status so far); pass 2b decodes its sequences, for blocks up to ctl->seq_blocks (ctl: chunk
 * 0's header).
 */
ZD_FUNC void zd_zstd_mp_entropy_items(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                      ZD_GLOBAL zd_u8 *scratch, zd_u32 b, ZD_LOCAL zd_mp_entropy_lds *lds, zd_u32 lid,
                                      zd_u32 ls, zd_u32 active, zd_u32 seq_min, ZD_GLOBAL zd_mp_hdr *ctl) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES) + b;
    if (active) active = hdr->mode == ZD_MP_MODE_RUN && b < hdr->n_blocks && blk->type == 2u;
    ZD_GLOBAL zd_u8 *lit = scratch + zd_zstd_mp_lit_off(dst_len, src_len);
    ZD_GLOBAL zd_u32 *seqs = (ZD_GLOBAL zd_u32 *)(scratch + zd_zstd_mp_seq_off(dst_len, src_len));
    zd_u64 end = active ? blk->in + blk->size : 0u;
    zd_u32 regen = active ? blk->regen : 0u;
    if (lid == 0u && active) {
        lds->status = ZD_STATUS_OK;
        lds->hs_count = 0u;
        if (blk->lit_type == 2u) {
            zd_u32 mb = 0;
            zd_u64 used = 0;
            zd_u64 hd = blk->huf_desc;
            zd_u32 ns = 0;
            zd_u32 s = hd < src_len ? zd_huf_read_weights_thread(src + hd, src_len - hd, lds->w.h.weights,
                                                                 lds->w.h.hufw, lds->fse0.norm, lds->fse0.next, &mb,
                                                                 &ns, &used)
                                    : ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
            if (s == ZD_STATUS_OK) zd_huf_starts_thread(lds->w.h.weights, ns, lds->t.huf.start);
            lds->nsyms = ns;
            if (s != ZD_STATUS_OK) {
                lds->status = ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
            } else {
                zd_u64 p = blk->lit_in, rem = blk->lit_len;
                zd_u64 obase = blk->lit_at;
                if (blk->nstreams == 1u) {
                    lds->hs_in[0] = p;
                    lds->hs_len[0] = rem;
                    lds->hs_out[0] = obase;
                    lds->hs_n[0] = regen;
                    lds->hs_count = 1u;
                } else {
                    zd_u64 s1 = zd_load_le_thread(src, src_len, p, 2u);
                    zd_u64 s2 = zd_load_le_thread(src, src_len, p + 2u, 2u);
                    zd_u64 s3 = zd_load_le_thread(src, src_len, p + 4u, 2u);
                    zd_u64 seg = ((zd_u64)regen + 3u) / 4u;
                    lds->hs_in[0] = p + 6u;
                    lds->hs_len[0] = s1;
                    lds->hs_in[1] = p + 6u + s1;
                    lds->hs_len[1] = s2;
                    lds->hs_in[2] = p + 6u + s1 + s2;
                    lds->hs_len[2] = s3;
                    lds->hs_in[3] = p + 6u + s1 + s2 + s3;
                    lds->hs_len[3] = rem - 6u - s1 - s2 - s3;
                    for (zd_u32 k = 0; k < 4u; k++) {
                        lds->hs_out[k] = obase + k * seg;
                        lds->hs_n[k] = k < 3u ? seg : regen - 3u * seg;
                    }
                    lds->hs_count = 4u;
                }
                lds->op_byte = mb;
            }
        } else if (blk->lit_type == 1u) {
            lds->op_byte = src[blk->lit_in];
        }
    }
    if (ls > 1u) ZD_BARRIER();
    /* the table's cells by all items (one alone took about as long as a 16 KiB block's streams) */
    if (active && blk->lit_type == 2u && lds->hs_count > 0u)
        zd_huf_fill_items(lds->t.huf.cells, lds->w.h.weights, lds->nsyms, lds->t.huf.start, lds->op_byte, lid, ls);
    if (ls > 1u) ZD_BARRIER();
    if (!active) {
    } else if (blk->lit_type == 2u) {
        for (zd_u32 k = lid; k < lds->hs_count; k += ls) {
            lds->hs_status[k] = zd_huf_decode_stream_thread(lds->t.huf.cells, lds->op_byte, src + lds->hs_in[k],
                                                            lds->hs_len[k], lit + lds->hs_out[k], lds->hs_n[k]);
        }
    } else if (blk->lit_type == 1u) {
        zd_u8 v = (zd_u8)lds->op_byte;
        ZD_GLOBAL zd_u8 *to = lit + blk->lit_at;
        for (zd_u32 i = lid; i < regen; i += ls) to[i] = v;
    }
    if (ls > 1u) ZD_BARRIER();
    zd_u32 status = ZD_STATUS_OK;
    if (active) {
        status = lds->status;
        if (status == ZD_STATUS_OK && blk->lit_type == 2u) {
            for (zd_u32 k = 0; k < lds->hs_count; k++)
                if (lds->hs_status[k] != ZD_STATUS_OK) status = lds->hs_status[k];
        }
    }
    zd_u32 nseq = active ? blk->nseq : 0u;
    zd_u32 elsewhere = seq_min != 0u && nseq >= seq_min;
    /* the three tables by three items at once (item 0 alone spent about a tenth of the pass on
       them at level 3, where blocks have ~90 sequences) */
    if (status == ZD_STATUS_OK && nseq > 0u && !elsewhere) {
        for (zd_u32 k = lid; k < 3u; k += ls) {
            zd_u32 log = 0u;
            lds->fse_status[k] = zd_mp_build_fse_thread(src, src_len, k, (blk->tab_mode >> (2u * k)) & 3u,
                                                        blk->tab_desc[k], src_len,
                                                        k == 0u ? lds->t.fse.ll : (k == 1u ? lds->t.fse.of : lds->t.fse.ml),
                                                        k == 0u ? &lds->fse0 : &lds->w.fse[k - 1u], &log);
            lds->fse_log[k] = log;
        }
    }
    if (ls > 1u) ZD_BARRIER();
    if (lid != 0u || !active) return;
    if (elsewhere) {
        blk->status = status;
        if (status == ZD_STATUS_OK) zd_atomic_max_u32(&ctl->seq_blocks, b + 1u);
        return;
    }
    zd_u32 r1 = ZD_MP_SYM_OF(0), r2 = ZD_MP_SYM_OF(1), r3 = ZD_MP_SYM_OF(2), bad = 0u;
    zd_u64 lsum = 0u, tsum = 0u; /* literals and bytes the sequences produce */
    if (status == ZD_STATUS_OK && nseq > 0u) {
        zd_u32 logs[3];
        for (zd_u32 k = 0; k < 3u; k++) {
            if (status == ZD_STATUS_OK) status = lds->fse_status[k];
            logs[k] = lds->fse_log[k];
        }
        zd_bwdf_bits br;
        if (status == ZD_STATUS_OK && zd_bwdf_init_thread(&br, src + blk->bits_at, end - blk->bits_at) != 0)
            status = ZD_STATUS_CORRUPT_SEQUENCES;
        if (status == ZD_STATUS_OK) {
            zd_u32 s_ll = zd_bwdf_read_thread(&br, logs[0]);
            zd_u32 s_of = zd_bwdf_read_thread(&br, logs[1]);
            zd_u32 s_ml = zd_bwdf_read_thread(&br, logs[2]);
            /* one pointer bump a sequence (indexing by 3 * i took ~10 instructions for the stores) */
            ZD_GLOBAL zd_u32 *out = seqs + 3u * blk->seq_at;
            r1 = ZD_MP_SYM_OF(0);
            r2 = ZD_MP_SYM_OF(1);
            r3 = ZD_MP_SYM_OF(2);
            for (zd_u32 i = 0; i < nseq; i++) {
                zd_fse_cell cl = lds->t.fse.ll[s_ll];
                zd_fse_cell cm = lds->t.fse.ml[s_ml];
                zd_fse_cell co = lds->t.fse.of[s_of];
                zd_u32 ofc = co.sym;
                zd_u32 mlb = zd_ml_bits[cm.sym];
                zd_u32 llb = zd_ll_bits[cl.sym];
                zd_u32 nbl = cl.nb, nbm = cm.nb, nbo = co.nb;
                zd_u32 need = ofc + mlb + llb + nbl + nbm + nbo;
                zd_u32 ofv, ml, ll;
                if (need <= 56u) zd_bwdf_refill_thread(&br, (zd_i32)need);
                zd_i32 avail = br.pos - br.cbits;
                if (need <= 56u && avail >= (zd_i32)need) {
                    /* Fast path: all bits of this sequence are in the container (no overrun). */
                    zd_u64 c = br.c;
                    zd_u32 a = (zd_u32)avail;
                    ofv = (1u << ofc) + zd_mp_take_bits(c, &a, ofc);
                    ml = zd_ml_base[cm.sym] + zd_mp_take_bits(c, &a, mlb);
                    ll = zd_ll_base[cl.sym] + zd_mp_take_bits(c, &a, llb);
                    out = zd_mp_seq_record(out, ll, ml, ofv, &r1, &r2, &r3, &bad, &lsum, &tsum);
                    br.pos -= (zd_i32)(ofc + mlb + llb);
                    if (i + 1u < nseq) {
                        s_ll = cl.base + zd_mp_take_bits(c, &a, nbl);
                        s_ml = cm.base + zd_mp_take_bits(c, &a, nbm);
                        s_of = co.base + zd_mp_take_bits(c, &a, nbo);
                        br.pos -= (zd_i32)(nbl + nbm + nbo);
                    }
                    continue;
                }
                zd_bwdf_refill_thread(&br, (zd_i32)(ofc + mlb));
                ofv = (1u << ofc) + zd_bwdf_read_thread(&br, ofc);
                ml = zd_ml_base[cm.sym] + zd_bwdf_read_thread(&br, mlb);
                zd_bwdf_refill_thread(&br, (zd_i32)(llb + nbl + nbm + nbo));
                ll = zd_ll_base[cl.sym] + zd_bwdf_read_thread(&br, llb);
                if (br.pos < 0) {
                    status = ZD_STATUS_CORRUPT_SEQUENCES;
                    break;
                }
                out = zd_mp_seq_record(out, ll, ml, ofv, &r1, &r2, &r3, &bad, &lsum, &tsum);
                if (i + 1u < nseq) {
                    s_ll = cl.base + zd_bwdf_read_thread(&br, nbl);
                    s_ml = cm.base + zd_bwdf_read_thread(&br, nbm);
                    s_of = co.base + zd_bwdf_read_thread(&br, nbo);
                }
            }
            if (status == ZD_STATUS_OK && br.pos != 0) status = ZD_STATUS_CORRUPT_SEQUENCES;
        }
    }
    zd_mp_block_close(blk, hdr, regen, status, bad, lsum, tsum, r1, r2, r3);
}

/* Pass 2, cooperative: zd_zstd_mp_entropy_items over the whole group. */
ZD_FUNC void zd_zstd_mp_entropy_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                      ZD_GLOBAL zd_u8 *scratch, zd_u32 b, ZD_LOCAL zd_mp_entropy_lds *lds,
                                      zd_u32 seq_min, ZD_GLOBAL zd_mp_hdr *ctl) {
    zd_zstd_mp_entropy_items(src, src_len, dst_len, scratch, b, lds, zd_local_id(), zd_local_size(), 1u, seq_min,
                             ctl);
}

#endif
