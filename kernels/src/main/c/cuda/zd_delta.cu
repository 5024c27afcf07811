/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA entry of the delta filter (delta/zd_delta.h): one chunk per thread block of whole warps, at
 * most ZD_DELTA_MAX_ITEMS threads; same contract as opencl/zd_delta.cl. type: element size, plus
 * ZD_DELTA_FLOAT for floats; encode: 0 decodes. Shared memory (static): sizeof(zd_delta_lds). */
#include "zd_portable.h"
#include "delta/zd_delta.h"

extern "C" __global__ void zd_delta_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                          zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                          zd_u32 *status, zd_u32 type, zd_u32 encode, zd_u32 n_chunks) {
    __shared__ zd_delta_lds lds;
    zd_u32 c = blockIdx.x;
    if (c >= n_chunks) return;
    zd_u32 s = zd_delta_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c], type, encode, &lds);
    if (threadIdx.x == 0) status[c] = s;
}
