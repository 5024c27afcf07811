/* SPDX-License-Identifier: Apache-2.0 */
/* OpenCL entry of the plane gather (gather/zd_gather.h); same contract as cuda/zd_gather.cu, with
 * src and dst given as a buffer and the byte offset of element 0. Single-file form:
 * opencl/zd_gather_flat.cl. NDRange: dimension 1 strides over the table's planes, dimension 0 over
 * each plane's accesses. Float64 sources need cl_khr_fp64 (ZD_HAS_F64); the host checks. */
#include "zd_portable.h"
#include "gather/zd_gather.h"

__kernel void zd_gather(const __global uchar *src, ulong src_offset, ulong src_planes, __global uchar *dst,
                        ulong dst_offset, ulong dst_planes, const __global ulong *table, uint n_planes,
                        ulong plane_elems, uint flags, uint nan_bits) {
    ulong first = get_global_id(0);
    ulong stride = get_global_size(0);
    for (uint p = (uint)get_group_id(1); p < n_planes; p += (uint)get_num_groups(1))
        zd_gather_plane_thread(src + src_offset, src_planes, dst + dst_offset, dst_planes, table, n_planes,
                               plane_elems, flags, nan_bits, p, first, stride);
}
