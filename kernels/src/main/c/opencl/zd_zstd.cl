/* SPDX-License-Identifier: Apache-2.0 */
/* OpenCL entry: one zstd chunk per work-group. Build with -I <dir holding zd_portable.h>, or use
   the generated single file opencl/zd_zstd_flat.cl. Local memory: ZD_ZSTD_LDS_BYTES per group. */
#include "zd_portable.h"
#include "zstd/zd_zstd_frame.h"

__kernel void zd_zstd_decode_batch(const __global uchar *src, const __global ulong *src_offsets,
                                   const __global ulong *src_sizes, __global uchar *dst,
                                   const __global ulong *dst_offsets, const __global ulong *dst_sizes,
                                   __global uchar *scratch, ulong scratch_per_frame, __global uint *status,
                                   uint n_frames) {
    __local zd_zstd_lds lds;
    uint f = (uint)get_group_id(0);
    if (f >= n_frames) return;
    uint s = zd_zstd_decode_frame_group(src + src_offsets[f], src_sizes[f], dst + dst_offsets[f], dst_sizes[f],
                                        scratch + (ulong)f * scratch_per_frame, scratch_per_frame, &lds);
    if (get_local_id(0) == 0) status[f] = s;
}
