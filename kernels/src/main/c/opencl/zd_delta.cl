/* SPDX-License-Identifier: Apache-2.0 */
/* OpenCL entry of the delta filter (delta/zd_delta.h): one chunk per work-group of at most
   ZD_DELTA_MAX_ITEMS items. Single-file form: opencl/zd_delta_flat.cl. type: element size, plus
   ZD_DELTA_FLOAT for floats (float64 needs cl_khr_fp64, else the chunk's status is
   ZD_STATUS_BAD_ARGUMENT); encode: 0 decodes. Local memory: sizeof(zd_delta_lds). Build without
   fast-math options: the float sums must keep their IEEE meaning. */
#include "zd_portable.h"
#include "delta/zd_delta.h"

__kernel void zd_delta_batch(const __global uchar *src, const __global ulong *src_offsets,
                             const __global ulong *src_sizes, __global uchar *dst, const __global ulong *dst_offsets,
                             const __global ulong *dst_sizes, __global uint *status, uint type, uint encode,
                             uint n_chunks) {
    __local zd_delta_lds lds;
    uint c = (uint)get_group_id(0);
    if (c >= n_chunks) return;
    uint s = zd_delta_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c], type, encode, &lds);
    if (get_local_id(0) == 0) status[c] = s;
}
