/* SPDX-License-Identifier: Apache-2.0 */
/* OpenCL entries of the deflate decoders: one chunk per work-group (32-128 items). Build with
   -I <dir holding zd_portable.h>, or use the generated single file opencl/zd_inflate_flat.cl.
   Local memory: ZD_INFLATE_LDS_BYTES / ZD_ZLIB_LDS_BYTES / ZD_GZIP_LDS_BYTES per group.
   scratch / scratch_per_chunk: unused (ZD_INFLATE_SCRATCH_PER_CHUNK is 0), kept for the zstd
   entry's shape. */
#include "zd_portable.h"
#include "inflate/zd_inflate.h"
#include "inflate/zd_gzip.h"
#include "inflate/zd_zlib.h"

__kernel void zd_deflate_decode_batch(const __global uchar *src, const __global ulong *src_offsets,
                                      const __global ulong *src_sizes, __global uchar *dst,
                                      const __global ulong *dst_offsets, const __global ulong *dst_sizes,
                                      __global uchar *scratch, ulong scratch_per_chunk, __global uint *status,
                                      uint n_chunks) {
    __local zd_inflate_lds lds;
    uint c = (uint)get_group_id(0);
    if (c >= n_chunks) return;
    uint s = zd_deflate_decode_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c], &lds);
    if (get_local_id(0) == 0) status[c] = s;
}

__kernel void zd_zlib_decode_batch(const __global uchar *src, const __global ulong *src_offsets,
                                   const __global ulong *src_sizes, __global uchar *dst,
                                   const __global ulong *dst_offsets, const __global ulong *dst_sizes,
                                   __global uchar *scratch, ulong scratch_per_chunk, __global uint *status,
                                   uint n_chunks) {
    __local zd_zlib_lds lds;
    uint c = (uint)get_group_id(0);
    if (c >= n_chunks) return;
    uint s = zd_zlib_decode_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c], &lds);
    if (get_local_id(0) == 0) status[c] = s;
}

__kernel void zd_gzip_decode_batch(const __global uchar *src, const __global ulong *src_offsets,
                                   const __global ulong *src_sizes, __global uchar *dst,
                                   const __global ulong *dst_offsets, const __global ulong *dst_sizes,
                                   __global uchar *scratch, ulong scratch_per_chunk, __global uint *status,
                                   uint n_chunks) {
    __local zd_gzip_lds lds;
    uint c = (uint)get_group_id(0);
    if (c >= n_chunks) return;
    uint s = zd_gzip_decode_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c], &lds);
    if (get_local_id(0) == 0) status[c] = s;
}

/* One deflate stream decoded by many groups (inflate/zd_inflate_split.h); the same contracts as
   cuda/zd_inflate.cu's zd_infs_find, zd_infs_sync, zd_infs_decode, zd_infs_chain, zd_infs_layout and zd_infs_check. */
#include "inflate/zd_inflate_split.h"

__kernel void zd_infs_find(const __global uchar *src, const __global ulong *src_offsets,
                           const __global ulong *src_sizes, __global zd_infs_seg *segs, ulong seg_bytes, uint format,
                           uint n_segs) {
    __local zd_infs_find_lds lds;
    uint g = (uint)get_group_id(0);
    if (g >= n_segs) return;
    uint c = segs[g].stream;
    zd_infs_find_group(src + src_offsets[c], src_sizes[c], format, seg_bytes, &segs[g], &lds);
}

__kernel void zd_infs_sync(const __global uchar *src, const __global ulong *src_offsets,
                           const __global ulong *src_sizes, __global zd_infs_seg *segs, ulong seg_bytes, uint format,
                           uint n_segs) {
    __local zd_inflate_lds lds;
    uint g = (uint)get_group_id(0);
    if (g >= n_segs || get_local_id(0) != 0) return;
    uint c = segs[g].stream;
    zd_infs_sync_thread(src + src_offsets[c], src_sizes[c], format, seg_bytes, segs, g, &lds);
}

__kernel void zd_infs_decode(const __global uchar *src, const __global ulong *src_offsets,
                             const __global ulong *src_sizes, __global ushort *cells, __global zd_infs_seg *segs,
                             uint retry, uint n_segs) {
    __local zd_infs_decode_lds lds;
    uint g = (uint)get_group_id(0);
    if (g >= n_segs) return;
    uint c = segs[g].stream;
    zd_infs_decode_group(src + src_offsets[c], src_sizes[c], cells, segs, g, n_segs, retry, &lds);
}

__kernel void zd_infs_chain(const __global ulong *src_sizes, __global uchar *dst, const __global ulong *dst_offsets,
                            const __global ulong *dst_sizes, const __global ushort *cells, __global zd_infs_seg *segs,
                            const __global uint *seg_first, const __global uint *seg_count, uint format,
                            __global uint *status, uint n_streams) {
    __local zd_infs_chain_lds lds;
    uint c = (uint)get_group_id(0);
    if (c >= n_streams) return;
    uint s = zd_infs_chain_group(src_sizes[c], format, dst + dst_offsets[c], dst_sizes[c], cells, segs + seg_first[c],
                                 seg_count[c], &lds);
    if (get_local_id(0) == 0) status[c] = s;
}

__kernel void zd_infs_layout(__global uchar *dst, const __global ulong *dst_offsets, const __global ushort *cells,
                             __global zd_infs_seg *segs, uint format, __global uint *status, uint n_segs) {
    __local zd_infs_layout_lds lds;
    uint g = (uint)get_group_id(0);
    if (g >= n_segs) return;
    uint c = segs[g].stream;
    zd_infs_layout_group(format, dst + dst_offsets[c], cells, &segs[g], &status[c], &lds);
}

__kernel void zd_infs_check(const __global uchar *src, const __global ulong *src_offsets,
                            const __global ulong *dst_sizes, const __global zd_infs_seg *segs,
                            const __global uint *seg_first, const __global uint *seg_count, uint format,
                            __global uint *status, uint n_streams) {
    uint c = (uint)get_global_id(0);
    if (c >= n_streams) return;
    status[c] = zd_infs_check_thread(src + src_offsets[c], format, dst_sizes[c], segs + seg_first[c], seg_count[c],
                                     status[c]);
}
