/* SPDX-License-Identifier: Apache-2.0 */
/* OpenCL entries for blosc 1.x chunks (blosc/zd_blosc.h has the design; the same kernels as
   cuda/zd_blosc.cu). Build with -I <dir holding zd_portable.h>, or use the generated single file
   opencl/zd_blosc_flat.cl. zd_blosc_plan runs as one work-group. */
#include "zd_portable.h"
#include "blosc/zd_blosc.h"

__kernel void zd_blosc_plan(const __global uchar *src, const __global ulong *src_offsets,
                            const __global ulong *src_sizes, const __global ulong *dst_sizes, __global ulong *plan,
                            __global uint *status, uint n_chunks) {
    __local ulong tmp[ZD_SCAN_TMP_WORDS];
    if (get_group_id(0) != 0) return;
    zd_blosc_plan_group(src, src_offsets, src_sizes, dst_sizes, plan, status, n_chunks, tmp);
}

__kernel void zd_blosc_decode(const __global uchar *src, const __global ulong *src_offsets,
                              const __global ulong *src_sizes, __global uchar *dst, const __global ulong *dst_offsets,
                              const __global ulong *dst_sizes, const __global ulong *plan, __global uchar *scratch,
                              ulong scratch_per_group, __global uint *status, uint n_chunks) {
    __local zd_blosc_lds lds;
    __local zd_blosc_codec_lds clds;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &clds.lz, &clds.zstd, &clds.zlib,
                          ZD_BLOSC_MODE_ZSTD | ZD_BLOSC_MODE_ZLIB);
}

__kernel void zd_blosc_decode_zstd(const __global uchar *src, const __global ulong *src_offsets,
                                   const __global ulong *src_sizes, __global uchar *dst,
                                   const __global ulong *dst_offsets, const __global ulong *dst_sizes,
                                   const __global ulong *plan, __global uchar *scratch, ulong scratch_per_group,
                                   __global uint *status, uint n_chunks) {
    __local zd_blosc_lds lds;
    __local zd_blosc_zstd_lds zl;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &zl.lz, &zl.zstd, (__local zd_zlib_lds *)0, ZD_BLOSC_MODE_ZSTD);
}

__kernel void zd_blosc_decode_zlib(const __global uchar *src, const __global ulong *src_offsets,
                                   const __global ulong *src_sizes, __global uchar *dst,
                                   const __global ulong *dst_offsets, const __global ulong *dst_sizes,
                                   const __global ulong *plan, __global uchar *scratch, ulong scratch_per_group,
                                   __global uint *status, uint n_chunks) {
    __local zd_blosc_lds lds;
    __local zd_blosc_zlib_lds zl;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &zl.lz, (__local zd_zstd_lds *)0, &zl.zlib, ZD_BLOSC_MODE_ZLIB);
}

__kernel void zd_blosc_decode_lz(const __global uchar *src, const __global ulong *src_offsets,
                                 const __global ulong *src_sizes, __global uchar *dst,
                                 const __global ulong *dst_offsets, const __global ulong *dst_sizes,
                                 const __global ulong *plan, __global uchar *scratch, ulong scratch_per_group,
                                 __global uint *status, uint n_chunks) {
    __local zd_blosc_lds lds;
    __local zd_blosc_lz_lds lzl;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &lzl, (__local zd_zstd_lds *)0, (__local zd_zlib_lds *)0, 0u);
}

__kernel void zd_blosc_decode_lz_thread(const __global uchar *src, const __global ulong *src_offsets,
                                        const __global ulong *src_sizes, __global uchar *dst,
                                        const __global ulong *dst_offsets, const __global ulong *dst_sizes,
                                        const __global ulong *plan, __global uchar *scratch, ulong scratch_per_group,
                                        __global uint *status, uint n_chunks) {
    __local zd_blosc_lds lds;
    __local zd_blosc_lz_lds lzl;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &lzl, (__local zd_zstd_lds *)0, (__local zd_zlib_lds *)0, ZD_BLOSC_MODE_LZ_THREAD);
}

__kernel void zd_blosc_decode_lz_resolve(const __global uchar *src, const __global ulong *src_offsets,
                                         const __global ulong *src_sizes, __global uchar *dst,
                                         const __global ulong *dst_offsets, const __global ulong *dst_sizes,
                                         const __global ulong *plan, __global uchar *scratch, ulong scratch_per_group,
                                         __global uint *status, uint n_chunks) {
    __local zd_blosc_lds lds;
    __local zd_blosc_lz_lds lzl;
    zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch, scratch_per_group,
                          status, n_chunks, &lds, &lzl, (__local zd_zstd_lds *)0, (__local zd_zlib_lds *)0, ZD_BLOSC_MODE_LZ_RESOLVE);
}
