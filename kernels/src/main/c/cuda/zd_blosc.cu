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
 *   zd_blosc_decode_lz_resolve as zd_blosc_decode_lz, matches resolved by copy chains, no waves (for comparison). */
#include "zd_portable.h"
#include "blosc/zd_blosc.h"

extern "C" __global__ void zd_blosc_plan(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                         const zd_u64 *dst_sizes, zd_u64 *plan, zd_u32 *status, zd_u32 n_chunks) {
    __shared__ zd_u64 tmp[ZD_SCAN_TMP_WORDS];
    if (blockIdx.x != 0) return;
    zd_blosc_plan_group(src, src_offsets, src_sizes, dst_sizes, plan, status, n_chunks, tmp);
}

extern "C" __global__ void zd_blosc_decode(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                           zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                           const zd_u64 *plan, zd_u8 *scratch, zd_u64 scratch_per_group,
                                           zd_u32 *status, zd_u32 n_chunks) {
    __shared__ zd_blosc_lds lds;
    __shared__ zd_blosc_codec_lds clds;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &clds.lz, &clds.zstd, &clds.zlib,
                          ZD_BLOSC_MODE_ZSTD | ZD_BLOSC_MODE_ZLIB);
}

extern "C" __global__ void zd_blosc_decode_zstd(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                                zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                                const zd_u64 *plan, zd_u8 *scratch, zd_u64 scratch_per_group,
                                                zd_u32 *status, zd_u32 n_chunks) {
    __shared__ zd_blosc_lds lds;
    __shared__ zd_blosc_zstd_lds zl;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &zl.lz, &zl.zstd, (zd_zlib_lds *)0, ZD_BLOSC_MODE_ZSTD);
}

extern "C" __global__ void zd_blosc_decode_zlib(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                                zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                                const zd_u64 *plan, zd_u8 *scratch, zd_u64 scratch_per_group,
                                                zd_u32 *status, zd_u32 n_chunks) {
    __shared__ zd_blosc_lds lds;
    __shared__ zd_blosc_zlib_lds zl;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &zl.lz, (zd_zstd_lds *)0, &zl.zlib, ZD_BLOSC_MODE_ZLIB);
}

extern "C" __global__ void zd_blosc_decode_lz(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                              zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                              const zd_u64 *plan, zd_u8 *scratch, zd_u64 scratch_per_group,
                                              zd_u32 *status, zd_u32 n_chunks) {
    __shared__ zd_blosc_lds lds;
    __shared__ zd_blosc_lz_lds lzl;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &lzl, (zd_zstd_lds *)0, (zd_zlib_lds *)0, 0u);
}

extern "C" __global__ void zd_blosc_decode_lz_thread(const zd_u8 *src, const zd_u64 *src_offsets,
                                                     const zd_u64 *src_sizes, zd_u8 *dst, const zd_u64 *dst_offsets,
                                                     const zd_u64 *dst_sizes, const zd_u64 *plan, zd_u8 *scratch,
                                                     zd_u64 scratch_per_group, zd_u32 *status, zd_u32 n_chunks) {
    __shared__ zd_blosc_lds lds;
    __shared__ zd_blosc_lz_lds lzl;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &lzl, (zd_zstd_lds *)0, (zd_zlib_lds *)0, ZD_BLOSC_MODE_LZ_THREAD);
}

extern "C" __global__ void zd_blosc_decode_lz_resolve(const zd_u8 *src, const zd_u64 *src_offsets,
                                                      const zd_u64 *src_sizes, zd_u8 *dst, const zd_u64 *dst_offsets,
                                                      const zd_u64 *dst_sizes, const zd_u64 *plan, zd_u8 *scratch,
                                                      zd_u64 scratch_per_group, zd_u32 *status, zd_u32 n_chunks) {
    __shared__ zd_blosc_lds lds;
    __shared__ zd_blosc_lz_lds lzl;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &lzl, (zd_zstd_lds *)0, (zd_zlib_lds *)0, ZD_BLOSC_MODE_LZ_RESOLVE);
}
