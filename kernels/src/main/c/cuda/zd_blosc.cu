/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA entries for blosc 1.x chunks (blosc/zd_blosc.h has the design):
 *   zd_blosc_plan       <<<1, whole warps (up to 1024)>>>: header checks, status, plan (ZD_BLOSC_PLAN_BYTES).
 *   zd_blosc_decode     <<<any grid, any block>>>: every codec; shared memory sizeof(zd_blosc_lds) +
 *                       sizeof(zd_blosc_codec_lds); scratch per block ZD_BLOSC_SCRATCH_PER_GROUP(max_block).
 *   zd_blosc_decode_zstd the same without zlib (zlib streams: ZD_STATUS_BLOSC_CODEC_UNSUPPORTED), for
 *                       arrays whose cname is zstd: sizeof(zd_blosc_lds) + sizeof(zd_blosc_zstd_lds).
 *   zd_blosc_decode_zlib the same without zstd, for arrays whose cname is zlib: sizeof(zd_blosc_lds) +
 *                       sizeof(zd_blosc_zlib_lds). The entries differ in registers as much as in shared
 *                       memory (ptxas, sm_90, CUDA 13.0: every codec 154 registers a thread, zstd 126,
 *                       zlib 127, lz 89): in groups of 64 threads, 6 groups fit a SM with every codec
 *                       against 8 with one of zstd or zlib.
 *   zd_blosc_decode_lz  the same without zstd and zlib (their streams: ZD_STATUS_BLOSC_CODEC_UNSUPPORTED), for
 *                       arrays whose cname is blosclz/lz4/lz4hc: about 8.5 KiB of shared memory,
 *                       scratch per block ZD_BLOSC_LZ_SCRATCH_PER_GROUP(max_block); each lz stream decoded by
 *                       the whole block (one thread per stream parses, all copy, in pieces of ZD_LZ_PIECE bytes).
 *   zd_blosc_decode_lz_thread  as zd_blosc_decode_lz, but one thread per lz stream (for comparison).
 *   zd_blosc_decode_lz_resolve as zd_blosc_decode_lz, matches resolved by copy chains, no waves (for comparison).
 *   zd_blosc_decode_lz_overlap as zd_blosc_decode_lz, each batch parsed by the first warp while the other warps
 *                       execute the batch before (blocks of whole warps, two or more; twice the batches'
 *                       shared memory). */
#include "zd_portable.h"
#include "blosc/zd_blosc.h"

extern "C" __global__ void zd_blosc_plan(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                         const zd_u64 *dst_sizes, zd_u64 *plan, zd_u32 *status, zd_u32 n_chunks) {
    __shared__ zd_u64 tmp[ZD_SCAN_TMP_WORDS];
    if (blockIdx.x != 0) return;
    zd_blosc_plan_group(src, src_offsets, src_sizes, dst_sizes, plan, status, n_chunks, tmp);
}

ZD_BLOSC_DECODE_ENTRY(zd_blosc_decode, zd_blosc_codec_lds, &st.lz, &st.zstd, &st.zlib,
                      ZD_BLOSC_MODE_ZSTD | ZD_BLOSC_MODE_ZLIB)
ZD_BLOSC_DECODE_ENTRY(zd_blosc_decode_zstd, zd_blosc_zstd_lds, &st.lz, &st.zstd, ZD_BLOSC_NO_ZLIB, ZD_BLOSC_MODE_ZSTD)
ZD_BLOSC_DECODE_ENTRY(zd_blosc_decode_zlib, zd_blosc_zlib_lds, &st.lz, ZD_BLOSC_NO_ZSTD, &st.zlib, ZD_BLOSC_MODE_ZLIB)
ZD_BLOSC_DECODE_ENTRY(zd_blosc_decode_lz, zd_blosc_lz_lds, &st, ZD_BLOSC_NO_ZSTD, ZD_BLOSC_NO_ZLIB, 0u)
ZD_BLOSC_DECODE_ENTRY(zd_blosc_decode_lz_thread, zd_blosc_lz_lds, &st, ZD_BLOSC_NO_ZSTD, ZD_BLOSC_NO_ZLIB,
                      ZD_BLOSC_MODE_LZ_THREAD)
ZD_BLOSC_DECODE_ENTRY(zd_blosc_decode_lz_resolve, zd_blosc_lz_lds, &st, ZD_BLOSC_NO_ZSTD, ZD_BLOSC_NO_ZLIB,
                      ZD_BLOSC_MODE_LZ_RESOLVE)
ZD_BLOSC_DECODE_ENTRY(zd_blosc_decode_lz_overlap, zd_blosc_lz2_lds, &st.part[0], ZD_BLOSC_NO_ZSTD, ZD_BLOSC_NO_ZLIB,
                      ZD_BLOSC_MODE_LZ_OVERLAP)
