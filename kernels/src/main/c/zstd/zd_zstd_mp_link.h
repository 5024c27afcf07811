/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_mp_link.h - the link step of the multi-pass zstd decoder (zd_zstd_mp.h): output positions and
 *   entering repeat offsets of every block.
 */
#ifndef ZD_ZSTD_MP_LINK_H
#define ZD_ZSTD_MP_LINK_H

#include "zstd/zd_zstd_mp_layout.h"

/*
 * Link, item 0 of the chunk's group: output position and entering repeat offsets of every block;
 * falls the chunk back when a block failed in pass 2 or the sizes do not add up to dst_len.
 * ctl: chunk 0's header (the batch's largest block count).
 */
ZD_FUNC void zd_zstd_mp_link_group(zd_u64 dst_len, ZD_GLOBAL zd_u8 *scratch, ZD_GLOBAL zd_mp_hdr *ctl) {
    if (zd_local_id() != 0u) return;
    ctl->seq_ticket = 0u; /* pass 2b is over: pass 3b's tickets (every chunk's group stores the same) */
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    if (hdr->mode != ZD_MP_MODE_RUN) return;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES);
    zd_u32 nb = hdr->n_blocks;
    zd_u32 r0 = 1u, r1 = 4u, r2 = 8u;
    zd_u64 pos = 0u;
    zd_u32 ok = 1u;
    for (zd_u32 b = 0; b < nb && ok; b++) {
        ZD_GLOBAL zd_mp_block *bk = blk + b;
        if (bk->type == 2u && bk->status != ZD_STATUS_OK) ok = 0u;
        else if (bk->out_len > dst_len - pos) ok = 0u;
        if (!ok) break;
        bk->out_at = pos;
        bk->rep_in[0] = r0;
        bk->rep_in[1] = r1;
        bk->rep_in[2] = r2;
        pos += bk->out_len;
        if (bk->type == 2u) {
            zd_u32 n0 = zd_mp_rep_resolve(bk->rep_out[0], r0, r1, r2);
            zd_u32 n1 = zd_mp_rep_resolve(bk->rep_out[1], r0, r1, r2);
            zd_u32 n2 = zd_mp_rep_resolve(bk->rep_out[2], r0, r1, r2);
            r0 = n0;
            r1 = n1;
            r2 = n2;
        }
    }
    if (ok && pos != dst_len) ok = 0u;
    if (!ok) {
        hdr->mode = ZD_MP_MODE_FALLBACK;
        return;
    }
    zd_atomic_max_u32(&ctl->max_blocks, nb);
}

#endif
