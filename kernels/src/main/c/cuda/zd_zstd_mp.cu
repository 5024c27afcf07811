/* CUDA entries of the multi-pass zstd decoder (zstd/zd_zstd_mp.h): three launches per batch of
   large frames, all with the same arguments; scan and exec: one block per chunk; entropy: one
   block per block slot (slot_base[n] blocks). */
#include "zd_portable.h"
#include "zstd/zd_zstd_mp.h"

extern "C" __global__ void zd_zstd_mp_scan(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                           const zd_u64 *dst_sizes, zd_u8 *scratch, const zd_u64 *scratch_offsets,
                                           zd_u32 n) {
    __shared__ zd_zstd_lds lds;
    zd_u32 c = blockIdx.x;
    if (c >= n) return;
    zd_zstd_mp_scan_group(src + src_offsets[c], src_sizes[c], dst_sizes[c], scratch + scratch_offsets[c], &lds);
}

extern "C" __global__ void zd_zstd_mp_entropy(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                              const zd_u64 *dst_sizes, zd_u8 *scratch, const zd_u64 *scratch_offsets,
                                              const zd_u64 *slot_base, zd_u32 n) {
    __shared__ zd_zstd_lds lds;
    zd_u64 g = blockIdx.x;
    if (g >= slot_base[n]) return;
    zd_u32 c = zd_zstd_mp_chunk_of_slot(slot_base, n, g);
    zd_zstd_mp_entropy_group(src + src_offsets[c], src_sizes[c], dst_sizes[c], scratch + scratch_offsets[c],
                             (zd_u32)(g - slot_base[c]), &lds);
}

extern "C" __global__ void zd_zstd_mp_exec(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                           zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                           zd_u8 *scratch, const zd_u64 *scratch_offsets, zd_u32 *status, zd_u32 n) {
    __shared__ zd_zstd_lds lds;
    zd_u32 c = blockIdx.x;
    if (c >= n) return;
    zd_u32 s = zd_zstd_mp_exec_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c],
                                     scratch + scratch_offsets[c], &lds);
    if (threadIdx.x == 0) status[c] = s;
}
