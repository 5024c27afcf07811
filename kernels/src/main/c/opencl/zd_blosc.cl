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

/* the decode entries: the same list as cuda/zd_blosc.cu (blosc/zd_blosc.h defines them) */
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
