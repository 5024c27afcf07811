/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_mp_finish.h - pass 4 of the multi-pass zstd decoder (zd_zstd_mp.h): the checksum, or the single-pass
 *   decoder for chunks that fell back.
 */
#ifndef ZD_ZSTD_MP_FINISH_H
#define ZD_ZSTD_MP_FINISH_H

#include "zstd/zd_zstd_mp_layout.h"

/*
 * Pass 4, cooperative: the chunk's status. A chunk executed by pass 3 only needs its checksum
 * checked; any other is decoded again by the single-pass decoder.
 */
ZD_FUNC zd_u32 zd_zstd_mp_finish_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst,
                                       zd_u64 dst_len, ZD_GLOBAL zd_u8 *scratch, ZD_LOCAL zd_zstd_lds *lds) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_u8 *lit = scratch + zd_zstd_mp_lit_off(dst_len, src_len);
    zd_u32 lid = zd_local_id();
    if (hdr->mode == ZD_MP_MODE_RUN && !hdr->failed) {
        if (!hdr->has_checksum) return ZD_STATUS_OK;
        for (zd_u32 lane = lid; lane < 4u; lane += zd_local_size())
            lds->xxh_acc[lane] = zd_xxh64_lane_thread(dst, dst_len, lane);
        ZD_BARRIER();
        if (lid == 0u) {
            zd_u64 h = zd_xxh64_finish_thread(dst, dst_len, lds->xxh_acc[0], lds->xxh_acc[1], lds->xxh_acc[2],
                                              lds->xxh_acc[3]);
            lds->status = (zd_u32)h == (zd_u32)zd_load_le_thread(src, src_len, hdr->cksum_at, 4u)
                              ? ZD_STATUS_OK
                              : ZD_STATUS_CORRUPT_CHECKSUM;
        }
        ZD_BARRIER();
        zd_u32 status = lds->status;
        ZD_BARRIER();
        if (status == ZD_STATUS_OK) return status;
    }
    ZD_BARRIER();
    if (lid == 0u) hdr->mode = ZD_MP_MODE_FALLBACK; /* visible to the caller (tests count fallbacks) */
    return zd_zstd_decode_frame_group(src, src_len, dst, dst_len, lit, zd_zstd_mp_lit_bytes(dst_len), lds);
}

#endif
