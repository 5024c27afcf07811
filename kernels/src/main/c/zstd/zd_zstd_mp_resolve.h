/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_mp_resolve.h - pass 3b of the multi-pass zstd decoder (zd_zstd_mp.h): the bytes pass 3 deferred.
 */
#ifndef ZD_ZSTD_MP_RESOLVE_H
#define ZD_ZSTD_MP_RESOLVE_H

#include "zstd/zd_zstd_mp_layout.h"

/* Gathers a pass-3b step takes in flight per item. */
#define ZD_MPR_ILP 16u

/*
 * Pass 3b, cooperative, persistent, after a ZD_MPX_F_DEFER pass 3: the bytes that pass 3 left with
 * a ref in `refs` (chunk c's at ref_offsets[c], a u32 per byte) copy the byte their ref names,
 * block after block: a ref names a byte of an earlier block, final by then (written by pass 3, or
 * here for an earlier block). Work comes in tickets (ctl->seq_ticket, which link zeroed): ticket t
 * is slice t % parts of block t / parts / n of chunk t / parts % n, block index major; a slice
 * waits until every slice of its chunk's earlier blocks is done (hdr->resolved counts them). Those
 * have earlier tickets, taken by groups that are running, so the wait ends whatever the grid and
 * whatever else shares the device. Slices of one block, several groups: one multiprocessor
 * gathered a 66 MB ERA5 frame's 512 blocks in 13 ms, ~26 us a block. Bytes of earlier blocks are
 * read past L1 (other groups wrote them). A chunk with a failed block is left to pass 4's
 * fallback, and so is one whose refs do not point back (they come from pass 3, so that is a bug,
 * never the data: the fallback keeps the output right and memory safe).
 */
ZD_FUNC void zd_zstd_mp_resolve_group(ZD_GLOBAL zd_u8 *dst, const ZD_GLOBAL zd_u64 *dst_offsets,
                                      ZD_GLOBAL zd_u8 *scratch, const ZD_GLOBAL zd_u64 *scratch_offsets,
                                      const ZD_GLOBAL zd_u32 *refs, const ZD_GLOBAL zd_u64 *ref_offsets, zd_u32 n,
                                      zd_u32 parts, ZD_LOCAL zd_u32 *ticket) {
    ZD_GLOBAL zd_mp_hdr *ctl = (ZD_GLOBAL zd_mp_hdr *)(scratch + scratch_offsets[0]);
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_u64 total = (zd_u64)n * ctl->max_blocks * parts;
    for (;;) {
        if (lid == 0u) *ticket = zd_atomic_add_u32(&ctl->seq_ticket, 1u);
        ZD_BARRIER();
        zd_u64 t = *ticket;
        ZD_BARRIER();
        if (t >= total) return;
        zd_u32 part = (zd_u32)(t % parts), c = (zd_u32)(t / parts % n), q = (zd_u32)(t / parts / n);
        ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)(scratch + scratch_offsets[c]);
        if (q > 0u) {
            if (lid == 0u) {
                while (zd_load_flag(&hdr->resolved) < q * parts) zd_spin_pause();
                zd_fence();
            }
            ZD_BARRIER();
        }
        const ZD_GLOBAL zd_mp_block *bk = (const ZD_GLOBAL zd_mp_block *)(scratch + scratch_offsets[c] + ZD_MP_HDR_BYTES) + q;
        zd_u32 bad = 0u;
        if (hdr->mode == ZD_MP_MODE_RUN && !zd_load_flag(&hdr->failed) && q < hdr->n_blocks && bk->type == 2u) {
            ZD_GLOBAL zd_u8 *d = dst + dst_offsets[c];
            const ZD_GLOBAL zd_u32 *rf = refs + ref_offsets[c];
            zd_u64 at = bk->out_at;
            zd_u32 len = bk->out_len - (bk->regen - bk->lit_used); /* the trailing literals have no refs */
            zd_u32 vid = part * ls + lid, vs = parts * ls;         /* the item in the block's virtual group */
            for (zd_u32 x0 = vid; x0 < len; x0 += ZD_MPR_ILP * vs) {
                zd_u32 r[ZD_MPR_ILP];
                zd_u8 v[ZD_MPR_ILP];
                ZD_UNROLL
                for (zd_u32 k = 0; k < ZD_MPR_ILP; k++) r[k] = x0 + k * vs < len ? rf[at + x0 + k * vs] : ZD_MP_REF_NONE;
                ZD_UNROLL
                for (zd_u32 k = 0; k < ZD_MPR_ILP; k++) {
                    if (r[k] != ZD_MP_REF_NONE && r[k] >= at) {
                        bad = 1u;
                        r[k] = ZD_MP_REF_NONE;
                    }
                    v[k] = r[k] != ZD_MP_REF_NONE ? zd_ld_cg_u8(d + r[k]) : (zd_u8)0u;
                }
                ZD_UNROLL
                for (zd_u32 k = 0; k < ZD_MPR_ILP; k++)
                    if (r[k] != ZD_MP_REF_NONE) d[at + x0 + k * vs] = v[k];
            }
        }
        if (bad) hdr->failed = 1u;
        ZD_BARRIER();
        if (lid == 0u) {
            zd_fence(); /* the slice's bytes before its count */
            zd_atomic_add_u32(&hdr->resolved, 1u);
        }
    }
}

#endif
