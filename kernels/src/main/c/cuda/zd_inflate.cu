/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA entries of the deflate decoders: one chunk per thread block (32-128 threads), same
 * contracts as opencl/zd_inflate.cl. Shared memory (static): ZD_INFLATE_LDS_BYTES (raw deflate),
 * ZD_ZLIB_LDS_BYTES, ZD_GZIP_LDS_BYTES. scratch / scratch_per_chunk: unused
 * (ZD_INFLATE_SCRATCH_PER_CHUNK is 0; NULL and 0 are fine), kept for the zstd entry's shape. */
#include "zd_portable.h"
/* Groups of 64 or more write behind a barrier of their own (zd_inf_run_group), where the chase
   saved little; its registers cost a group an SM (nvcc 13, sm_90, groups of 64: gzip 112 -> 114
   registers a thread, 9 -> 8 groups; raw deflate 96 -> 102, 10 -> 9). Groups of 32 go without it
   too. */
#ifndef ZD_INF_CHASE
#define ZD_INF_CHASE 0u
#endif
#include "inflate/zd_inflate.h"
#include "inflate/zd_gzip.h"
#include "inflate/zd_zlib.h"

extern "C" __global__ void zd_deflate_decode_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                                   zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                                   zd_u8 *scratch, zd_u64 scratch_per_chunk, zd_u32 *status,
                                                   zd_u32 n_chunks) {
    __shared__ zd_inflate_lds lds;
    zd_u32 c = blockIdx.x;
    if (c >= n_chunks) return;
    zd_u32 s = zd_deflate_decode_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c], &lds);
    if (threadIdx.x == 0) status[c] = s;
}

extern "C" __global__ void zd_zlib_decode_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                                zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                                zd_u8 *scratch, zd_u64 scratch_per_chunk, zd_u32 *status,
                                                zd_u32 n_chunks) {
    __shared__ zd_zlib_lds lds;
    zd_u32 c = blockIdx.x;
    if (c >= n_chunks) return;
    zd_u32 s = zd_zlib_decode_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c], &lds);
    if (threadIdx.x == 0) status[c] = s;
}

extern "C" __global__ void zd_gzip_decode_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                                zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                                zd_u8 *scratch, zd_u64 scratch_per_chunk, zd_u32 *status,
                                                zd_u32 n_chunks) {
    __shared__ zd_gzip_lds lds;
    zd_u32 c = blockIdx.x;
    if (c >= n_chunks) return;
    zd_u32 s = zd_gzip_decode_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c], &lds);
    if (threadIdx.x == 0) status[c] = s;
}

/* One deflate stream decoded by many blocks (inflate/zd_inflate_split.h): find (one block per
 * range record), sync (the same), decode (one block per record; retry: only those flagged ZD_INFS_F_RETRY), then
 * the finish: chain (one block per stream; its records are segs[seg_first[c] .. + seg_count[c])),
 * layout (one block per record), check (one thread per stream). format: ZD_INFS_FORMAT_*. Shared
 * memory (static): ZD_INFS_{FIND,DECODE,CHAIN,LAYOUT}_LDS_BYTES. */
#include "inflate/zd_inflate_split.h"

extern "C" __global__ void zd_infs_find(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                        zd_infs_seg *segs, zd_u64 seg_bytes, zd_u32 format, zd_u32 n_segs) {
    __shared__ zd_infs_find_lds lds;
    zd_u32 g = blockIdx.x;
    if (g >= n_segs) return;
    zd_u32 c = segs[g].stream;
    zd_infs_find_group(src + src_offsets[c], src_sizes[c], format, seg_bytes, &segs[g], &lds);
}

/* Thread 0 of each block walks into its range (zd_infs_sync_thread); blocks of one warp. */
extern "C" __global__ void zd_infs_sync(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                        zd_infs_seg *segs, zd_u64 seg_bytes, zd_u32 format, zd_u32 n_segs) {
    __shared__ zd_inflate_lds lds;
    zd_u32 g = blockIdx.x;
    if (g >= n_segs || threadIdx.x != 0) return;
    zd_u32 c = segs[g].stream;
    zd_infs_sync_thread(src + src_offsets[c], src_sizes[c], format, seg_bytes, segs, g, &lds);
}

/* Groups of ZD_INFS_DECODE_ITEMS, 12 of them an SM (what their shared memory allows). Left to
 * itself nvcc gives this entry 96 registers, which fit 10; at 80 nothing spills, and the decode
 * launches of two whole-array reads of a 2 MB int16 zlib store took 259 ms where they took 272
 * (H100, Nsight Compute). */
#ifndef ZD_INFS_DECODE_MIN_GROUPS
#define ZD_INFS_DECODE_MIN_GROUPS 12
#endif
extern "C" __global__ void __launch_bounds__(ZD_INFS_DECODE_ITEMS, ZD_INFS_DECODE_MIN_GROUPS)
    zd_infs_decode(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                   zd_u16 *cells, zd_infs_seg *segs, zd_u32 retry, zd_u32 n_segs) {
    __shared__ zd_infs_decode_lds lds;
    zd_u32 g = blockIdx.x;
    if (g >= n_segs) return;
    zd_u32 c = segs[g].stream;
    zd_infs_decode_group(src + src_offsets[c], src_sizes[c], cells, segs, g, n_segs, retry, &lds);
}

extern "C" __global__ void zd_infs_chain(const zd_u64 *src_sizes, zd_u8 *dst, const zd_u64 *dst_offsets,
                                         const zd_u64 *dst_sizes, const zd_u16 *cells, zd_infs_seg *segs,
                                         const zd_u32 *seg_first, const zd_u32 *seg_count, zd_u32 format,
                                         zd_u32 *status, zd_u32 n_streams) {
    __shared__ zd_infs_chain_lds lds;
    zd_u32 c = blockIdx.x;
    if (c >= n_streams) return;
    zd_u32 s = zd_infs_chain_group(src_sizes[c], format, dst + dst_offsets[c], dst_sizes[c], cells,
                                   segs + seg_first[c], seg_count[c], &lds);
    if (threadIdx.x == 0) status[c] = s;
}

extern "C" __global__ void zd_infs_layout(zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u16 *cells,
                                          zd_infs_seg *segs, zd_u32 format, zd_u32 *status, zd_u32 n_segs) {
    __shared__ zd_infs_layout_lds lds;
    zd_u32 g = blockIdx.x;
    if (g >= n_segs) return;
    zd_u32 c = segs[g].stream;
    zd_infs_layout_group(format, dst + dst_offsets[c], cells, &segs[g], &status[c], &lds);
}

extern "C" __global__ void zd_infs_check(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *dst_sizes,
                                         const zd_infs_seg *segs, const zd_u32 *seg_first, const zd_u32 *seg_count,
                                         zd_u32 format, zd_u32 *status, zd_u32 n_streams) {
    zd_u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_streams) return;
    status[c] = zd_infs_check_thread(src + src_offsets[c], format, dst_sizes[c], segs + seg_first[c], seg_count[c],
                                     status[c]);
}
