/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA entry: one zstd chunk per thread block. Shared memory: ZD_ZSTD_LDS_BYTES per block (static). */
#include "zd_portable.h"
#include "zstd/zd_zstd_frame.h"

extern "C" __global__ void zd_zstd_decode_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                                zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                                zd_u8 *scratch, zd_u64 scratch_per_frame, zd_u32 *status,
                                                zd_u32 n_frames) {
    __shared__ zd_zstd_lds lds;
    zd_u32 f = blockIdx.x;
    if (f >= n_frames) return;
    zd_u32 s = zd_zstd_decode_frame_group(src + src_offsets[f], src_sizes[f], dst + dst_offsets[f], dst_sizes[f],
                                          scratch + (zd_u64)f * scratch_per_frame, scratch_per_frame, &lds);
    if (threadIdx.x == 0) status[f] = s;
}
