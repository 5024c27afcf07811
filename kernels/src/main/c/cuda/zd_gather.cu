/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA entry of the plane gather (gather/zd_gather.h); same contract as opencl/zd_gather.cl.
 * Grid: y strides over the table's planes, x over each plane's accesses (a grid-stride loop). */
#include "zd_portable.h"
#include "gather/zd_gather.h"

extern "C" __global__ void zd_gather(const zd_u8 *src, zd_u64 src_planes, zd_u8 *dst, zd_u64 dst_planes,
                                     const zd_u64 *table, zd_u32 n_planes, zd_u64 plane_elems, zd_u32 flags,
                                     zd_u32 nan_bits) {
    zd_u64 first = (zd_u64)blockIdx.x * blockDim.x + threadIdx.x;
    zd_u64 stride = (zd_u64)gridDim.x * blockDim.x;
    for (zd_u32 p = blockIdx.y; p < n_planes; p += gridDim.y)
        zd_gather_plane_thread(src, src_planes, dst, dst_planes, table, n_planes, plane_elems, flags, nan_bits, p,
                               first, stride);
}
